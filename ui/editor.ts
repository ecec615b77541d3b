// The PTX editor: CodeMirror 6 with the PTX mode, server diagnostics, a
// breakpoint gutter, per-warp current-line markers and hover docs.

import { EditorState, StateEffect, StateField, RangeSet, RangeSetBuilder, Compartment } from "@codemirror/state";
import type { Extension, Text } from "@codemirror/state";
import {
  EditorView, GutterMarker, Decoration, gutter, lineNumbers, keymap, hoverTooltip, drawSelection,
  highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, rectangularSelection, dropCursor,
} from "@codemirror/view";
import { showTooltip, ViewPlugin } from "@codemirror/view";
import type { DecorationSet, Tooltip } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit, syntaxTree } from "@codemirror/language";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { lintGutter, setDiagnostics, lintKeymap } from "@codemirror/lint";
import type { Diagnostic } from "@codemirror/lint";
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import type { CompletionContext, CompletionResult, Completion } from "@codemirror/autocomplete";
import { ptx, isSpecialRegister } from "./ptxlang";
import { isaDocs, isaDocsNow, opcodeOf, specialOf } from "./isa";
import type { Message } from "./proto";
import { h } from "./dom";
import { diagIdTag, diagNotesList, diagText } from "./diagview";
import type { MemBadge, MemBadges } from "./membadges";

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

/** Where the warps are: for each line, the warps whose next instruction is on it. */
export interface WarpMarks {
  lines: Map<number, { warps: string[]; selected: boolean; next: boolean }>;
  selectedLine: number | null;
  faultLine: number | null;
}

// ---- breakpoints ----

class BreakpointMarker extends GutterMarker {
  constructor(readonly on: boolean) {
    super();
  }
  eq(o: GutterMarker): boolean {
    return o instanceof BreakpointMarker && o.on === this.on;
  }
  toDOM(): Node {
    return h("span.bp-dot", { "aria-hidden": "true" });
  }
}
const bpOn = new BreakpointMarker(true);

const setBreakpointsEffect = StateEffect.define<number[]>();
const toggleBreakpointEffect = StateEffect.define<{ pos: number; on: boolean }>();

const breakpointField = StateField.define<RangeSet<GutterMarker>>({
  create: () => RangeSet.empty,
  update(set, tr) {
    set = set.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setBreakpointsEffect)) {
        const b = new RangeSetBuilder<GutterMarker>();
        const doc = tr.state.doc;
        for (const l of [...new Set(e.value)].sort((a, b) => a - b)) {
          if (l >= 1 && l <= doc.lines) b.add(doc.line(l).from, doc.line(l).from, bpOn);
        }
        set = b.finish();
      } else if (e.is(toggleBreakpointEffect)) {
        const pos = e.value.pos;
        set = set.update({ filter: (from) => from !== pos });
        if (e.value.on) set = set.update({ add: [bpOn.range(pos)] });
      }
    }
    return set;
  },
});

/** Lines that hold instructions: breakpoints make sense there. */
const setCodeLinesEffect = StateEffect.define<Set<number>>();
const codeLinesField = StateField.define<Set<number>>({
  create: () => new Set(),
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setCodeLinesEffect)) v = e.value;
    return v;
  },
});

function hasBreakpoint(state: EditorState, lineStart: number): boolean {
  let found = false;
  state.field(breakpointField).between(lineStart, lineStart, () => {
    found = true;
  });
  return found;
}

// ---- warp markers ----

class WarpMarker extends GutterMarker {
  constructor(readonly text: string, readonly cls: string, readonly title: string) {
    super();
  }
  eq(o: GutterMarker): boolean {
    return o instanceof WarpMarker && o.text === this.text && o.cls === this.cls && o.title === this.title;
  }
  toDOM(): Node {
    return h("span", { class: this.cls, title: this.title }, this.text);
  }
}

