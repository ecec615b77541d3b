// The editor's marks: the breakpoint gutter, the per-warp current-line
// markers, the lesson hint line, divergence shading and the memory badges
// (with a badge's tapped explanation), as CodeMirror state fields, effects
// and gutter markers that the Editor (editor.ts) installs and sets.

import { StateEffect, StateField, RangeSet, RangeSetBuilder } from "@codemirror/state";
import type { EditorState } from "@codemirror/state";
import { EditorView, GutterMarker, Decoration, showTooltip, ViewPlugin } from "@codemirror/view";
import type { DecorationSet, Tooltip } from "@codemirror/view";
import { h } from "./dom";
import type { MemBadge, MemBadges } from "./membadges";

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
export const bpOn = new BreakpointMarker(true);

export const setBreakpointsEffect = StateEffect.define<number[]>();
export const toggleBreakpointEffect = StateEffect.define<{ pos: number; on: boolean }>();

export const breakpointField = StateField.define<RangeSet<GutterMarker>>({
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
export const setCodeLinesEffect = StateEffect.define<Set<number>>();
export const codeLinesField = StateField.define<Set<number>>({
  create: () => new Set(),
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setCodeLinesEffect)) v = e.value;
    return v;
  },
});

export function hasBreakpoint(state: EditorState, lineStart: number): boolean {
  let found = false;
  state.field(breakpointField).between(lineStart, lineStart, () => {
    found = true;
  });
  return found;
}

// ---- warp markers ----

export class WarpMarker extends GutterMarker {
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

export const setWarpMarksEffect = StateEffect.define<WarpMarks>();
const emptyMarks: WarpMarks = { lines: new Map(), selectedLine: null, faultLine: null };
export const warpMarksField = StateField.define<WarpMarks>({
  create: () => emptyMarks,
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setWarpMarksEffect)) return e.value;
    if (tr.docChanged) return emptyMarks;
    return v;
  },
});

export const warpLineDecos = EditorView.decorations.compute([warpMarksField], (state): DecorationSet => {
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
export const setHintLineEffect = StateEffect.define<number>();
export const hintLineField = StateField.define<number>({
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

export const setShadingEffect = StateEffect.define<LaneShading>();
export const shadingField = StateField.define<LaneShading>({
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

export const shadingDecos = EditorView.decorations.compute([shadingField], (state): DecorationSet => {
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

export class MemBadgeMarker extends GutterMarker {
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

export const setMemBadgesEffect = StateEffect.define<MemBadges>();
export const memBadgesField = StateField.define<MemBadges>({
  create: () => new Map(),
  update(v, tr) {
    for (const e of tr.effects) if (e.is(setMemBadgesEffect)) return e.value;
    if (tr.docChanged) return new Map();
    return v;
  },
});

/** The explanation of a tapped badge (touch screens have no hover), at its line; null: none. */
export const showBadgeTipEffect = StateEffect.define<number | null>();
export const badgeTipField = StateField.define<Tooltip | null>({
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
export const badgeTipCloser = ViewPlugin.define((view) => {
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

export function warpMarkerFor(state: EditorState, line: number): GutterMarker | null {
  const m = state.field(warpMarksField);
  if (m.faultLine === line) return new WarpMarker("✕", "warp-mark warp-mark-fault", "fault on this line");
  const info = m.lines.get(line);
  if (!info) return null;
  const n = info.warps.length;
  const title = `${n === 1 ? "warp" : `${n} warps`} here: ${info.warps.join(", ")}` + (info.next ? " (issues next)" : "");
  const text = info.selected ? "▶" : n > 1 ? "◆" : "•";
  return new WarpMarker(text, "warp-mark" + (info.selected ? " warp-mark-sel" : "") + (info.next ? " warp-mark-next" : ""), title);
}

class BreakpointHint extends GutterMarker {
  toDOM(): Node {
    return h("span.bp-hint", { "aria-hidden": "true" });
  }
}
export const bpHint = new BreakpointHint();
