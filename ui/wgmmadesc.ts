// The descriptor view of a wgmma.mma_async (the inspect reply's `wgmma`):
// for each operand read from shared memory (A when it is not in
// registers, then B), the descriptor's register and decoded fields, and
// the operand's tile drawn as its 8-row × 16-byte core matrices: each
// cell is one element with its value now, coloured by the 16-byte chunk
// of a 128-byte shared-memory row it lands in (the swizzle permutes the
// chunks), each core-matrix row labelled with the shared byte it starts
// at. When the descriptor cannot be drawn (outside shared memory, not a
// canonical layout) the engine's reason is shown instead.

import { h } from "./dom";
import type { WgmmaDescView, WgmmaView } from "./proto";
import { elemValue } from "./fragdata";
import { svg, SVG } from "./fragsvg";
import { lineName } from "./srcline";

const CW = 40; // element cell
const CH = 18;
const ADDR_W = 44; // a core-matrix row's shared byte
const GAP = 8; // between core matrices
const TOP = 16;

/** The element of operand o at (r, kk) as the kernel names it: A[m][k], or B[k][n]. */
export function elemName(o: WgmmaDescView, r: number, kk: number): string {
  return o.name === "b" ? `B[${kk}][${r}]` : `${o.name.toUpperCase()}[${r}][${kk}]`;
}

/** The colour of a 16-byte chunk of a 128-byte shared-memory row (0-7). */
export function chunkColour(c: number): string {
  return `hsl(${[205, 30, 125, 280, 355, 175, 55, 245][c & 7]}, 48%, ${c % 2 ? 34 : 40}%)`;
}

const hex = (n: number) => `0x${n.toString(16)}`;
/** A descriptor's 64 bits as 16 hex digits. */
const bits64 = (v: string) => `0x${v.padStart(16, "0")}`;

/** Where each element of a descriptor operand is drawn: its core matrix's
 * place (strided, contiguous), its row in the core matrix (the 16-byte
 * line, by address before the swizzle) and its column in that row. */
interface Placed {
  i: number;
  s: number;
  c: number;
  row: number;
  col: number;
}

function place(o: WgmmaDescView): { cells: Placed[]; perRow: number; blocksDown: number; blocksAcross: number } {
  const addr = o.logical ?? [];
  const core = o.core ?? [];
  const cols = Math.max(1, o.coreCols ?? 1);
  const byCore = new Map<number, number[]>();
  addr.forEach((_, i) => {
    const l = byCore.get(core[i]) ?? [];
    l.push(i);
    byCore.set(core[i], l);
  });
  const cells: Placed[] = [];
  let perRow = 1;
  let blocksDown = 0;
  for (const [c, elems] of byCore) {
    const lines = [...new Set(elems.map((i) => Math.floor(addr[i] / 16)))].sort((a, b) => a - b);
    const seen = new Map<number, number>();
    for (const i of [...elems].sort((a, b) => addr[a] - addr[b] || a - b)) {
      const line = Math.floor(addr[i] / 16);
      const col = seen.get(line) ?? 0;
      seen.set(line, col + 1);
      perRow = Math.max(perRow, col + 1);
      cells.push({ i, s: Math.floor(c / cols), c: c % cols, row: lines.indexOf(line), col });
    }
    blocksDown = Math.max(blocksDown, Math.floor(c / cols) + 1);
  }
  return { cells, perRow, blocksDown, blocksAcross: cols };
}

/** The operand's tile as an SVG drawing (cells carry data-r, data-k, data-addr). */
export function tileSVG(o: WgmmaDescView): SVGSVGElement {
  const { cells, perRow, blocksDown, blocksAcross } = place(o);
  const bw = ADDR_W + perRow * CW;
  const bh = 8 * CH;
  const w = blocksAcross * (bw + GAP);
  const hgt = TOP + blocksDown * (bh + GAP);
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg wg-tile", role: "img",
    "aria-label": `${o.name.toUpperCase()} in shared memory: ${blocksDown}×${blocksAcross} core matrices of 8 rows × 16 bytes` });
  for (let j = 0; j < blocksAcross; j++) {
    root.append(svg("text", { x: j * (bw + GAP) + ADDR_W, y: 11, class: "frag-axis" }, `core col ${j} · shared byte ↓`));
  }
  const rowDone = new Set<string>();
  for (const p of cells) {
    const x0 = p.c * (bw + GAP);
    const y = TOP + p.s * (bh + GAP) + p.row * CH;
    const i = p.i;
    const r = Math.floor(i / o.k);
    const kk = i % o.k;
    const a = o.addr?.[i] ?? 0;
    const key = `${p.s}:${p.c}:${p.row}`;
    if (!rowDone.has(key)) {
      rowDone.add(key);
      const lineStart = a - (a % 16);
      root.append(svg("text", { x: x0 + ADDR_W - 4, y: y + CH / 2 + 4, "text-anchor": "end", class: "frag-addr wg-line", "data-addr": lineStart }, hex(lineStart)));
    }
    const bits = o.bits?.[i];
    const v = bits === undefined ? "" : elemValue(bits.toString(16), o.type, 0);
    const x = x0 + ADDR_W + p.col * CW;
    const logical = o.logical?.[i] ?? a;
    const title = `${elemName(o, r, kk)}${v !== "" ? ` = ${v}` : " (past the end of shared memory)"}: shared byte ${hex(a)}` +
      (logical !== a ? ` (${hex(logical)} before the ${o.desc.swizzle} swizzle)` : "") +
      ` · core matrix ${o.core?.[i] ?? 0}, row ${p.row} · 16-byte chunk ${(a >> 4) & 7} of its 128-byte row`;
    root.append(svg("g", { class: "wg-cell", "data-r": r, "data-k": kk, "data-addr": a, "data-value": v },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CW - 1, height: CH - 1, rx: 1.5, fill: chunkColour(a >> 4) }),
      svg("text", { x: x + CW / 2, y: y + CH / 2 + 4, "text-anchor": "middle", class: "frag-val", ...(v.length * 6.2 > CW - 4 ? { textLength: CW - 4, lengthAdjust: "spacingAndGlyphs" } : {}) }, v || "·"),
      svg("title", {}, title)));
  }
  return root;
}