const setWarpMarksEffect = StateEffect.define<WarpMarks>();
const emptyMarks: WarpMarks = { lines: new Map(), selectedLine: null, faultLine: null };
const warpMarksField = StateField.define<WarpMarks>({
  create: () => emptyMarks,
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setWarpMarksEffect)) return e.value;
    if (tr.docChanged) return emptyMarks;
    return v;
  },
});

const warpLineDecos = EditorView.decorations.compute([warpMarksField], (state): DecorationSet => {
  const m = state.field(warpMarksField);
  const doc = state.doc;
  const items: { line: number; cls: string }[] = [];
  for (const [line, info] of m.lines) {
    if (line < 1 || line > doc.lines) continue;
    items.push({ line, cls: info.selected ? "cm-warp-line cm-warp-line-sel" : "cm-warp-line" });
  }
  if (m.faultLine !== null && m.faultLine >= 1 && m.faultLine <= doc.lines) items.push({ line: m.faultLine, cls: "cm-fault-line" });
  items.sort((a, b) => a.line - b.line);
  const b = new RangeSetBuilder<Decoration>();
  for (const it of items) {
    const from = doc.line(it.line).from;
    b.add(from, from, Decoration.line({ class: it.cls }));
  }
  return b.finish();
});

// ---- the line a lesson hint points at ----

/** The line a lesson hint opened (0: none); it stays marked until the
 * next hint or an edit, strongly enough to see on a projector. */
const setHintLineEffect = StateEffect.define<number>();
const hintLineField = StateField.define<number>({
  create: () => 0,
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setHintLineEffect)) return e.value;
    return tr.docChanged ? 0 : v;
  },
  provide: (f) => EditorView.decorations.compute([f], (state): DecorationSet => {
    const n = state.field(f);
    if (n < 1 || n > state.doc.lines) return Decoration.none;
    const from = state.doc.line(n).from;
    return Decoration.set([Decoration.line({ class: "cm-hint-line" }).range(from)]);
  }),
});

// ---- divergence shading ----

/** Per line: the average active lanes of its warp-instructions, and how many ran. */
export type LaneShading = Map<number, { lanes: number; warps: number }>;

const setShadingEffect = StateEffect.define<LaneShading>();
const shadingField = StateField.define<LaneShading>({
  create: () => new Map(),
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setShadingEffect)) return e.value;
    if (tr.docChanged) return new Map();
    return v;
  },
});

/** The shading class of a line run with avg active lanes of 32: 4 (all lanes) down to 0 (under a quarter). */
export function shadeLevel(avg: number): number {
  if (avg >= 32) return 4;
  return Math.max(0, Math.min(3, Math.floor(avg / 8)));
}

const shadingDecos = EditorView.decorations.compute([shadingField], (state): DecorationSet => {
  const m = state.field(shadingField);
  const doc = state.doc;
  const b = new RangeSetBuilder<Decoration>();
  for (const line of [...m.keys()].sort((x, y) => x - y)) {
    const e = m.get(line)!;
    if (line < 1 || line > doc.lines || e.warps <= 0) continue;
    const avg = e.lanes / e.warps;
    const title = `${avg.toFixed(1)} of 32 lanes on average (${Math.round((avg / 32) * 100)}%) in ${e.warps.toLocaleString("en-US")} warp-instruction${e.warps === 1 ? "" : "s"}`;
    b.add(doc.line(line).from, doc.line(line).from, Decoration.line({
      class: `cm-div-line cm-div-${shadeLevel(avg)}`,
      attributes: { "data-lanes": avg.toFixed(2), title },
    }));
  }
  return b.finish();
});

// ---- memory badges ----

