// The fragment explorer: for a tensor-core instruction (mma, ldmatrix,
// stmatrix, movmatrix), which lane holds which element of each operand.
// The layouts are data served by the engine (/api/fragments); each operand
// is drawn as a grid whose cells say lane and register ("T5:a2"), coloured
// by lane. Hovering a cell highlights every element of its lane; the
// picture exports as SVG or PNG. .b1 operands are drawn one cell per
// 32-bit register word; the four quad-pair products of mma.m8n8k4 as four
// labelled matrices. Live, the last execution's report (last.tensor) adds
// the lane and address of every ldmatrix/stmatrix row and the registers
// an mma read and wrote. The layout data and cell contents are in
// fragdata.ts, the SVG drawings in fragsvg.ts; this module is the view.

import { h, setChildren, download, stored } from "./dom";
import type { Change, Model, ProgramScoped } from "./model";
import type { MatrixRows, TensorOp, TensorReport } from "./proto";
import { fragmentTable, sparseCaption, typeBits, wgmmaForm, wgmmaKeys, type LiveValues, type RowNote } from "./fragdata";
import { descPicture, descView } from "./wgmmadesc";
import { colPager, operandParts, PAGE_COLS, svg, SVG } from "./fragsvg";

/** The /api/fragments types (generated from engine/isa's FragInstr). FragElem: [lane, reg, part, row, col]. */
export type { FragElem, FragOperand, SparseInfo, FragInstr } from "./api_gen";
import type { FragOperand, FragInstr } from "./api_gen";
import { lineName } from "./srcline";

export interface FragmentsHooks {
  /** Show a register's lane in the registers view (a click on a live cell). */
  gotoRegister(slot: number, lane: number): void;
  /** Ask for the descriptor view of the wgmma.mma_async at pc (the model's `wgmma`). */
  wgmma(pc: number): void;
}

/** The explorer's view (a tab of the inspectors). Static: any form of the
 * table. Live: an instruction of the loaded kernel, with the selected
 * warp's register values; it follows the last tensor instruction executed. */
