// The fragment explorer: for a tensor-core instruction (mma, ldmatrix,
// stmatrix, movmatrix), which lane holds which element of each operand.
// The layouts are data served by the engine (/api/fragments); each operand
// is drawn as a grid whose cells say lane and register ("T5:a2"), coloured
// by lane. Hovering a cell highlights every element of its lane; the
// picture exports as SVG or PNG.

import { h, setChildren, download, stored } from "./dom";

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

export interface FragInstr {
  key: string;
  op: string;
  shape: string;
  operands: FragOperand[];
  notes?: string;
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
  const m = /(\d+)/.exec(t);
  return m ? Number(m[1]) : 32;
}

const CELL_W = 46;
const CELL_H = 30;
const HEAD = 18;

/** Draws one operand as an SVG grid. */
export function operandSVG(op: FragOperand): SVGSVGElement {
  const w = HEAD + op.cols * CELL_W + 1;
  const hgt = HEAD + op.rows * CELL_H + 1;
  const root = svg("svg", { xmlns: SVG, width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, class: "frag-svg", role: "img", "aria-label": `${op.name.toUpperCase()}: ${op.rows}×${op.cols} ${op.type}` });
  for (let c = 0; c < op.cols; c++) {
    root.append(svg("text", { x: HEAD + c * CELL_W + CELL_W / 2, y: 12, "text-anchor": "middle", class: "frag-axis" }, String(c)));
  }
  for (let r = 0; r < op.rows; r++) {
    root.append(svg("text", { x: HEAD - 4, y: HEAD + r * CELL_H + CELL_H / 2 + 4, "text-anchor": "end", class: "frag-axis" }, String(r)));
  }
  for (const [lane, reg, part, row, col] of op.elems) {
    const x = HEAD + col * CELL_W;
    const y = HEAD + row * CELL_H;
    const g = svg("g", { class: "frag-cell", "data-lane": lane, "data-reg": reg, "data-part": part, "data-row": row, "data-col": col },
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL_W - 1, height: CELL_H - 1, rx: 2, fill: laneColour(lane) }),
      svg("text", { x: x + CELL_W / 2, y: y + 12, "text-anchor": "middle", class: "frag-lane" }, `T${lane}`),
      svg("text", { x: x + CELL_W / 2, y: y + 25, "text-anchor": "middle", class: "frag-reg" }, regLabel(op, reg, part)),
      svg("title", {}, `${op.name.toUpperCase()}[${row}][${col}]: lane ${lane}, register ${regLabel(op, reg, part)} (${op.type})`));
    root.append(g);
  }
  return root;
}

/** The explorer's view (a tab of the inspectors). */
export class FragmentsView {
  private table: FragInstr[] = [];
  private key = stored("ptxplay.frag") ?? "";
  private lane: number | null = null;
  private pick: HTMLSelectElement;
  private body: HTMLElement;
  private info: HTMLElement;
  private ready = false;

  constructor(root: HTMLElement) {
    this.pick = h("select", { "aria-label": "Instruction", title: "The instruction whose fragments to show" });
    this.pick.addEventListener("change", () => {
      this.key = this.pick.value;
      stored("ptxplay.frag", this.key);
      this.lane = null;
      this.render();
    });
    this.body = h("div.frag-body");
    this.info = h("div.frag-info", { role: "status" });
    const bar = h("div.toolbar.frag-bar",
      h("label.field", h("span.field-label", "instruction"), this.pick),
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
      this.lane = g ? (this.lane === Number(g.dataset.lane) ? null : Number(g.dataset.lane)) : null;
      this.highlight(this.lane, g);
    });
  }

  /** The tab was shown: fetch the table once, then draw. */
  shown(): void {
    if (this.ready) return;
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

  /** Shows the instruction with this key (e.g. from the editor). */
  show(key: string): void {
    this.key = key;
    if (this.ready) {
      this.pick.value = key;
      this.render();
    }
  }

  private current(): FragInstr | undefined {
    return this.table.find((f) => f.key === this.key);
  }

  private render(): void {
    const f = this.current();
    if (!f) {
      setChildren(this.body, h("p.empty", this.table.length ? "Pick an instruction." : "No fragment layouts are available."));
      setChildren(this.info);
      return;
    }
    setChildren(this.body, f.operands.map((op) => h("figure.frag-op",
      h("figcaption", h("b", op.name.toUpperCase()), ` ${op.rows}×${op.cols} .${op.type} · ${op.regs} register${op.regs === 1 ? "" : "s"} per lane`,
        op.addrLanes ? h("span.muted", ` · row r from the address in lane ${op.addrLanes[0]}+r`) : null),
      operandSVG(op))));
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
    const parts = f.operands.map((op) => {
      const n = op.elems.filter((e) => e[0] === lane).length;
      return `${op.name.toUpperCase()} ${n}`;
    });
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
    out.append(svg("style", {}, ".frag-axis{font:10px sans-serif;fill:#666}.frag-lane{font:bold 10px sans-serif;fill:#fff}.frag-reg{font:10px monospace;fill:#fff}.cap{font:bold 13px sans-serif;fill:#222}"));
    out.append(svg("text", { x: 0, y: 14, class: "cap" }, f.key));
    y = 24;
    for (const op of f.operands) {
      const s = operandSVG(op);
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