class MemBadgeMarker extends GutterMarker {
  constructor(readonly b: MemBadge) {
    super();
  }
  eq(o: GutterMarker): boolean {
    return o instanceof MemBadgeMarker && o.b.title === this.b.title &&
      o.b.findings.map((f) => f.text).join() === this.b.findings.map((f) => f.text).join();
  }
  toDOM(): Node {
    return h("span.mem-badges", { title: this.b.title, "data-line": String(this.b.line) },
      this.b.findings.map((f) =>
        h(`span.mem-badge.mem-${f.kind}${f.severity ? ".mem-severe" : ""}`, { "aria-label": f.explain },
          f.kind === "clean" ? h("span.mb-num", f.text) : [h("span.mb-num", f.short), h("span.mb-word", f.text.slice(f.short.length))])));
  }
}

const setMemBadgesEffect = StateEffect.define<MemBadges>();
const memBadgesField = StateField.define<MemBadges>({
  create: () => new Map(),
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setMemBadgesEffect)) return e.value;
    if (tr.docChanged) return new Map();
    return v;
  },
});

/** The explanation of a tapped badge (touch screens have no hover), at its line; null: none. */
const showBadgeTipEffect = StateEffect.define<number | null>();
const badgeTipField = StateField.define<Tooltip | null>({
  create: () => null,
  update(v, tr) {
    for (const e of tr.effects) {
      if (e.is(showBadgeTipEffect)) {
        const line = e.value;
        const b = line === null ? undefined : tr.state.field(memBadgesField).get(line);
        if (line === null || !b || line < 1 || line > tr.state.doc.lines) return null;
        return {
          pos: tr.state.doc.line(line).from, above: false, strictSide: false,
          create: () => ({ dom: h("div.hover.mem-tip", { "data-line": String(line) }, b.title.split("\n\n").map((p) => h("p.mem-tip-p", p))) }),
        };
      }
      if (e.is(setMemBadgesEffect) && v) {
        const line = tr.startState.doc.lineAt(v.pos).number;
        if (!e.value.has(line)) return null;
      }
    }
    if (tr.docChanged) return null;
    return v;
  },
  provide: (f) => showTooltip.from(f),
});

/** Closes a badge's explanation on a press anywhere else, or on Escape. */
const badgeTipCloser = ViewPlugin.define((view) => {
  const close = () => {
    if (view.state.field(badgeTipField, false)) view.dispatch({ effects: showBadgeTipEffect.of(null) });
  };
  const down = (e: Event) => {
    const t = e.target;
    if (t instanceof Element && t.closest(".mem-tip, .cm-mem-gutter")) return;
    close();
  };
  const key = (e: KeyboardEvent) => {
    if (e.key === "Escape") close();
  };
  const doc = view.dom.ownerDocument;
  doc.addEventListener("mousedown", down, true);
  doc.addEventListener("touchstart", down, true);
  doc.addEventListener("keydown", key, true);
  return {
    destroy() {
      doc.removeEventListener("mousedown", down, true);
      doc.removeEventListener("touchstart", down, true);
      doc.removeEventListener("keydown", key, true);
    },
  };
});

function warpMarkerFor(state: EditorState, line: number): GutterMarker | null {
  const m = state.field(warpMarksField);
  if (m.faultLine === line) return new WarpMarker("✕", "warp-mark warp-mark-fault", "fault on this line");
  const info = m.lines.get(line);
  if (!info) return null;
  const n = info.warps.length;
  const title = `${n === 1 ? "warp" : `${n} warps`} here: ${info.warps.join(", ")}` + (info.next ? " (issues next)" : "");
  const text = info.selected ? "▶" : n > 1 ? "◆" : "•";
  return new WarpMarker(text, "warp-mark" + (info.selected ? " warp-mark-sel" : "") + (info.next ? " warp-mark-next" : ""), title);
}

// ---- hover docs ----

function wordAt(doc: Text, pos: number): { from: number; to: number; text: string } | null {
  const line = doc.lineAt(pos);
  const s = line.text;
  let a = pos - line.from;
  let b = a;
  const ok = (c: string) => /[\w.%$:]/.test(c);
  while (a > 0 && ok(s[a - 1])) a--;
  while (b < s.length && ok(s[b])) b++;
  if (a === b) return null;
  let text = s.slice(a, b);
  // A label definition's colon is not part of the word.
  if (text.endsWith(":") && !text.endsWith("::")) {
    text = text.slice(0, -1);
    b--;
  }
  return { from: line.from + a, to: line.from + b, text };
}

