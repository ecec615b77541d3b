// The fragment explorer's drawings: each operand as an SVG grid of
// cells coloured by lane (one cell per register word for .b1), with the
// row addresses of ldmatrix/stmatrix beside it; a stacked operand is drawn
// as one grid per group.

import type { FragOperand, FragInstr } from "./api_gen";
import { bitWords, elemValue, laneColour, laneRanges, regLabel, typeBits, warpColour } from "./fragdata";
import type { LiveValues, OperandOpts } from "./fragdata";
import { h } from "./dom";

export const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children. */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...kids: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of kids) el.append(c);
  return el;
}

const CELL_W = 52;
const CELL_H = 30;
const HEAD = 18;

const NOTE_W = 132;

/** Draws one operand as an SVG grid (with the warp's values when live). */
export function operandSVG(op: FragOperand, live?: LiveValues, opts: OperandOpts = {}): SVGSVGElement {
  if (typeBits(op.type) === 1) return wordSVG(op, live);
  const base = opts.rowBase ?? 0;
  const c0 = opts.colBase ?? 0;
  const ncols = opts.colCount ?? op.cols;
  const notes = opts.rows ?? [];
  // The row notes come first (left), so a narrow screen sees them with the first columns.
  const left = notes.length ? NOTE_W : 0;
  const w = left + HEAD + ncols * CELL_W + 1;
  const hgt = HEAD + op.rows * CELL_H + 1;
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg", role: "img", "aria-label": `${op.name.toUpperCase()}: ${op.rows}×${op.cols} ${op.type}` });
  for (let c = 0; c < ncols; c++) {
    root.append(svg("text", { x: left + HEAD + c * CELL_W + CELL_W / 2, y: 12, "text-anchor": "middle", class: "frag-axis" }, String(c0 + c)));
  }
  for (let r = 0; r < op.rows; r++) {
    root.append(svg("text", { x: left + HEAD - 4, y: HEAD + r * CELL_H + CELL_H / 2 + 4, "text-anchor": "end", class: "frag-axis" }, String(r)));
  }
  const slots = live?.slots[op.name];
  // A warpgroup's operand (wgmma): threads 0-127, coloured by warp; the
  // live registers are one warp's (laneBase is its thread 0).
  const group = op.elems.some((e) => e[0] >= 32);
  const colour = group ? warpColour : laneColour;
  for (const [lane, reg, part, row, col] of op.elems) {
    if (row < base || row >= base + op.rows || col < c0 || col >= c0 + ncols) continue;
    const x = left + HEAD + (col - c0) * CELL_W;
    const y = HEAD + (row - base) * CELL_H;
    const wl = lane - (live?.laneBase ?? 0);
    const slot = wl >= 0 && wl < 32 ? slots?.[reg] : undefined;
    const value = live && slot !== undefined ? elemValue(live.regs.get(slot)?.[wl], op.type, part) : "";
    const label = regLabel(op, reg, part);
    const top = value !== "" ? `T${lane}:${label}` : `T${lane}`;
    const who = group ? `thread ${lane} (warp ${lane >> 5} of the warpgroup, lane ${lane & 31})` : `lane ${lane}`;
    const g = svg("g", { class: "frag-cell", "data-lane": lane, "data-reg": reg, "data-part": part, "data-row": row, "data-col": col },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL_W - 1, height: CELL_H - 1, rx: 2, fill: colour(lane) }),
      svg("text", { x: x + CELL_W / 2, y: y + 12, "text-anchor": "middle", class: "frag-lane", ...fit(top, CELL_W - 4) }, top),
      svg("text", { x: x + CELL_W / 2, y: y + 25, "text-anchor": "middle", class: value !== "" ? "frag-val" : "frag-reg", ...fit(value !== "" ? value : label, CELL_W - 4) }, value !== "" ? value : label),
      svg("title", {}, `${op.name.toUpperCase()}[${row}][${col}]: ${who}, register ${label} (${op.type})${value !== "" ? ` = ${value}` : ""}`));
    if (value !== "") g.dataset.value = value;
    if (slot !== undefined) g.dataset.slot = String(slot);
    root.append(g);
  }
  if (notes.length) {
    root.append(svg("text", { x: 0, y: 12, class: "frag-axis" }, "lane · row address →"));
    notes.forEach((n, r) => {
      const y = HEAD + r * CELL_H;
      root.append(svg("g", { class: "frag-rowaddr", "data-row": r, "data-lane": n.lane, "data-addr": n.addr },
        svg("rect", { x: 0, y: y + 5, width: 34, height: CELL_H - 10, rx: 2, fill: laneColour(n.lane) }),
        svg("text", { x: 17, y: y + CELL_H / 2 + 4, "text-anchor": "middle", class: "frag-lane" }, `T${n.lane}`),
        svg("text", { x: 40, y: y + CELL_H / 2 + 4, class: "frag-addr", ...fit(`0x${n.addr}`, NOTE_W - 48) }, `0x${n.addr}`),
        svg("title", {}, n.title)));
    });
  }
  return root;
}

/** Squeezes a label wider than width (about 6.2px a character at 10px monospace) into it. */
function fit(text: string, width: number): Record<string, string | number> {
  return text.length * 6.2 > width ? { textLength: width, lengthAdjust: "spacingAndGlyphs" } : {};
}

const WORD_W = 78;

/** Draws a .b1 operand with one cell per 32-bit register word: along a row
 * of A (a cell spans 32 columns) or down a column of B (32 rows). */
