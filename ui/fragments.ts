// The fragment explorer: for a tensor-core instruction (mma, ldmatrix,
// stmatrix, movmatrix), which lane holds which element of each operand.
// The layouts are data served by the engine (/api/fragments); each operand
// is drawn as a grid whose cells say lane and register ("T5:a2"), coloured
// by lane. Hovering a cell highlights every element of its lane; the
// picture exports as SVG or PNG. .b1 operands are drawn one cell per
// 32-bit register word; the four quad-pair products of mma.m8n8k4 as four
// labelled matrices. Live, the last execution's report (last.tensor) adds
// the lane and address of every ldmatrix/stmatrix row and the registers
// an mma read and wrote.

import { h, setChildren, download, stored } from "./dom";
import type { Change, Model, ProgramScoped } from "./model";
import type { MatrixRows, TensorOp, TensorReport } from "./proto";
import { bf16Value, f16Value } from "./format";

/** The /api/fragments types (generated from engine/isa's FragInstr). FragElem: [lane, reg, part, row, col]. */
export type { FragElem, FragOperand, SparseInfo, FragInstr } from "./api_gen";
import type { FragOperand, SparseInfo, FragInstr } from "./api_gen";

/** What the grids of an mma.sp form mean: the compressed A and the metadata fields. */
export function sparseCaption(sp: SparseInfo, rows: number, aCols: number): string {
  const sel = sp.selectors === 1 ? "selector 0" : `selector 0 (selector s: lane + ${sp.threads}·s, s < ${sp.selectors})`;
  return `Sparse: A is the compressed ${rows}×${aCols} matrix of a logical ${rows}×${sp.k} A (${sp.chunk / 2} of every ${sp.chunk} elements kept); ` +
    `E shows which lane and bits hold the index of each stored element${sp.span > 1 ? ` pair` : ""} for ${sel}.`;
}

let table: Promise<FragInstr[]> | null = null;

/** The layout table (fetched once). */
export function fragmentTable(): Promise<FragInstr[]> {
  table ??= fetch("/api/fragments", { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : { instructions: [] }))
    .then((d: { instructions?: FragInstr[] }) => d.instructions ?? [])
    .catch(() => []);
  return table;
}

const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...kids: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of kids) el.append(c);
  return el;
}

/** The colour of a lane: 32 hues, alternating lightness so neighbours differ. */
export function laneColour(lane: number): string {
  const hue = Math.round((lane * 360) / 32 + (lane % 2) * 180) % 360;
  return `hsl(${hue}, 62%, ${lane % 2 ? 34 : 42}%)`;
}

/** How a cell names its register: operand letter, register, and the part of a 16- or 8-bit element. */
export function regLabel(op: FragOperand, reg: number, part: number): string {
  const n = op.name.startsWith("m") ? "r" : op.name;
  const bits = typeBits(op.type);
  const sub = bits === 16 ? (part ? ".hi" : ".lo") : bits === 8 ? `.b${part}` : "";
  return `${n}${reg}${sub}`;
}

function typeBits(t: string): number {
  if (t === "tf32") return 32;
  if (t === "e4m3" || t === "e5m2") return 8;
  const m = /(\d+)/.exec(t);
  return m ? Number(m[1]) : 32;
}

const CELL_W = 52;
const CELL_H = 30;
const HEAD = 18;

/** The value of one element from its register's bits (hex, as the protocol sends them). */
export function elemValue(hex: string | undefined, type: string, part: number): string {
  if (hex === undefined) return "";
  const v = BigInt("0x" + (hex || "0"));
  const bits = typeBits(type);
  const raw = Number(BigInt.asUintN(Math.min(bits, 32), v >> BigInt(bits < 32 ? part * bits : 0)));
  const short = (x: number) => (Number.isInteger(x) && Math.abs(x) < 1e6 ? String(x) : x.toPrecision(4));
  switch (type) {
    case "f16": return short(f16Value(raw));
    case "bf16": return short(bf16Value(raw));
    case "f32":
    case "tf32": {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setUint32(0, raw >>> 0);
      return short(dv.getFloat32(0));
    }
    case "f64": {
      const dv = new DataView(new ArrayBuffer(8));
      dv.setBigUint64(0, BigInt.asUintN(64, v));
      return short(dv.getFloat64(0));
    }
    case "e4m3":
    case "e5m2": return short(fp8Value(raw, type));
    case "s4": return String((raw << 28) >> 28);
    case "u4":
    case "b1": return String(raw);
    case "s8": return String((raw << 24) >> 24);
    case "s32": return String(raw | 0);
    case "u8":
    case "u32": return String(raw >>> 0);
  }
  return raw.toString(16);
}