function tokenAt(state: EditorState, pos: number): string {
  const node = syntaxTree(state).resolveInner(pos, 1);
  return node.type.name;
}

function hoverSource(hooks: EditorHooks) {
  return async (view: EditorView, pos: number, side: -1 | 1): Promise<Tooltip | null> => {
    const w = wordAt(view.state.doc, pos);
    if (!w) return null;
    if (side < 0 && pos === w.to) return null;
    const docs = isaDocsNow() ?? (await isaDocs());
    const tok = tokenAt(view.state, Math.min(pos, w.to - 1) + (pos === w.to ? 0 : 0));
    let body: HTMLElement | null = null;
    if (w.text.startsWith("%")) {
      const name = w.text.replace(/[.:]+$/, "");
      const sp = isSpecialRegister(name) ? specialOf(name, docs) : undefined;
      const values = hooks.registerHover(name);
      if (!sp && !values) return null;
      body = h("div.hover",
        sp && h("div.hover-head", h("code.hover-name", sp.name), sp.bits ? h("span.hover-meta", ` .u${sp.bits}`) : null),
        sp?.doc && h("div.hover-doc", sp.doc),
        !sp && h("div.hover-head", h("code.hover-name", name)),
        values);
    } else if (/opcode|modifier|type|space/.test(tok) || tok === "") {
      const op = opcodeOf(w.text.replace(/^@!?%?\w+\s*/, ""), docs);
      if (!op || !/opcode|modifier|type|space/.test(tok)) return null;
      body = h("div.hover",
        h("div.hover-head", h("code.hover-name", op.name),
          op.family && h("span.hover-meta", ` ${op.family}`),
          op.status && op.status !== "supported" && h("span.hover-status", op.status)),
        op.syntax && h("pre.hover-syntax", op.syntax),
        op.doc && h("div.hover-doc", op.doc),
        hooks.instructionHover?.(view.state.doc.lineAt(pos).number) ?? null);
    }
    if (!body) return null;
    const el = body;
    return { pos: w.from, end: w.to, above: true, create: () => ({ dom: el }) };
  };
}

// ---- completion ----

const directives = [
  ".version", ".target", ".address_size", ".visible", ".extern", ".weak", ".entry", ".func", ".param", ".reg",
  ".local", ".shared", ".global", ".const", ".align", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
  ".pragma", ".file", ".loc", ".section",
];

