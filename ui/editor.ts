// The PTX editor: CodeMirror 6 with the PTX mode, server diagnostics, a
// breakpoint gutter, per-warp current-line markers and hover docs. The
// marks (gutters, line decorations, memory badges) are in editormarks.ts,
// hover docs and completion in editorhelp.ts, the theme in editortheme.ts.

import { EditorState, Compartment } from "@codemirror/state";
import type { Extension, Text } from "@codemirror/state";
import {
  EditorView, gutter, lineNumbers, keymap, hoverTooltip, drawSelection,
  highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, rectangularSelection, dropCursor,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit } from "@codemirror/language";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { lintGutter, setDiagnostics, lintKeymap } from "@codemirror/lint";
import type { Diagnostic } from "@codemirror/lint";
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { ptx } from "./ptxlang";
import type { Message } from "./proto";
import { h } from "./dom";
import { diagIdTag, diagNotesList, diagText } from "./diagview";
import type { MemBadges } from "./membadges";
import {
  badgeTipCloser, badgeTipField, bpHint, bpOn, breakpointField, codeLinesField, hasBreakpoint, hintLineField, MemBadgeMarker,
  memBadgesField, setBreakpointsEffect, setCodeLinesEffect, setHintLineEffect, setMemBadgesEffect, setShadingEffect,
  setWarpMarksEffect, shadingDecos, shadingField, showBadgeTipEffect, toggleBreakpointEffect, WarpMarker, warpLineDecos,
  warpMarkerFor, warpMarksField,
} from "./editormarks";
import type { LaneShading, WarpMarks } from "./editormarks";
import { completeSource, hoverSource } from "./editorhelp";
import { theme } from "./editortheme";
import { cudaLang } from "./cudalang";
import { cudaHover } from "./cudahover";
import { linkMarks, setLinkColoursEffect, setLinkHotEffect } from "./linkmarks";

export type { LaneShading, WarpMarks } from "./editormarks";
export { shadeLevel } from "./editormarks";

export interface EditorHooks {
  /** The user toggled a breakpoint on a line (1-based). */
  toggleBreakpoint(line: number, on: boolean): void;
  /** The document changed. */
  changed(): void;
  /** Ctrl+Enter. */
  compile(): void;
  /** Extra hover content for a register name (its values in the selected warp). */
  registerHover(name: string): HTMLElement | null;
  /** Extra hover content for an instruction on a line (e.g. "show fragments"). */
  instructionHover?(line: number): HTMLElement | null;
}

/** What kind of editor: the PTX one (the default) or kernel.cu's. */
export interface EditorKind {
  cuda?: boolean;
  /** The line under the pointer (0: none), for the CUDA ↔ PTX link. */
  hoverLine?(line: number): void;
}

export class Editor {
  readonly view: EditorView;
  private dark = new Compartment();
  private readOnly = new Compartment();
  private suppressChange = false;

