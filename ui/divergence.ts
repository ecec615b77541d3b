// The Divergence tab: for the selected warp, the kernel's control-flow
// graph with the warp's block and the reconvergence points, its
// reconvergence stack, and a timeline of its active lanes per instruction
// (SIMT efficiency). Opening the tab asks the session for the divergence
// data (docs/protocol.md); the editor's lane shading comes from the same
// data (app.ts).

import { h, setChildren } from "./dom";
import { mask32 } from "./format";
import type { Change, Model, ProgramScoped } from "./model";
import type { CfgBlock, WarpThreads } from "./proto";
import { laneStrip, pickText, schedBar, stackLaneNotes, threadsView, type SchedHooks } from "./threads";
import { rangeName, rangeShort } from "./srcline";

const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...kids: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const k of kids) el.append(k);
  return el;
}

function popc(x: number): number {
  let n = 0;
  for (x >>>= 0; x; x &= x - 1) n++;
  return n;
}

/** The efficiency class of an active-lane count: eff-4 (all 32) down to eff-0 (under 8). */
function effClass(active: number): string {
  return `eff-${active >= 32 ? 4 : Math.max(0, Math.min(3, Math.floor(active / 8)))}`;
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function lineRange(b: CfgBlock): string {
  return rangeShort(b.firstLine, b.lastLine, b.firstCudaLine, b.lastCudaLine);
}

export class DivergenceView implements ProgramScoped {
  private dirty = true;

  constructor(
    private readonly el: HTMLElement,
    private readonly model: Model,
    private readonly visible: () => boolean,
    private readonly hooks: { want: () => void; seek: (step: number) => void; goto: (line: number) => void; sched: SchedHooks },
  ) {
    model.scope(this);
    model.subscribe((c: Set<Change>) => {
      if (c.has("divergence") || c.has("warps") || c.has("loaded") || c.has("selection") || c.has("regs") || c.has("threads") || c.has("compare")) {
        this.dirty = true;
        if (this.visible()) this.render();
      }
    });
  }

  /** Another program: drawn again from what the model holds of the new one. */
  programChanged(): void {
    // Drawn even while hidden: the old program's steps must not wait there.
    this.dirty = true;
    this.render();
  }

  /** The tab was shown: from now on the session sends the divergence data. */
  shown(): void {
    this.hooks.want();
    this.render();
  }

  render(): void {
    if (!this.dirty && this.el.childElementCount) return;
    this.dirty = false;
    const m = this.model;
    const cfg = m.loaded?.cfg;
    if (!m.loaded || !cfg) {
      setChildren(this.el, h("p.empty", "Load a kernel to see its control-flow graph and how its warps diverge."));
      return;
    }
    const keep = this.el.querySelector(".div-cfg")?.scrollTop ?? -1;
    const w = m.selectedWarp();
    const c = m.ctas.get(m.sel.cta);
    const who = `CTA ${c?.linear ?? m.sel.cta} warp ${m.sel.warp}`;
    const d = m.divergence;
    const notes: HTMLElement[] = [];
    if (cfg.truncated) notes.push(h("p.div-note", `The graph shows the first ${cfg.maxBlocks.toLocaleString("en-US")} basic blocks only.`));
    if (d?.truncated) notes.push(h("p.div-note", `Lane counts stop at step ${d.upTo.toLocaleString("en-US")}: the trace holds at most that many warp-instructions.`));
    if (d && d.from > 0) notes.push(h("p.div-note", `Lane counts start at step ${d.from.toLocaleString("en-US")}, the earliest step the history keeps.`));

    const summary = this.summary(d, who);
    const timeline = this.timeline(d);
    const th = m.threads;
    const indep = m.scheduling === "independent";
    const mine = th && th.cta === m.sel.cta && th.warp === m.sel.warp ? th : null;
    const stack = indep && mine ? threadsView(mine, who, this.hooks.goto) : this.stack(w, who, mine);
    const graph = this.graph(cfg.blocks, w?.pc ?? -1, w?.stack ?? []);
    setChildren(this.el,
      h("div.div-top", schedBar(m, this.hooks.sched), summary, timeline, stack),
      notes,
      h("div.div-cfg", { "aria-label": "Control-flow graph" }, graph));
    const box = this.el.querySelector(".div-cfg");
    if (box && keep >= 0) box.scrollTop = keep;
    const cur = this.el.querySelector<SVGElement>(".cfg-block.cur");
    if (cur && box) {
      const y = Number(cur.dataset.y ?? 0);
      if (y < box.scrollTop || y > box.scrollTop + box.clientHeight - 40) box.scrollTop = Math.max(0, y - box.clientHeight / 3);
    }
    const tl = this.el.querySelector(".div-timeline");
    if (tl) tl.scrollLeft = tl.scrollWidth;
  }

  private summary(d: typeof this.model.divergence, who: string): HTMLElement {
    if (!d) return h("p.div-summary.muted", "Counting lanes…");
    const steps = d.timeline.active.length;
    const lanes = d.timeline.active.reduce((a, b) => a + b, 0);
    let all = 0, allWarps = 0;
    for (const l of d.lines) {
      all += l.lanes;
      allWarps += l.warps;
    }
    return h("p.div-summary",
      h("span", { class: "div-eff", "data-eff": steps ? (lanes / (32 * steps)).toFixed(4) : "" },
        `SIMT efficiency of ${who}: `, h("strong", steps ? pct(lanes / (32 * steps)) : "—"),
        steps ? ` over its last ${steps} instruction${steps === 1 ? "" : "s"}` : " (no instructions yet)"),
      allWarps ? h("span.muted", ` · all warps: ${pct(all / (32 * allWarps))} of ${allWarps.toLocaleString("en-US")} warp-instructions`) : null);
  }

  /** One bar per instruction of the warp: its active lanes; a click seeks there. */
  private timeline(d: typeof this.model.divergence): HTMLElement {
    const box = h("div.div-timeline", { role: "group", "aria-label": "Active lanes per instruction of the selected warp" });
    if (!d || !d.timeline.steps.length) {
      box.append(h("span.muted", "Step the warp to draw its active lanes per instruction."));
      return box;
    }
    const t = d.timeline;
    const BW = 7, H = 48, TOP = 4, MARK = 8;
    const width = t.steps.length * BW + 2;
    const root = svg("svg", { width, height: TOP + H + MARK, viewBox: `0 0 ${width} ${TOP + H + MARK}`, class: "tl-svg" });
    root.append(svg("line", { x1: 0, x2: width, y1: TOP, y2: TOP, class: "tl-full" }));
    for (let i = 0; i < t.steps.length; i++) {
      const a = t.active[i], step = t.steps[i];
      const line = this.model.lineOf(t.pcs[i]);
      const bh = Math.max(1, (a / 32) * H);
      const x = 1 + i * BW;
      const g = svg("g", {
        class: `tl-bar ${effClass(a)}${step === this.model.step ? " cur" : ""}`,
        "data-step": step, "data-active": a, "data-pc": t.pcs[i], tabindex: -1,
      },
      svg("title", {}, `step ${step.toLocaleString("en-US")}${line ? `, line ${line}` : ""}: ${a} of 32 lanes active` +
        (t.marks[i] & 1 ? " · the warp split here" : "") + (t.marks[i] & 2 ? " · lanes reconverged" : "")),
      svg("rect", { x, y: 0, width: BW, height: TOP + H + MARK, class: "tl-hit" }),
      svg("rect", { x: x + 0.5, y: TOP + H - bh, width: BW - 1.5, height: bh, class: "tl-fill" }));
      if (t.marks[i] & 1) g.append(svg("path", { d: `M${x} ${TOP + H + 1}h${BW - 1}l${-(BW - 1) / 2} ${MARK - 2}z`, class: "tl-split" }));
      if (t.marks[i] & 2) g.append(svg("path", { d: `M${x} ${TOP + H + MARK - 1}h${BW - 1}l${-(BW - 1) / 2} ${-(MARK - 2)}z`, class: "tl-join" }));
      g.addEventListener("click", () => this.hooks.seek(step));
      root.append(g);
    }
    box.append(root);
    return box;
  }

  /** The selected warp's reconvergence stack, top first, its last issue
   * and why each lane waits (SIMT stack). */
  private stack(w: ReturnType<Model["selectedWarp"]>, who: string, th: WarpThreads | null): HTMLElement {
    const st = w?.stack ?? [];
    const m = this.model;
    const link = (pc: number) => {
      const line = pc >= 0 ? m.lineOf(pc) : undefined;
      return pc < 0 ? h("span.muted", "exit") : line ? h("button.linklike", { type: "button", onclick: () => this.hooks.goto(line), title: `pc ${pc}` }, `line ${line}`) : h("span", `pc ${pc}`);
    };
    const rows = st.slice().reverse().map((e, i) =>
      h("li", { class: i === 0 ? "top" : "" },
        h("span.num", String(st.length - 1 - i)), " ", link(e.pc), h("span.muted", " until "), link(e.rpc),
        h("span.muted", ` · ${popc(mask32(e.mask))} lane${popc(mask32(e.mask)) === 1 ? "" : "s"}`)));
    return h("div.div-stack", { "data-scheduling": m.scheduling ?? "" },
      h("span.stack-title", `Reconvergence stack of ${who}`),
      st.length ? h("ol.div-stack-list", { reversed: true }, rows) : h("span.muted", " (empty)"),
      th ? h("p.tg-last", pickText(th)) : null,
      th && m.scheduling === "simt-stack" ? laneStrip(stackLaneNotes(th)) : null);
  }

  /** The control-flow graph: blocks in pc order, fall-through edges straight down, jumps as arcs. */
  private graph(blocks: CfgBlock[], pc: number, stack: { rpc: number; mask: string }[]): SVGSVGElement {
    const BW = 168, BH = 30, GAP = 16, LEFT = 56, TOP = 8, HEAD = 16;
    const pending = new Map<number, number>(); // block start pc -> lanes waiting to rejoin there
    for (const e of stack) if (e.rpc >= 0) pending.set(e.rpc, (pending.get(e.rpc) ?? 0) + popc(mask32(e.mask)));
    const rejoin = new Map<number, number[]>(); // reconvergence pc -> branch lines
    for (const b of blocks) {
      if (b.divergent && b.reconv !== undefined && b.reconv >= 0) {
        const l = rejoin.get(b.reconv) ?? [];
        l.push(b.lastLine);
        rejoin.set(b.reconv, l);
      }
    }
    const multi = new Set(blocks.map((b) => b.func)).size > 1;
    const ys: number[] = [];
    let y = TOP;
    blocks.forEach((b, i) => {
      if (multi && (i === 0 || blocks[i - 1].func !== b.func)) y += HEAD;
      ys.push(y);
      y += BH + GAP;
    });
    let lanesR = 0, lanesL = 0;
    const edges: SVGElement[] = [];
    blocks.forEach((b, i) => {
      for (const s of b.succ) {
        if (s < 0) continue;
        const cls = `cfg-edge${b.divergent ? " div" : ""}`;
        if (s === i + 1 && blocks[s].func === b.func) {
          edges.push(svg("line", { x1: LEFT + BW / 2, y1: ys[i] + BH, x2: LEFT + BW / 2, y2: ys[s] - 1, class: cls, "marker-end": "url(#cfg-arrow)" }));
        } else if (s > i) {
          const x = LEFT + BW + 10 + (lanesR++ % 6) * 7;
          edges.push(svg("path", { d: `M${LEFT + BW} ${ys[i] + BH - 8}H${x}V${ys[s] + 8}H${LEFT + BW + 2}`, class: cls, "marker-end": "url(#cfg-arrow)" }));
        } else {
          const x = LEFT - 10 - (lanesL++ % 5) * 7;
          edges.push(svg("path", { d: `M${LEFT} ${ys[i] + BH - 8}H${x}V${ys[s] + 8}H${LEFT - 2}`, class: `${cls} back`, "marker-end": "url(#cfg-arrow)" }));
        }
      }
    });
    const width = LEFT + BW + 10 + 6 * 7 + 60;
    const root = svg("svg", { width, height: y, viewBox: `0 0 ${width} ${y}`, class: "cfg-svg", role: "img", "aria-label": `Control-flow graph: ${blocks.length} basic blocks` });
    root.append(svg("defs", {}, svg("marker", { id: "cfg-arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M0 0L8 4L0 8z", class: "cfg-arrowhead" }))));
    for (const e of edges) root.append(e);
    blocks.forEach((b, i) => {
      const y0 = ys[i];
      if (multi && (i === 0 || blocks[i - 1].func !== b.func)) root.append(svg("text", { x: LEFT, y: y0 - 5, class: "cfg-func" }, b.func));
      const cur = pc >= b.first && pc <= b.last;
      const joins = rejoin.get(b.first);
      const wait = pending.get(b.first);
      const g = svg("g", {
        class: `cfg-block${cur ? " cur" : ""}${b.divergent ? " divergent" : ""}${joins ? " reconv" : ""}${wait ? " pending" : ""}`,
        "data-block": i, "data-first": b.first, "data-last": b.last, "data-y": y0,
      });
      const tip = [`${rangeName(b.firstLine, b.lastLine, b.firstCudaLine, b.lastCudaLine)} (pcs ${b.first}–${b.last})`];
      if (b.branch !== undefined) tip.push(b.divergent ? `ends with a branch that can split the warp; lanes rejoin at ${b.reconv !== undefined && b.reconv >= 0 ? `line ${this.model.lineOf(b.reconv) ?? "?"}` : "exit"}` : "ends with a uniform branch");
      if (joins) tip.push(`reconvergence point of the branch${joins.length > 1 ? "es" : ""} at line ${joins.join(", ")}`);
      if (wait) tip.push(`${wait} lane${wait === 1 ? "" : "s"} of the selected warp will rejoin here`);
      if (cur) tip.push("the selected warp is here");
      if (b.succ.includes(-1)) tip.push("leaves the function");
      g.append(svg("title", {}, tip.join("\n")));
      g.append(svg("rect", { x: LEFT, y: y0, width: BW, height: BH, rx: 4, class: "cfg-box" }));
      g.append(svg("text", { x: LEFT + 8, y: y0 + BH / 2 + 4, class: "cfg-label" }, lineRange(b) + (b.succ.includes(-1) ? " → exit" : "")));
      if (b.divergent) g.append(svg("text", { x: LEFT + BW - 8, y: y0 + BH / 2 + 4, "text-anchor": "end", class: "cfg-tag" }, "split?"));
      if (joins) {
        g.append(svg("path", { d: `M${LEFT - 1} ${y0 - 6}l6 6l-6 6l-6 -6z`, class: "cfg-reconv" }));
      }
      if (wait) g.append(svg("text", { x: LEFT - 14, y: y0 + 4, "text-anchor": "end", class: "cfg-wait" }, `${wait}`));
      if (cur) g.append(svg("text", { x: LEFT + BW + 10 + 6 * 7 + 4, y: y0 + BH / 2 + 4, class: "cfg-here" }, "◀ here"));
      g.addEventListener("click", () => this.hooks.goto(b.firstLine));
      root.append(g);
    });
    return root;
  }
}
