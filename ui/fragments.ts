// The fragment explorer: for a tensor-core instruction (mma, ldmatrix,
// stmatrix, movmatrix), which lane holds which element of each operand.
// The layouts are data served by the engine (/api/fragments); each operand
// is drawn as a grid whose cells say lane and register ("T5:a2"), coloured
// by lane. Hovering a cell highlights every element of its lane; the
// picture exports as SVG or PNG.

import { h, setChildren, download, stored } from "./dom";
import type { Change, Model } from "./model";
import type { TensorOp } from "./proto";
import { bf16Value, f16Value } from "./format";

/** One element: [lane, reg, part, row, col]. */
export type FragElem = [number, number, number, number, number];

export interface FragOperand {
  name: string;
  rows: number;
  cols: number;
  type: string;
  regs: number;
  elems: FragElem[];
  addrLanes?: number[];
}

/** The structured-sparse A of an mma.sp form (isa.SparseInfo). */
export interface SparseInfo {
  /** Columns of the logical (uncompressed) A. */
  k: number;
  chunk: number;
  span: number;
  indexBits: number;
  values?: number[];
  /** Lanes of each group of four that supply metadata; selector s moves operand e to lane + s*threads. */
  threads: number;
  selectors: number;
  /** kcols[c][i]: the logical column of compressed column c when its index is i. */
  kcols: number[][];
}

export interface FragInstr {
  key: string;
  op: string;
  shape: string;
  operands: FragOperand[];
  notes?: string;
  groups?: number;
  sparse?: SparseInfo;
}

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

/** Draws one operand as an SVG grid (with the warp's values when live). */
export function operandSVG(op: FragOperand, live?: LiveValues): SVGSVGElement {
  const w = HEAD + op.cols * CELL_W + 1;
  const hgt = HEAD + op.rows * CELL_H + 1;
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg", role: "img", "aria-label": `${op.name.toUpperCase()}: ${op.rows}×${op.cols} ${op.type}` });
  for (let c = 0; c < op.cols; c++) {
    root.append(svg("text", { x: HEAD + c * CELL_W + CELL_W / 2, y: 12, "text-anchor": "middle", class: "frag-axis" }, String(c)));
  }
  for (let r = 0; r < op.rows; r++) {
    root.append(svg("text", { x: HEAD - 4, y: HEAD + r * CELL_H + CELL_H / 2 + 4, "text-anchor": "end", class: "frag-axis" }, String(r)));
  }
  const slots = live?.slots[op.name];
  for (const [lane, reg, part, row, col] of op.elems) {
    const x = HEAD + col * CELL_W;
    const y = HEAD + row * CELL_H;
    const slot = slots?.[reg];
    const value = live && slot !== undefined ? elemValue(live.regs.get(slot)?.[lane], op.type, part) : "";
    const label = regLabel(op, reg, part);
    const g = svg("g", { class: "frag-cell", "data-lane": lane, "data-reg": reg, "data-part": part, "data-row": row, "data-col": col },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL_W - 1, height: CELL_H - 1, rx: 2, fill: laneColour(lane) }),
      svg("text", { x: x + CELL_W / 2, y: y + 12, "text-anchor": "middle", class: "frag-lane" }, value !== "" ? `T${lane}:${label}` : `T${lane}`),
      svg("text", { x: x + CELL_W / 2, y: y + 25, "text-anchor": "middle", class: value !== "" ? "frag-val" : "frag-reg" }, value !== "" ? value : label),
      svg("title", {}, `${op.name.toUpperCase()}[${row}][${col}]: lane ${lane}, register ${label} (${op.type})${value !== "" ? ` = ${value}` : ""}`));
    if (slot !== undefined) g.dataset.slot = String(slot);
    root.append(g);
  }
  return root;
}

export interface FragmentsHooks {
  /** Show a register's lane in the registers view (a click on a live cell). */
  gotoRegister(slot: number, lane: number): void;
}

/** The explorer's view (a tab of the inspectors). Static: any form of the
 * table. Live: an instruction of the loaded kernel, with the selected
 * warp's register values; it follows the last tensor instruction executed. */
export class FragmentsView {
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
      h("button.btn-small", { type: "button", onclick: () => this.exportSVG(), title: "Download the picture as SVG" }, "SVG ↓"),
      h("button.btn-small", { type: "button", onclick: () => void this.exportPNG(), title: "Download the picture as PNG" }, "PNG ↓"));
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
    model.subscribe((c) => this.update(c));
  }

  private update(c: Set<Change>): void {
    if (c.has("loaded")) {
      this.livePC = -1;
      this.fillKernel();
    }
    // Follow the last tensor instruction executed.
    const last = this.model.last;
    const ops = this.model.loaded?.tensorOps ?? [];
    if (c.has("status") && last && !this.model.running && ops.some((o) => o.pc === last.pc) && last.pc !== this.livePC) {
      this.livePC = last.pc;
      this.kernelPick.value = String(last.pc);
      if (this.visible()) this.render();
      return;
    }
    if (this.visible() && this.livePC >= 0 && (c.has("regs") || c.has("selection") || c.has("loaded"))) this.render();
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
    const a = f.operands.find((o) => o.name === "a");
    const sparse = f.sparse && a ? h("p.frag-live", sparseCaption(f.sparse, a.rows, a.cols)) : null;
    const caption = op ? h("p.frag-live", h("b", `line ${op.line}`), live ? ` · values of CTA ${this.model.sel.cta} warp ${this.model.sel.warp} now (click a cell for its register)` : " · select a warp to see its values") : null;
    setChildren(this.body, caption, sparse, f.operands.map((o) => h("figure.frag-op",
      h("figcaption", h("b", o.name.toUpperCase()), ` ${o.rows}×${o.cols} .${o.type} · ${o.regs} register${o.regs === 1 ? "" : "s"} per lane`,
        o.addrLanes ? h("span.muted", ` · row r from the address in lane ${o.addrLanes[0]}+r`) : null),
      operandSVG(o, live))));
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
    out.append(svg("style", {}, ".frag-axis{font:10px sans-serif;fill:#666}.frag-lane{font:bold 10px sans-serif;fill:#fff}.frag-reg,.frag-val{font:10px monospace;fill:#fff}.cap{font:bold 13px sans-serif;fill:#222}"));
    out.append(svg("text", { x: 0, y: 14, class: "cap" }, f.key));
    y = 24;
    for (const op of f.operands) {
      const s = operandSVG(op, this.live());
      out.append(svg("text", { x: 0, y: y + 14, class: "cap" }, `${op.name.toUpperCase()} ${op.rows}×${op.cols} .${op.type}`));
      const g = svg("g", { transform: `translate(0 ${y + 20})` });
      for (const c of [...s.childNodes]) g.append(c);
      out.append(g);
      y += 20 + Number(s.getAttribute("height")) + 16;
      width = Math.max(width, Number(s.getAttribute("width")));
    }
    out.setAttribute("width", String(width));
    out.setAttribute("height", String(y));
    out.setAttribute("viewBox", `0 0 ${width} ${y}`);
    return new XMLSerializer().serializeToString(out);
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