  constructor(parent: HTMLElement, doc: string, hooks: EditorHooks, darkTheme: boolean, kind: EditorKind = {}) {
    const toggleAt = (view: EditorView, lineFrom: number) => {
      const line = view.state.doc.lineAt(lineFrom);
      const on = !hasBreakpoint(view.state, line.from);
      view.dispatch({ effects: toggleBreakpointEffect.of({ pos: line.from, on }) });
      hooks.toggleBreakpoint(line.number, on);
      return true;
    };
    const bpGutter = gutter({
      class: "cm-bp-gutter",
      markers: (v) => v.state.field(breakpointField),
      lineMarker: (view, line, others) => {
        if (others.length) return null;
        const n = view.state.doc.lineAt(line.from).number;
        return view.state.field(codeLinesField).has(n) ? bpHint : null;
      },
      lineMarkerChange: (u) => u.startState.field(codeLinesField) !== u.state.field(codeLinesField),
      initialSpacer: () => bpOn,
      domEventHandlers: {
        mousedown: (view, line, ev) => {
          if ((ev as MouseEvent).button !== 0) return false;
          return toggleAt(view, line.from);
        },
      },
    });
    const warpGutter = gutter({
      class: "cm-warp-gutter",
      lineMarker: (view, line) => warpMarkerFor(view.state, view.state.doc.lineAt(line.from).number),
      lineMarkerChange: (u) => u.startState.field(warpMarksField) !== u.state.field(warpMarksField),
      initialSpacer: () => new WarpMarker("▶", "warp-mark warp-mark-sel", ""),
    });
    const memGutter = gutter({
      class: "cm-mem-gutter",
      lineMarker: (view, line) => {
        const b = view.state.field(memBadgesField).get(view.state.doc.lineAt(line.from).number);
        return b ? new MemBadgeMarker(b) : null;
      },
      lineMarkerChange: (u) => u.startState.field(memBadgesField) !== u.state.field(memBadgesField),
      domEventHandlers: {
        mousedown: (view, line, ev) => {
          if ((ev as MouseEvent).button !== 0) return false;
          const n = view.state.doc.lineAt(line.from).number;
          if (!view.state.field(memBadgesField).has(n)) return false;
          const open = view.state.field(badgeTipField);
          const same = open !== null && view.state.doc.lineAt(open.pos).number === n;
          view.dispatch({ effects: showBadgeTipEffect.of(same ? null : n) });
          return true;
        },
      },
    });
    const exts: Extension[] = [
      breakpointField,
      codeLinesField,
      warpMarksField,
      hintLineField,
      bpGutter,
      lineNumbers({
        domEventHandlers: {
          mousedown: (view, line, ev) => {
            if ((ev as MouseEvent).button !== 0) return false;
            return toggleAt(view, line.from);
          },
        },
      }),
      warpGutter,
      lintGutter(),
      memBadgesField,
      memGutter,
      badgeTipField,
      badgeTipCloser,
      warpLineDecos,
      shadingField,
      shadingDecos,
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      dropCursor(),
      EditorState.allowMultipleSelections.of(true),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      kind.cuda ? [] : autocompletion({ override: [completeSource], activateOnTyping: true, icons: false }),
      rectangularSelection(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      hoverTooltip(kind.cuda ? cudaHover : hoverSource(hooks), { hoverTime: 350, hideOnChange: true }),
      kind.cuda ? cudaLang() : ptx(),
      linkMarks(kind.hoverLine),
      EditorState.tabSize.of(kind.cuda ? 4 : 8),
      indentUnit.of(kind.cuda ? "    " : "\t"),
      theme,
      this.dark.of(EditorView.darkTheme.of(darkTheme)),
      this.readOnly.of([]),
      keymap.of([
        { key: "Mod-Enter", run: () => (hooks.compile(), true), preventDefault: true },
        ...closeBracketsKeymap,
        ...defaultKeymap,
        ...searchKeymap,
        ...historyKeymap,
        ...completionKeymap,
        ...lintKeymap,
        indentWithTab,
      ]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged && !this.suppressChange) hooks.changed();
        if (u.geometryChanged) this.layoutChanged();
      }),
      EditorView.contentAttributes.of({ "aria-label": kind.cuda ? "CUDA source" : "PTX source", spellcheck: "false", autocorrect: "off", autocapitalize: "off" }),
    ];
    this.view = new EditorView({ state: EditorState.create({ doc, extensions: exts }), parent });
    // The line in focus stays in view when the editor's size or type
    // changes (another screen, presenter mode, the lesson strip opening):
    // a scroll by the reader decides whether it is still in focus.
    this.view.scrollDOM.addEventListener("scroll", () => {
      if (this.geometry() !== this.focusGeometry) this.layoutChanged();
      else this.focusInView = this.focusLine > 0 && this.lineInView(this.focusLine);
    }, { passive: true });
    new ResizeObserver(() => this.layoutChanged()).observe(this.view.scrollDOM);
  }

  /** The line the editor was last brought to (goto, reveal); 0: none. */
  private focusLine = 0;
  /** Whether it was in view at the last scroll. */
  private focusInView = false;
  private focusGeometry = "";
  private followFrame = 0;

  private geometry(): string {
    const s = this.view.scrollDOM;
    return `${s.clientWidth}x${s.clientHeight}/${this.view.defaultLineHeight}`;
  }

  /** Whether line (1-based) is wholly inside the editor's scroll view. */
  private lineInView(line: number): boolean {
    const doc = this.view.state.doc;
    if (line < 1 || line > doc.lines) return false;
    const block = this.view.lineBlockAt(doc.line(line).from);
    const s = this.view.scrollDOM;
    const top = block.top + this.view.documentTop - s.getBoundingClientRect().top;
    return s.clientHeight > 0 && top >= -1 && top + block.height <= s.clientHeight + 1;
  }

  /** After a layout change: the line in focus, if it was in view, is
   * brought back into view. */
  private layoutChanged(): void {
    if (this.followFrame) return;
    this.followFrame = requestAnimationFrame(() => {
      this.followFrame = 0;
      const g = this.geometry();
      if (g === this.focusGeometry) return;
      this.focusGeometry = g;
      if (this.focusLine > 0 && this.focusInView && !this.lineInView(this.focusLine)) this.center(this.focusLine);
    });
  }

  /** Scrolls line into the middle of the view and makes it the line in focus. */
  private center(line: number): void {
    this.focusLine = line;
    this.focusInView = true;
    this.view.dispatch({ effects: EditorView.scrollIntoView(this.view.state.doc.line(line).from, { y: "center" }) });
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /** Replaces the document (an example or an import): not a user edit. */
  setText(s: string): void {
    this.suppressChange = true;
    try {
      this.view.dispatch({
        changes: { from: 0, to: this.view.state.doc.length, insert: s },
        selection: { anchor: 0 },
        effects: [setBreakpointsEffect.of([]), EditorView.scrollIntoView(0)],
      });
      this.focusLine = 0;
      this.focusInView = false;
    } finally {
      this.suppressChange = false;
    }
  }

  /** A read-only editor (the embed player): the text can be read, selected and copied, not changed. */
  setReadOnly(on: boolean): void {
    this.view.dispatch({ effects: this.readOnly.reconfigure(on ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : []) });
  }

  setDark(dark: boolean): void {
    this.view.dispatch({ effects: this.dark.reconfigure(EditorView.darkTheme.of(dark)) });
  }

  setDiagnostics(items: Message[]): void {
    const doc = this.view.state.doc;
    const ds: Diagnostic[] = [];
    for (const m of items) {
      const { from, to } = messageRange(doc, m);
      ds.push({
        from, to, severity: m.severity === "note" ? "info" : m.severity, message: diagText(m), source: "ptxplay",
        renderMessage: () => h("div.lint-msg", h("span", m.message), " ", diagIdTag(m.id),
          diagNotesList(m.notes, (line, col) => this.goto(line, col))),
      });
    }
    this.view.dispatch(setDiagnostics(this.view.state, ds));
  }

  setBreakpoints(lines: number[]): void {
    this.view.dispatch({ effects: setBreakpointsEffect.of(lines) });
  }

  breakpointLines(): number[] {
    const out: number[] = [];
    const doc = this.view.state.doc;
    this.view.state.field(breakpointField).between(0, doc.length, (from) => {
      out.push(doc.lineAt(from).number);
    });
    return out;
  }

  /** The CUDA ↔ PTX link: each line's colour, and the lines a hover lights up. */
  setLinkColours(m: Map<number, number>): void {
    this.view.dispatch({ effects: setLinkColoursEffect.of(m) });
  }

  setLinkHot(lines: Set<number>): void {
    this.view.dispatch({ effects: setLinkHotEffect.of(lines) });
  }

  setCodeLines(lines: Set<number>): void {
    this.view.dispatch({ effects: setCodeLinesEffect.of(lines) });
  }

  /** Shades lines by the lanes that executed them (an empty map clears it). */
  setLaneShading(m: LaneShading): void {
    this.view.dispatch({ effects: setShadingEffect.of(m) });
  }

  /** Shows the per-line memory findings as gutter badges (an empty map clears them). */
  setMemBadges(b: MemBadges): void {
    this.view.dispatch({ effects: setMemBadgesEffect.of(b) });
  }

  setWarpMarks(m: WarpMarks): void {
    this.view.dispatch({ effects: setWarpMarksEffect.of(m) });
  }

  /** Moves the cursor to a line (and column) and scrolls it into the middle. */
  goto(line: number, col = 1, focus = true): void {
    const doc = this.view.state.doc;
    const l = doc.line(Math.max(1, Math.min(line, doc.lines)));
    const pos = Math.min(l.to, l.from + Math.max(0, col - 1));
    this.view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: "center" }) });
    this.focusLine = l.number;
    this.focusInView = true;
    if (focus) this.view.focus();
  }

  /** Opens line and marks it as the one a lesson hint points at. */
  showHintLine(line: number): void {
    this.goto(line, 1, false);
    this.view.dispatch({ effects: setHintLineEffect.of(line) });
  }

  /** Scrolls a line into view only if it is not visible. */
  reveal(line: number): void {
    const doc = this.view.state.doc;
    if (line < 1 || line > doc.lines) return;
    const pos = doc.line(line).from;
    const vp = this.view.viewport;
    const block = this.view.lineBlockAt(pos);
    const top = this.view.scrollDOM.scrollTop;
    const height = this.view.scrollDOM.clientHeight;
    const visible = pos >= vp.from && pos <= vp.to && block.top >= top && block.bottom <= top + height;
    if (!visible) this.center(line);
    else {
      this.focusLine = line;
      this.focusInView = true;
    }
  }
}

/** The document range of a diagnostic (1-based line/col; end exclusive). */
export function messageRange(doc: Text, m: Message): { from: number; to: number } {
  const lineNo = Math.max(1, Math.min(m.line || 1, doc.lines));
  const line = doc.line(lineNo);
  const from = Math.min(line.to, line.from + Math.max(0, (m.col || 1) - 1));
  let to = from;
  if (m.endLine && m.endCol) {
    const el = doc.line(Math.max(lineNo, Math.min(m.endLine, doc.lines)));
    to = Math.min(el.to, el.from + Math.max(0, m.endCol - 1));
  }
  if (to <= from) {
    // Underline the word at the position, or the rest of the line.
    const rest = line.text.slice(from - line.from);
    const w = /^[\w.%$@!:]+/.exec(rest);
    to = from + (w ? w[0].length : rest.trimEnd().length);
    if (to <= from && from > line.from) return { from: from - 1, to: from };
  }
  return { from, to };
}