function wordSVG(op: FragOperand, live?: LiveValues): SVGSVGElement {
  const words = bitWords(op);
  const across = words.every((w) => w.r0 === w.r1);
  const gcols = across ? Math.ceil(op.cols / 32) : op.cols;
  const grows = across ? op.rows : Math.ceil(op.rows / 32);
  const headW = across ? HEAD : 54;
  const w = headW + gcols * WORD_W + 1;
  const hgt = HEAD + grows * CELL_H + 1;
  const span = (i: number) => `${32 * i}–${32 * i + 31}`;
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg frag-words", role: "img",
    "aria-label": `${op.name.toUpperCase()}: ${op.rows}×${op.cols} ${op.type}, one cell per 32-bit register word` });
  for (let c = 0; c < gcols; c++) {
    root.append(svg("text", { x: headW + c * WORD_W + WORD_W / 2, y: 12, "text-anchor": "middle", class: "frag-axis" }, across ? span(c) : String(c)));
  }
  for (let r = 0; r < grows; r++) {
    root.append(svg("text", { x: headW - 4, y: HEAD + r * CELL_H + CELL_H / 2 + 4, "text-anchor": "end", class: "frag-axis" }, across ? String(r) : span(r)));
  }
  const slots = live?.slots[op.name];
  for (const wd of words) {
    const gx = across ? Math.floor(wd.c0 / 32) : wd.c0;
    const gy = across ? wd.r0 : Math.floor(wd.r0 / 32);
    const x = headW + gx * WORD_W;
    const y = HEAD + gy * CELL_H;
    const slot = slots?.[wd.reg];
    const hex = live && slot !== undefined ? live.regs.get(slot)?.[wd.lane] : undefined;
    const label = regLabel(op, wd.reg, 0);
    const where = across ? `[${wd.r0}][${wd.c0}..${wd.c1}]` : `[${wd.r0}..${wd.r1}][${wd.c0}]`;
    const first = across ? `[${wd.r0}][${wd.c0}+i]` : `[${wd.r0}+i][${wd.c0}]`;
    let title = `${op.name.toUpperCase()}${where}: 32 elements in lane ${wd.lane}, register ${label}; bit i is element ${op.name.toUpperCase()}${first}`;
    if (hex !== undefined) {
      const bitsStr = BigInt("0x" + (hex || "0")).toString(2).padStart(32, "0");
      title += `\nbits 31..0: ${bitsStr.replace(/(.{8})(?=.)/g, "$1 ")}`;
    }
    const g = svg("g", { class: "frag-cell frag-word", "data-lane": wd.lane, "data-reg": wd.reg, "data-part": 0, "data-row": wd.r0, "data-col": wd.c0,
      "data-rows": wd.r1 - wd.r0 + 1, "data-cols": wd.c1 - wd.c0 + 1 },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: WORD_W - 1, height: CELL_H - 1, rx: 2, fill: laneColour(wd.lane) }),
      svg("text", { x: x + WORD_W / 2, y: y + 12, "text-anchor": "middle", class: "frag-lane" }, `T${wd.lane}:${label}`),
      svg("text", { x: x + WORD_W / 2, y: y + 25, "text-anchor": "middle", class: hex !== undefined ? "frag-val" : "frag-reg" },
        hex !== undefined ? `0x${(hex || "0").padStart(8, "0")}` : across ? `k ${wd.c0}–${wd.c1}` : `k ${wd.r0}–${wd.r1}`),
      svg("title", {}, title));
    if (slot !== undefined) g.dataset.slot = String(slot);
    root.append(g);
  }
  return root;
}

/** The most columns of an operand drawn at once: wider ones (a wgmma's
 * accumulator, up to 256) are drawn a page of columns at a time, so a
 * redraw stays quick. */
export const PAGE_COLS = 32;

/** The pager of a wide operand: "columns 0–63 ▾" (onPage gets the page picked). */
export function colPager(cols: number, page: number, onPage: (p: number) => void): HTMLElement | null {
  if (cols <= PAGE_COLS) return null;
  const sel = h("select.frag-colpage", { "aria-label": "Columns drawn", title: `The operand is ${cols} columns wide: ${PAGE_COLS} are drawn at a time` },
    Array.from({ length: Math.ceil(cols / PAGE_COLS) }, (_, p) => h("option", { value: String(p) }, `columns ${p * PAGE_COLS}–${Math.min(cols, (p + 1) * PAGE_COLS) - 1}`)));
  sel.value = String(page);
  sel.addEventListener("change", () => onPage(Number(sel.value)));
  return h("span.muted", " · ", sel);
}

/** One drawing of an operand: the whole operand, or one group of a stacked one. */
export interface OperandPart {
  title: string | null;
  svg: SVGSVGElement;
}

/** The drawings of an operand: groups > 1 splits it into the groups' matrices (stacked by rows). */
export function operandParts(f: FragInstr, op: FragOperand, live?: LiveValues, opts: OperandOpts = {}): OperandPart[] {
  const groups = f.groups ?? 0;
  if (groups <= 1 || op.rows % groups !== 0) return [{ title: null, svg: operandSVG(op, live, opts) }];
  const rows = op.rows / groups;
  const out: OperandPart[] = [];
  for (let p = 0; p < groups; p++) {
    const lo = p * rows;
    const lanes = op.elems.filter((e) => e[3] >= lo && e[3] < lo + rows).map((e) => e[0]);
    out.push({
      title: `quad pair ${p} · ${laneRanges(lanes)} · rows ${lo}–${lo + rows - 1}`,
      svg: operandSVG({ ...op, rows }, live, { rowBase: lo }),
    });
  }
  return out;
}
