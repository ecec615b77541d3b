// The fragment explorer's data: the layout table (/api/fragments), what
// a cell says (lane colour, register label, element value) and the
// grouping of a .b1 operand's elements into register words.

import { bf16Value, f16Value } from "./format";
import type { FragOperand, SparseInfo, FragInstr } from "./api_gen";

/** What the grids of an mma.sp form mean: the compressed A and the metadata fields. */
export function sparseCaption(sp: SparseInfo, rows: number, aCols: number): string {
  const sel = sp.selectors === 1 ? "selector 0" : `selector 0 (selector s: lane + ${sp.threads}·s, s < ${sp.selectors})`;
  return `Sparse: A is the compressed ${rows}×${aCols} matrix of a logical ${rows}×${sp.k} A (${sp.chunk / 2} of every ${sp.chunk} elements kept); ` +
    `E shows which lane and bits hold the index of each stored element${sp.span > 1 ? ` pair` : ""} for ${sel}.`;
}

let doc: Promise<{ instructions?: FragInstr[]; wgmma?: string[] }> | null = null;

function fragDoc(): Promise<{ instructions?: FragInstr[]; wgmma?: string[] }> {
  doc ??= fetch("/api/fragments", { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  return doc;
}

/** The layout table (fetched once). */
export function fragmentTable(): Promise<FragInstr[]> {
  return fragDoc().then((d) => d.instructions ?? []);
}

/** The keys of the wgmma.mma_async forms (each form's layout is served on its own). */
export function wgmmaKeys(): Promise<string[]> {
  return fragDoc().then((d) => d.wgmma ?? []);
}

const wgmmaForms = new Map<string, Promise<FragInstr | null>>();

/** One wgmma.mma_async form's layout (/api/fragments/wgmma/{key}, fetched once). */
export function wgmmaForm(key: string): Promise<FragInstr | null> {
  let p = wgmmaForms.get(key);
  if (!p) {
    p = fetch(`/api/fragments/wgmma/${encodeURIComponent(key)}`, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? (r.json() as Promise<FragInstr>) : null))
      .catch(() => null);
    wgmmaForms.set(key, p);
  }
  return p;
}

/** The colour of a lane: 32 hues, alternating lightness so neighbours differ. */
export function laneColour(lane: number): string {
  const hue = Math.round((lane * 360) / 32 + (lane % 2) * 180) % 360;
  return `hsl(${hue}, 62%, ${lane % 2 ? 34 : 42}%)`;
}

/** The colour of a warpgroup's thread (0-127): one hue family per warp
 * (blue, orange, green, purple), its lanes told apart by shade. */
export function warpColour(t: number): string {
  const hue = [212, 24, 140, 282][(t >> 5) & 3] + ((t % 8) - 4) * 4;
  return `hsl(${hue}, ${52 + (t % 4) * 6}%, ${(t >> 2) % 2 ? 33 : 41}%)`;
}

/** How a cell names its register: operand letter, register, and the part of a 16- or 8-bit element. */
export function regLabel(op: FragOperand, reg: number, part: number): string {
  const n = op.name.startsWith("m") ? "r" : op.name;
  const bits = typeBits(op.type);
  const sub = bits === 16 ? (part ? ".hi" : ".lo") : bits === 8 ? `.b${part}` : "";
  return `${n}${reg}${sub}`;
}

export function typeBits(t: string): number {
  if (t === "tf32") return 32;
  if (t === "e4m3" || t === "e5m2") return 8;
  const m = /(\d+)/.exec(t);
  return m ? Number(m[1]) : 32;
}

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
  /** Warpgroup forms: the thread of the warpgroup that is lane 0 of the warp
   * whose registers these are (elements of other warps have no value). */
  laneBase?: number;
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
  /** A wide operand drawn a page of columns at a time: the first column and how many. */
  colBase?: number;
  colCount?: number;
  /** ldmatrix/stmatrix live: one note per row, drawn beside the grid. */
  rows?: RowNote[];
}

/** A .b1 register word: 32 consecutive elements of a row (A) or a column (B). */
export interface Word {
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
