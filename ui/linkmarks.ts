// The CUDA ↔ PTX line link in both editors: every CUDA line with
// instructions gets a colour, and its PTX lines the same one (a band on the
// line's left edge); hovering a line lights it up with the lines of the
// other editor it maps to.

import { RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import type { Extension } from "@codemirror/state";
import { Decoration, EditorView } from "@codemirror/view";
import type { DecorationSet } from "@codemirror/view";

/** The number of colours lines cycle through (styles.css: .cm-link-0 …). */
export const linkColours = 8;

export interface LinkMarks {
  /** Colour index by line (1-based). */
  colours: Map<number, number>;
  /** The lines lit up by a hover (in this editor or the other). */
  hot: Set<number>;
}

const empty: LinkMarks = { colours: new Map(), hot: new Set() };
export const setLinkColoursEffect = StateEffect.define<Map<number, number>>();
export const setLinkHotEffect = StateEffect.define<Set<number>>();

const linkField = StateField.define<LinkMarks>({
  create: () => empty,
  update(v, tr) {
    for (const e of tr.effects) {
      if (e.is(setLinkColoursEffect)) v = { colours: e.value, hot: v.hot };
      if (e.is(setLinkHotEffect)) v = { colours: v.colours, hot: e.value };
    }
    return v;
  },
});

// Recomputed on every document change too: the colours are kept by line
// number, and decorations computed for another document are out of range.
const linkDecos = EditorView.decorations.compute(["doc", linkField], (state): DecorationSet => {
  const m = state.field(linkField);
  const b = new RangeSetBuilder<Decoration>();
  if (!m.colours.size && !m.hot.size) return b.finish();
  for (let n = 1; n <= state.doc.lines; n++) {
    const c = m.colours.get(n);
    const hot = m.hot.has(n);
    if (c === undefined && !hot) continue;
    const cls = `cm-link${c !== undefined ? ` cm-link-${c % linkColours}` : ""}${hot ? " cm-link-hot" : ""}`;
    b.add(state.doc.line(n).from, state.doc.line(n).from, Decoration.line({ class: cls, attributes: c !== undefined ? { "data-link": String(c) } : {} }));
  }
  return b.finish();
});

/** The link's extension; hover(line) is told the line under the pointer (0: none). */
export function linkMarks(hover?: (line: number) => void): Extension {
  let last = -1;
  const tell = (n: number) => {
    if (n === last) return;
    last = n;
    hover?.(n);
  };
  return [linkField, linkDecos, EditorView.domEventHandlers({
    mousemove: (ev, view) => {
      const pos = view.posAtCoords({ x: ev.clientX, y: ev.clientY });
      tell(pos === null ? 0 : view.state.doc.lineAt(pos).number);
      return false;
    },
    mouseleave: () => {
      tell(0);
      return false;
    },
  })];
}

/** The CUDA line → PTX lines map of a compile's ptxToCuda (PTX line i+1 → CUDA line). */
export function cudaToPtx(ptxToCuda: readonly number[]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  ptxToCuda.forEach((c, i) => {
    if (c <= 0) return;
    let l = m.get(c);
    if (!l) m.set(c, (l = []));
    l.push(i + 1);
  });
  return m;
}

/** The colours of both sides: CUDA lines in source order, each PTX line its CUDA line's. */
export function linkColourMaps(ptxToCuda: readonly number[]): { cuda: Map<number, number>; ptx: Map<number, number> } {
  const lines = [...cudaToPtx(ptxToCuda).keys()].sort((a, b) => a - b);
  const cuda = new Map(lines.map((l, i) => [l, i % linkColours]));
  const ptx = new Map<number, number>();
  ptxToCuda.forEach((c, i) => {
    const k = cuda.get(c);
    if (k !== undefined) ptx.set(i + 1, k);
  });
  return { cuda, ptx };
}