/** Decodes an fp8 value (e4m3: no infinities, S.1111.111 is NaN; e5m2: IEEE-like). */
export function fp8Value(x: number, type: string): number {
  const [eb, mb, bias] = type === "e4m3" ? [4, 3, 7] : [5, 2, 15];
  const s = x & 0x80 ? -1 : 1;
  const e = (x >> mb) & ((1 << eb) - 1);
  const m = x & ((1 << mb) - 1);
  if (type === "e4m3" && e === 15 && m === 7) return NaN;
  if (type === "e5m2" && e === 31) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** (1 - bias - mb);
  return s * (1 + m / (1 << mb)) * 2 ** (e - bias);
}

/** Live values: the register slots of an executed instruction's operands and the selected warp's registers. */
export interface LiveValues {
  slots: Record<string, number[]>;
  regs: Map<number, string[]>;
}

/** A note beside row r of a matrix: the lane whose address gave the row, and the address. */
export interface RowNote {
  lane: number;
  addr: string;
  title: string;
}

export interface OperandOpts {
  /** The first row drawn (a group of a stacked operand): cells carry row + rowBase, axes count from 0. */
  rowBase?: number;
  /** ldmatrix/stmatrix live: one note per row, drawn beside the grid. */
  rows?: RowNote[];
}

const NOTE_W = 132;

/** Draws one operand as an SVG grid (with the warp's values when live). */
export function operandSVG(op: FragOperand, live?: LiveValues, opts: OperandOpts = {}): SVGSVGElement {
  if (typeBits(op.type) === 1) return wordSVG(op, live);
  const base = opts.rowBase ?? 0;
  const notes = opts.rows ?? [];
  // The row notes come first (left), so a narrow screen sees them with the first columns.
  const left = notes.length ? NOTE_W : 0;
  const w = left + HEAD + op.cols * CELL_W + 1;
  const hgt = HEAD + op.rows * CELL_H + 1;
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg", role: "img", "aria-label": `${op.name.toUpperCase()}: ${op.rows}×${op.cols} ${op.type}` });
  for (let c = 0; c < op.cols; c++) {
    root.append(svg("text", { x: left + HEAD + c * CELL_W + CELL_W / 2, y: 12, "text-anchor": "middle", class: "frag-axis" }, String(c)));
  }
  for (let r = 0; r < op.rows; r++) {
    root.append(svg("text", { x: left + HEAD - 4, y: HEAD + r * CELL_H + CELL_H / 2 + 4, "text-anchor": "end", class: "frag-axis" }, String(r)));
  }
  const slots = live?.slots[op.name];
  for (const [lane, reg, part, row, col] of op.elems) {
    if (row < base || row >= base + op.rows) continue;
    const x = left + HEAD + col * CELL_W;
    const y = HEAD + (row - base) * CELL_H;
    const slot = slots?.[reg];
    const value = live && slot !== undefined ? elemValue(live.regs.get(slot)?.[lane], op.type, part) : "";
    const label = regLabel(op, reg, part);
    const top = value !== "" ? `T${lane}:${label}` : `T${lane}`;
    const g = svg("g", { class: "frag-cell", "data-lane": lane, "data-reg": reg, "data-part": part, "data-row": row, "data-col": col },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL_W - 1, height: CELL_H - 1, rx: 2, fill: laneColour(lane) }),
      svg("text", { x: x + CELL_W / 2, y: y + 12, "text-anchor": "middle", class: "frag-lane", ...fit(top, CELL_W - 4) }, top),
      svg("text", { x: x + CELL_W / 2, y: y + 25, "text-anchor": "middle", class: value !== "" ? "frag-val" : "frag-reg", ...fit(value !== "" ? value : label, CELL_W - 4) }, value !== "" ? value : label),
      svg("title", {}, `${op.name.toUpperCase()}[${row}][${col}]: lane ${lane}, register ${label} (${op.type})${value !== "" ? ` = ${value}` : ""}`));
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