/** The decoded descriptor as words: "start 0x0 · LBO 128 · SBO 256 · base offset 0 · swizzle none". */
export function fieldsText(o: WgmmaDescView): string {
  const d = o.desc;
  return `start ${hex(d.start)} · LBO ${d.lbo} · SBO ${d.sbo} · base offset ${d.baseOffset} · swizzle ${d.swizzle}` + (d.reserved ? ` · reserved bits ${d.reserved}` : "");
}

/** The heading of an operand: what it is and where it comes from. */
export function operandTitle(o: WgmmaDescView): string {
  const what = o.name === "b" ? `B (${o.k}×${o.rows}; drawn by n, element (n, k) is B[k][n])` : `A (${o.rows}×${o.k})`;
  return `${what} .${o.type} ${o.major} from shared memory, descriptor ${o.reg} = ${bits64(o.value)}`;
}

/** One operand: the descriptor's fields beside its tile, or why it cannot be drawn. */
function operandFigure(o: WgmmaDescView): HTMLElement {
  const d = o.desc;
  const row = (k: string, v: string, tip: string) => h("tr", h("th", { title: tip }, k), h("td.mono", v));
  const fields = h("table.wg-fields", { "aria-label": `${o.name.toUpperCase()}'s descriptor` },
    h("tbody",
      row("register", `${o.reg} = ${bits64(o.value)}`, "The descriptor's register (lane 0's value)"),
      row("start address", `${hex(d.start)} (${d.start})`, "Bits 0-13, ×16: the tile's first byte in shared memory"),
      row("leading byte offset", String(d.lbo), "Bits 16-29, ×16: between core matrices along the leading dimension"),
      row("stride byte offset", String(d.sbo), "Bits 32-45, ×16: between 8-row groups of core matrices"),
      row("base offset", String(d.baseOffset), "Bits 49-51: the swizzle pattern's phase when the tile does not start on its repeat boundary"),
      row("swizzle", d.swizzle, "Bits 62-63"),
      row("layout", `${o.major} · ${o.type} (${o.elemBits}-bit)`, "How the operand's elements are laid out"),
      d.reserved ? row("reserved bits set", d.reserved, "Bits the ISA reserves (should be zero)") : null));
  const warn = o.differs !== undefined ? h("p.wg-error", { role: "alert" }, `Lane ${o.differs} holds another value in ${o.reg}: the warps of a warpgroup must agree on a descriptor.`) : null;
  const err = o.error ? h("p.wg-error", { role: "alert", "data-error": o.name }, `Cannot draw ${o.name.toUpperCase()}: ${o.error}`) : null;
  const notes = o.notes?.length ? h("ul.wg-notes", o.notes.map((n) => h("li", n))) : null;
  const tile = o.error || !o.addr ? null : h("div.wg-tilebox", tileSVG(o));
  return h("figure.frag-op.wg-desc", { "data-operand": o.name },
    h("figcaption", h("b", o.name.toUpperCase()), ` ${operandTitle(o).slice(1)}`),
    h("div.wg-desc-body", fields, h("div.wg-desc-main", warn, err, notes, tile)));
}

/** The whole descriptor view (one figure per shared-memory operand). */
export function descView(v: WgmmaView, who: string): HTMLElement {
  return h("section.wg-view", { "data-pc": v.pc },
    h("p.frag-live", h("b", "Shared-memory operands"), ` of ${lineName(v.line, v.cudaLine)} as ${who}'s descriptors say now (the CTA has ${v.sharedBytes.toLocaleString("en-US")} bytes of shared memory) · `,
      h("span.muted", "cell: the element's value; colour: its 16-byte chunk of a 128-byte row (the swizzle permutes them); left: each core-matrix row's shared byte")),
    v.operands.map(operandFigure));
}

/** The view for an export: per operand its title, fields and tile (or error), stacked from y. */
export function descPicture(v: WgmmaView, out: SVGSVGElement, y: number): { y: number; width: number } {
  let width = 0;
  for (const o of v.operands) {
    out.append(svg("text", { x: 0, y: y + 14, class: "cap" }, operandTitle(o)));
    out.append(svg("text", { x: 0, y: y + 30, class: "sub" }, fieldsText(o)));
    y += 38;
    width = Math.max(width, Math.ceil(operandTitle(o).length * 7.5));
    const msgs = [...(o.error ? [`Cannot draw ${o.name.toUpperCase()}: ${o.error}`] : []), ...(o.notes ?? [])];
    for (const m of msgs) {
      out.append(svg("text", { x: 0, y: y + 12, class: "sub" }, m));
      y += 16;
      width = Math.max(width, Math.ceil(m.length * 6.2));
    }
    if (!o.error && o.addr) {
      const s = tileSVG(o);
      const g = svg("g", { transform: `translate(0 ${y})` });
      for (const c of [...s.childNodes]) g.append(c);
      out.append(g);
      y += Number(s.getAttribute("height")) + 10;
      width = Math.max(width, Number(s.getAttribute("width")));
    }
  }
  return { y, width };
}