export class FragmentsView implements ProgramScoped {
  private table: FragInstr[] = [];
  /** The wgmma.mma_async forms fetched so far (each is served on its own). */
  private wgForms = new Map<string, FragInstr>();
  /** The last descriptor view asked for: pc, step and warp. */
  private wgAsked = "";
  private key = stored("ptxplay.frag") ?? "";
  /** The kernel's instruction shown live (pc), or -1. */
  private livePC = -1;
  private lane: number | null = null;
  /** The page of columns drawn of an operand wider than PAGE_COLS. */
  private colPage = 0;
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
      this.colPage = 0;
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
    if (this.visible() && this.livePC >= 0 && (c.has("regs") || c.has("selection") || c.has("loaded") || c.has("status") || c.has("wgmma"))) this.render();
  }

  private fillKernel(): void {
    const ops = this.model.loaded?.tensorOps ?? [];
    setChildren(this.kernelPick,
      h("option", { value: "-1" }, ops.length ? "—" : "(none)"),
      ops.map((o) => h("option", { value: String(o.pc) }, `${lineName(o.line, o.cudaLine)} · ${o.key}`)));
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
    if (v.lane !== undefined && v.lane >= 0 && v.lane < 128) this.lane = v.lane;
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
    void Promise.all([fragmentTable(), wgmmaKeys()]).then(([t, wg]) => {
      this.table = t;
      const groups = new Map<string, FragInstr[]>();
      for (const f of t) {
        const g = groups.get(f.op) ?? [];
        g.push(f);
        groups.set(f.op, g);
      }
      setChildren(this.pick, [...groups].map(([op, fs]) => h("optgroup", { label: op }, fs.map((f) => h("option", { value: f.key }, f.key)))),
        wg.length ? h("optgroup", { label: "wgmma.mma_async (warpgroup)" }, wg.map((k) => h("option", { value: k }, k))) : null);
      if (!t.some((f) => f.key === this.key) && !wg.includes(this.key)) this.key = t[0]?.key ?? "";
      this.pick.value = this.key;
      this.render();
    });
  }

  private current(): FragInstr | undefined {
    const key = this.key;
    const f = this.table.find((x) => x.key === key) ?? this.wgForms.get(key);
    if (!f && key.startsWith("wgmma.")) {
      void wgmmaForm(key).then((w) => {
        if (!w || this.wgForms.has(key)) return;
        this.wgForms.set(key, w);
        if (this.key === key) this.render();
      });
    }
    return f;
  }

  /** The descriptor view of the wgmma shown live: asked for once per
   * position and warp; undefined until it arrives. */
  private wgView() {
    const op = this.liveOp();
    const m = this.model;
    if (!op?.key.startsWith("wgmma.")) return undefined;
    const ask = `${op.pc}:${m.step}:${m.sel.cta}:${m.sel.warp}`;
    if (ask !== this.wgAsked && m.loaded) {
      this.wgAsked = ask;
      this.hooks.wgmma(op.pc);
    }
    return m.wgmma?.pc === op.pc ? m.wgmma : undefined;
  }

  private live(): LiveValues | undefined {
    const op = this.liveOp();
    const m = this.model;
    if (!op || !m.regsOf || m.regsOf.cta !== m.sel.cta || m.regsOf.warp !== m.sel.warp) return undefined;
    return { slots: op.regs, regs: m.regs, laneBase: op.key.startsWith("wgmma.") ? 32 * (m.sel.warp % 4) : undefined };
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
    const who = rep && last ? ` · rows and registers as CTA ${last.cta >= 0 ? last.cta : `#${last.linear}`} warp ${last.warp} executed it` : op && !op.key.startsWith("wgmma.") ? " · its row addresses and registers show right after it executes" : "";
    const wgLive = live?.laneBase !== undefined ? ` (threads ${live.laneBase}–${live.laneBase + 31} of its warpgroup: select another of its warps for their rows${this.model.selectedWarp()?.wgmma ? "; D keeps its old values until the wgmma.wait_group lands the results in flight" : ""})` : "";
    const caption = op ? h("p.frag-live", h("b", lineName(op.line, op.cudaLine)), live ? ` · values of CTA ${this.model.sel.cta} warp ${this.model.sel.warp} now${wgLive} (click a cell for its register)` : " · select a warp to see its values", who) : null;
    const regs = rep?.operands?.length
      ? h("p.frag-regs", rep.operands.map((o) => h("span.frag-regop", { "data-operand": o.name, "data-write": o.write ? "1" : "0" },
        h("b", `${o.write ? "wrote" : "read"} ${o.name.toUpperCase()}`), " ", h("code", o.regs.map((r) => this.regName(r)).join(" ")))))
      : null;
    const a = f.operands.find((o) => o.name === "a");
    const sparse = f.sparse && a ? h("p.frag-live", sparseCaption(f.sparse, a.rows, a.cols)) : null;
    const wg = op && op.key === f.key ? this.wgView() : undefined;
    const wgWho = `CTA ${this.model.sel.cta} warp ${this.model.sel.warp}`;
    setChildren(this.body, caption, sparse, regs, this.shownOperands(f).map((o) => {
      const m = this.matrixOf(o, rep);
      const page = o.cols > PAGE_COLS ? Math.min(this.colPage, Math.ceil(o.cols / PAGE_COLS) - 1) : 0;
      const parts = operandParts(f, o, live, { ...(m ? { rows: this.rowNotes(m) } : {}), ...(o.cols > PAGE_COLS ? { colBase: page * PAGE_COLS, colCount: Math.min(PAGE_COLS, o.cols - page * PAGE_COLS) } : {}) });
      return h("figure.frag-op", { "data-operand": o.name },
        h("figcaption", h("b", o.name.toUpperCase()), ` ${o.rows}×${o.cols} .${o.type} · ${o.regs} register${o.regs === 1 ? "" : "s"} per lane`,
          typeBits(o.type) === 1 ? h("span.muted", " · one cell per 32-bit register word (hover for its bits)") : null,
          parts.length > 1 ? h("span.muted", ` · ${parts.length} independent products, one per quad pair`) : null,
          colPager(o.cols, page, (p) => { this.colPage = p; this.render(); }),
          o.addrLanes && !m ? h("span.muted", ` · row r from the address in lane ${o.addrLanes[0]}+r`) : null,
          f.op === "wgmma.mma_async" && o.name === "a" ? h("span.muted", " · when A is in registers (else from shared memory, by its descriptor)") : null,
          m ? h("span.frag-dest", { "data-reg": this.regName(m.reg) }, m.write ? " · loaded into " : " · stored from ", h("code", this.regName(m.reg)), ` (register ${m.index} of the vector)`) : null),
        parts.length === 1 ? parts[0].svg : h("div.frag-groups", parts.map((p) => h("figure.frag-group", h("figcaption", p.title ?? ""), p.svg))));
    }), wg ? descView(wg, wgWho) : op?.key.startsWith("wgmma.") && op.key === f.key ? h("p.muted.wg-wait", "Reading the descriptors…") : null);
    this.highlight(this.lane, null);
  }

  /** The operands drawn: a wgmma shown live whose A comes from shared memory draws no register A. */
  private shownOperands(f: FragInstr): FragOperand[] {
    const op = this.liveOp();
    return op?.key === f.key && f.op === "wgmma.mma_async" && !op.regs.a ? f.operands.filter((o) => o.name !== "a") : f.operands;
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
    for (const op of this.shownOperands(f)) {
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
    const wg = this.liveOp()?.key === f.key ? this.wgView() : undefined;
    if (wg) {
      const r = descPicture(wg, out, y);
      y = r.y;
      width = Math.max(width, r.width);
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
    if (op) parts.push(lineName(op.line, op.cudaLine));
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