/** A .b1 register word: 32 consecutive elements of a row (A) or a column (B). */
interface Word {
  lane: number;
  reg: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
}

/** The register words of a .b1 operand (each register holds 32 consecutive elements). */
export function bitWords(op: FragOperand): Word[] {
  const words = new Map<number, Word>();
  for (const [lane, reg, , row, col] of op.elems) {
    const k = reg * 32 + lane;
    const w = words.get(k);
    if (!w) words.set(k, { lane, reg, r0: row, r1: row, c0: col, c1: col });
    else {
      w.r0 = Math.min(w.r0, row);
      w.r1 = Math.max(w.r1, row);
      w.c0 = Math.min(w.c0, col);
      w.c1 = Math.max(w.c1, col);
    }
  }
  return [...words.values()];
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

/** One drawing of an operand: the whole operand, or one group of a stacked one. */
interface OperandPart {
  title: string | null;
  svg: SVGSVGElement;
}

/** Lists lanes as ranges: "0–3, 16–19". */
export function laneRanges(lanes: number[]): string {
  const s = [...new Set(lanes)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    out.push(j > i ? `T${s[i]}–T${s[j]}` : `T${s[i]}`);
    i = j + 1;
  }
  return out.join(", ");
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

export interface FragmentsHooks {
  /** Show a register's lane in the registers view (a click on a live cell). */
  gotoRegister(slot: number, lane: number): void;
}

/** The explorer's view (a tab of the inspectors). Static: any form of the
 * table. Live: an instruction of the loaded kernel, with the selected
 * warp's register values; it follows the last tensor instruction executed. */
export class FragmentsView implements ProgramScoped {
  private table: FragInstr[] = [];
  private key = stored("ptxplay.frag") ?? "";
  /** The kernel's instruction shown live (pc), or -1. */
  private livePC = -1;
  private lane: number | null = null;
  private pick: HTMLSelectElement;
  private kernelPick: HTMLSelectElement;
  private body: HTMLElement;
  private info: HTMLElement;
  private ready = false;

  constructor(root: HTMLElement, private readonly model: Model, private readonly visible: () => boolean, private readonly hooks: FragmentsHooks) {
    this.pick = h("select", { "aria-label": "Instruction", title: "Any form: which lane holds which element" });
    this.pick.addEventListener("change", () => {
      this.key = this.pick.value;
      this.livePC = -1;
      stored("ptxplay.frag", this.key);
      this.lane = null;
      this.render();
    });
    this.kernelPick = h("select", { "aria-label": "Instruction of the kernel", title: "A tensor-core instruction of the loaded kernel: its fragments with the selected warp's values" });
    this.kernelPick.addEventListener("change", () => this.showLive(Number(this.kernelPick.value)));
    this.body = h("div.frag-body");
    this.info = h("div.frag-info", { role: "status" });
    const bar = h("div.toolbar.frag-bar",
      h("label.field", h("span.field-label", "in this kernel"), this.kernelPick),
      h("label.field", h("span.field-label", "any form"), this.pick),
      h("span.spacer"),
      h("button.btn-small", { type: "button", "data-export": "svg", onclick: () => this.exportSVG(), title: "Download the picture as SVG" }, "SVG ↓"),
      h("button.btn-small", { type: "button", "data-export": "png", onclick: () => void this.exportPNG(), title: "Download the picture as PNG" }, "PNG ↓"));
    setChildren(root, bar, this.info, this.body);
    this.body.addEventListener("pointerover", (e) => {
      const g = (e.target as Element).closest<SVGGElement>(".frag-cell");
      if (g) this.highlight(Number(g.dataset.lane), g);
    });
    this.body.addEventListener("pointerleave", () => this.highlight(this.lane, null));
    this.body.addEventListener("click", (e) => {
      const g = (e.target as Element).closest<SVGGElement>(".frag-cell");
      if (g?.dataset.slot !== undefined) {
        this.hooks.gotoRegister(Number(g.dataset.slot), Number(g.dataset.lane));
        return;
      }
      this.lane = g ? (this.lane === Number(g.dataset.lane) ? null : Number(g.dataset.lane)) : null;
      this.highlight(this.lane, g);
    });
    model.scope(this);
    model.subscribe((c) => this.update(c));
  }

  /** Another program: no instruction of the old one stays shown live. */
  programChanged(): void {
    this.livePC = -1;
    this.lane = null;
    this.fillKernel();
    this.render();
  }

  private update(c: Set<Change>): void {
    if (c.has("loaded")) this.fillKernel();
    // Follow the last tensor instruction executed.
    const last = this.model.last;
    const ops = this.model.loaded?.tensorOps ?? [];
    const op = last ? ops.find((o) => o.pc === last.pc) : undefined;
    if (c.has("status") && op && !this.model.running && op.pc !== this.livePC) {
      this.livePC = op.pc;
      this.key = op.key;
      if (this.ready) this.pick.value = op.key;
      this.kernelPick.value = String(op.pc);
      if (this.visible()) this.render();
      return;
    }
    // The values, and the last execution's report (rows, registers), follow the position.
    if (this.visible() && this.livePC >= 0 && (c.has("regs") || c.has("selection") || c.has("loaded") || c.has("status"))) this.render();
  }

  private fillKernel(): void {
    const ops = this.model.loaded?.tensorOps ?? [];
    setChildren(this.kernelPick,
      h("option", { value: "-1" }, ops.length ? "—" : "(none)"),
      ops.map((o) => h("option", { value: String(o.pc) }, `line ${o.line} · ${o.key}`)));
    this.kernelPick.disabled = !ops.length;
    this.kernelPick.value = String(this.livePC);
  }

  /** Shows the loaded kernel's instruction at pc live (from the editor or the picker). */
  showLive(pc: number): void {
    const op = this.liveOp(pc);
    this.livePC = op ? pc : -1;
    if (op) {
      this.key = op.key;
      this.pick.value = op.key;
    }
    this.kernelPick.value = String(this.livePC);
    this.lane = null;
    this.render();
  }

  /** What a share link keeps of the explorer: the form, the kernel's instruction shown live, the highlighted lane. */
  viewState(): { fragment?: string; fragmentPC?: number; lane?: number } {
    return { fragment: this.key || undefined, fragmentPC: this.livePC >= 0 ? this.livePC : undefined, lane: this.lane ?? undefined };
  }

  /** Restores what viewState returned (a share link's view). */
  restoreView(v: { fragment?: string; fragmentPC?: number; lane?: number }): void {
    if (v.fragmentPC !== undefined && this.liveOp(v.fragmentPC)) {
      this.showLive(v.fragmentPC);
    } else if (v.fragment) {
      this.key = v.fragment;
      this.livePC = -1;
      if (this.ready) this.pick.value = v.fragment;
      this.kernelPick.value = "-1";
    }
    if (v.lane !== undefined && v.lane >= 0 && v.lane < 32) this.lane = v.lane;
    if (this.ready && this.visible()) this.render();
  }

  private liveOp(pc = this.livePC): TensorOp | undefined {
    return pc < 0 ? undefined : this.model.loaded?.tensorOps?.find((o) => o.pc === pc);
  }

  /** The tab was shown: fetch the table once, then draw. */
  shown(): void {
    if (this.ready) {
      this.render();
      return;
    }
    this.ready = true;
    void fragmentTable().then((t) => {
      this.table = t;
      const groups = new Map<string, FragInstr[]>();
      for (const f of t) {
        const g = groups.get(f.op) ?? [];
        g.push(f);
        groups.set(f.op, g);
      }
      setChildren(this.pick, [...groups].map(([op, fs]) => h("optgroup", { label: op }, fs.map((f) => h("option", { value: f.key }, f.key)))));
      if (!t.some((f) => f.key === this.key)) this.key = t[0]?.key ?? "";
      this.pick.value = this.key;
      this.render();
    });
  }

  private current(): FragInstr | undefined {
    return this.table.find((f) => f.key === this.key);
  }

  private live(): LiveValues | undefined {
    const op = this.liveOp();
    const m = this.model;
    if (!op || !m.regsOf || m.regsOf.cta !== m.sel.cta || m.regsOf.warp !== m.sel.warp) return undefined;
    return { slots: op.regs, regs: m.regs };
  }

  /** The last execution's report, when it is of the instruction shown live. */
  private report(): TensorReport | undefined {
    const last = this.model.last;
    return last && this.livePC >= 0 && last.pc === this.livePC && last.tensor ? last.tensor : undefined;
  }

  private regName(slot: number): string {
    return this.model.loaded?.regs.find((r) => r.slot === slot)?.name ?? `slot ${slot}`;
  }

  /** ldmatrix/stmatrix: the matrix drawn as operand o (m0..m3) in the report. */
  private matrixOf(o: FragOperand, rep: TensorReport | undefined): MatrixRows | undefined {
    if (!rep?.matrices || !/^m\d$/.test(o.name)) return undefined;
    const j = Number(o.name.slice(1));
    return rep.matrices.find((m) => m.index === j);
  }

  private rowNotes(m: MatrixRows): RowNote[] {
    return m.lanes.map((lane, r) => ({
      lane,
      addr: m.addrs[r] ?? "",
      title: `row ${r}: ${m.rowBytes} bytes at 0x${m.addrs[r]}${m.offsets ? ` (${m.space} offset 0x${m.offsets[r]})` : ` in ${m.space}`}, the address lane ${lane} gave`,
    }));
  }

  private render(): void {
    if (!this.ready) return;
    const f = this.current();
    if (!f) {
      setChildren(this.body, h("p.empty", this.table.length ? "Pick an instruction." : "No fragment layouts are available."));
      setChildren(this.info);
      return;
    }
    const live = this.live();
    const op = this.liveOp();
    const rep = op && op.key === f.key ? this.report() : undefined;
    const last = this.model.last;
    const who = rep && last ? ` · rows and registers as CTA ${last.cta >= 0 ? last.cta : `#${last.linear}`} warp ${last.warp} executed it` : op ? " · its row addresses and registers show right after it executes" : "";
    const caption = op ? h("p.frag-live", h("b", `line ${op.line}`), live ? ` · values of CTA ${this.model.sel.cta} warp ${this.model.sel.warp} now (click a cell for its register)` : " · select a warp to see its values", who) : null;
    const regs = rep?.operands?.length
      ? h("p.frag-regs", rep.operands.map((o) => h("span.frag-regop", { "data-operand": o.name, "data-write": o.write ? "1" : "0" },
        h("b", `${o.write ? "wrote" : "read"} ${o.name.toUpperCase()}`), " ", h("code", o.regs.map((r) => this.regName(r)).join(" ")))))
      : null;
    const a = f.operands.find((o) => o.name === "a");
    const sparse = f.sparse && a ? h("p.frag-live", sparseCaption(f.sparse, a.rows, a.cols)) : null;
    setChildren(this.body, caption, sparse, regs, f.operands.map((o) => {
      const m = this.matrixOf(o, rep);
      const parts = operandParts(f, o, live, m ? { rows: this.rowNotes(m) } : {});
      return h("figure.frag-op", { "data-operand": o.name },
        h("figcaption", h("b", o.name.toUpperCase()), ` ${o.rows}×${o.cols} .${o.type} · ${o.regs} register${o.regs === 1 ? "" : "s"} per lane`,
          typeBits(o.type) === 1 ? h("span.muted", " · one cell per 32-bit register word (hover for its bits)") : null,
          parts.length > 1 ? h("span.muted", ` · ${parts.length} independent products, one per quad pair`) : null,
          o.addrLanes && !m ? h("span.muted", ` · row r from the address in lane ${o.addrLanes[0]}+r`) : null,
          m ? h("span.frag-dest", { "data-reg": this.regName(m.reg) }, m.write ? " · loaded into " : " · stored from ", h("code", this.regName(m.reg)), ` (register ${m.index} of the vector)`) : null),
        parts.length === 1 ? parts[0].svg : h("div.frag-groups", parts.map((p) => h("figure.frag-group", h("figcaption", p.title ?? ""), p.svg))));
    }));
    this.highlight(this.lane, null);
  }

  private highlight(lane: number | null, cell: SVGGElement | null): void {
    for (const g of this.body.querySelectorAll<SVGGElement>(".frag-cell")) {
      g.classList.toggle("hl", lane !== null && Number(g.dataset.lane) === lane);
      g.classList.toggle("dim", lane !== null && Number(g.dataset.lane) !== lane);
    }
    const f = this.current();
    if (!f) return;
    if (lane === null) {
      setChildren(this.info, h("span.muted", f.notes ?? "Hover a cell to see every element its lane holds; click to keep it."));
      return;
    }
    const parts = f.operands.map((op) => `${op.name.toUpperCase()} ${op.elems.filter((e) => e[0] === lane).length}`);
    const where = cell ? ` · ${cell.querySelector("title")?.textContent ?? ""}` : "";
    setChildren(this.info, h("span", h("b", `lane ${lane}`), ` holds ${parts.join(", ")} elements${where}`));
  }

  /** The whole picture as one SVG document. */
  private picture(): string {
    const f = this.current();
    if (!f) return "";
    let y = 0;
    let width = 0;
    const out = svg("svg", { xmlns: SVG });
    out.append(svg("style", {}, ".frag-axis{font:10px sans-serif;fill:#666}.frag-lane{font:bold 10px sans-serif;fill:#fff}.frag-reg,.frag-val{font:10px monospace;fill:#fff}.frag-addr{font:10px monospace;fill:#222}.cap{font:bold 13px sans-serif;fill:#222}.sub{font:11px sans-serif;fill:#444}"));
    // Where the picture comes from: kernel, line, step, CTA/warp and form.
    const live = this.live();
    const caption = this.caption(live !== undefined);
    out.append(svg("text", { x: 0, y: 12, class: "sub", "data-caption": "" }, caption));
    out.append(svg("text", { x: 0, y: 30, class: "cap" }, f.key));
    y = 40;
    const rep = this.liveOp()?.key === f.key ? this.report() : undefined;
    for (const op of f.operands) {
      out.append(svg("text", { x: 0, y: y + 14, class: "cap" }, `${op.name.toUpperCase()} ${op.rows}×${op.cols} .${op.type}`));
      y += 20;
      const m = this.matrixOf(op, rep);
      for (const p of operandParts(f, op, live, m ? { rows: this.rowNotes(m) } : {})) {
        if (p.title) {
          out.append(svg("text", { x: 0, y: y + 12, class: "sub" }, p.title));
          y += 16;
        }
        const s = p.svg;
        const g = svg("g", { transform: `translate(0 ${y})` });
        for (const c of [...s.childNodes]) g.append(c);
        out.append(g);
        y += Number(s.getAttribute("height")) + 10;
        width = Math.max(width, Number(s.getAttribute("width")));
      }
      y += 6;
    }
    width = Math.max(width, Math.ceil(caption.length * 6.2));
    out.setAttribute("width", String(width));
    out.setAttribute("height", String(y));
    out.setAttribute("viewBox", `0 0 ${width} ${y}`);
    return new XMLSerializer().serializeToString(out);
  }

  /** The exports' caption: the kernel, the instruction's line, the step,
   * the warp whose values are drawn and the form (the fragment layout). */
  caption(withValues = this.live() !== undefined): string {
    const m = this.model;
    const f = this.current();
    const op = this.liveOp();
    const parts: string[] = [];
    if (m.loaded?.entry) parts.push(`kernel ${m.loaded.entry}`);
    if (op) parts.push(`line ${op.line}`);
    if (m.loaded) parts.push(`step ${m.step.toLocaleString("en-US")}`);
    parts.push(withValues ? `CTA #${m.selLinear()} warp ${m.sel.warp}` : "layout only, no values");
    if (f) parts.push(`form ${f.key}`);
    return parts.join(" · ");
  }

  private fileName(ext: string): string {
    return `${(this.current()?.key ?? "fragments").replace(/[^\w.-]+/g, "_")}.${ext}`;
  }

  private exportSVG(): void {
    const s = this.picture();
    if (s) download(this.fileName("svg"), s, "image/svg+xml");
  }

  private async exportPNG(): Promise<void> {
    const s = this.picture();
    if (!s) return;
    const img = new Image();
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(s)}`;
    await img.decode();
    const scale = 2;
    const canvas = document.createElement("canvas");
    canvas.width = img.width * scale;
    canvas.height = img.height * scale;
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0);
    canvas.toBlob((b) => {
      if (!b) return;
      const a = h("a", { href: URL.createObjectURL(b), download: this.fileName("png") });
      a.click();
      window.setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    }, "image/png");
  }
}