function completeSource(context: CompletionContext): CompletionResult | null {
  const word = context.matchBefore(/[%.]?[\w$]+(\.[\w$]*)*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const docs = isaDocsNow();
  if (!docs) {
    void isaDocs();
    return null;
  }
  const text = word.text;
  const options: Completion[] = [];
  if (text.startsWith("%")) {
    for (const s of docs.specials.values()) options.push({ label: s.name, type: "variable", info: s.doc });
    // Registers declared in the document.
    const seen = new Set<string>();
    const re = /\.reg\s+\.\w+\s+(%[\w$]+)(?:<(\d+)>)?/g;
    const src = context.state.doc.toString();
    for (let m = re.exec(src); m; m = re.exec(src)) {
      const n = m[2] ? Math.min(Number(m[2]), 64) : 0;
      if (n) for (let i = 0; i < n; i++) seen.add(m[1] + i);
      else seen.add(m[1]);
    }
    for (const r of seen) options.push({ label: r, type: "variable", boost: 1 });
  } else if (text.startsWith(".") && !text.slice(1).includes(".")) {
    const line = context.state.doc.lineAt(word.from);
    const before = line.text.slice(0, word.from - line.from);
    if (!/\S$/.test(before)) for (const d of directives) options.push({ label: d, type: "keyword" });
    else return null;
  } else if (!text.includes(".")) {
    const line = context.state.doc.lineAt(word.from);
    const before = line.text.slice(0, word.from - line.from);
    if (!/^\s*(@!?%?[\w$]+\s+)?$/.test(before) && !/^\s*[\w$]+:\s*$/.test(before)) return null;
    for (const o of docs.ops.values()) {
      options.push({ label: o.name, type: "keyword", detail: o.family, info: o.doc });
    }
  } else return null;
  return { from: word.from, options, validFor: /^[%.]?[\w$]*(\.[\w$]*)*$/ };
}

// ---- theme ----

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "var(--code-size)", backgroundColor: "var(--bg-editor)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "var(--code-lh)" },
  ".cm-content": { caretColor: "var(--accent)", padding: "6px 0" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--accent)", borderLeftWidth: "2px" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  ".cm-gutters": { backgroundColor: "var(--bg-editor)", color: "var(--fg-faint)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)", color: "var(--fg-muted)" },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 6px 0 4px", minWidth: "3ch", cursor: "pointer" },
  ".cm-tooltip": { backgroundColor: "var(--bg-raised)", color: "var(--fg)", border: "1px solid var(--border-strong)", borderRadius: "6px", boxShadow: "var(--shadow)" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent-bg)", color: "var(--fg)" },
  ".cm-tooltip-lint": { padding: "0" },
  ".cm-diagnostic": { padding: "4px 8px", fontFamily: "var(--sans)" },
  ".cm-panels": { backgroundColor: "var(--bg-panel)", color: "var(--fg)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-searchMatch": { backgroundColor: "var(--search-match)", outline: "1px solid var(--search-outline)" },
  ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: "var(--search-match-sel)" },
  ".cm-selectionMatch": { backgroundColor: "var(--selection-match)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--bracket)", outline: "none" },
  // Lint markers as glyphs, so they do not look like breakpoints.
  ".cm-gutter-lint": { width: "1.2em" },
  ".cm-gutter-lint .cm-gutterElement": { padding: "0 1px", display: "flex", alignItems: "center", justifyContent: "center" },
  ".cm-lint-marker": { width: "auto", height: "auto", fontSize: "calc(10px * var(--k))", fontWeight: "700", lineHeight: "1" },
  ".cm-lint-marker-error": { content: "none" },
  ".cm-lint-marker-warning": { content: "none" },
  ".cm-lint-marker-info": { content: "none" },
  ".cm-lint-marker-error::before": { content: '"✖"', color: "var(--err)" },
  ".cm-lint-marker-warning::before": { content: '"▲"', color: "var(--warn)" },
  ".cm-lint-marker-info::before": { content: '"●"', color: "var(--accent)" },
  ".cm-textfield, .cm-button": { backgroundImage: "none", backgroundColor: "var(--bg-input)", color: "var(--fg)", border: "1px solid var(--border-strong)", borderRadius: "4px" },
});

export class Editor {
  readonly view: EditorView;
  private dark = new Compartment();
  private readOnly = new Compartment();
  private suppressChange = false;

  constructor(parent: HTMLElement, doc: string, hooks: EditorHooks, darkTheme: boolean) {
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
      autocompletion({ override: [completeSource], activateOnTyping: true, icons: false }),
      rectangularSelection(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      hoverTooltip(hoverSource(hooks), { hoverTime: 350, hideOnChange: true }),
      ptx(),
      EditorState.tabSize.of(8),
      indentUnit.of("\t"),
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
      EditorView.contentAttributes.of({ "aria-label": "PTX source", spellcheck: "false", autocorrect: "off", autocapitalize: "off" }),
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

class BreakpointHint extends GutterMarker {
  toDOM(): Node {
    return h("span.bp-hint", { "aria-hidden": "true" });
  }
}
const bpHint = new BreakpointHint();

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
