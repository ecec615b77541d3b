// The warps view: every resident CTA's warps as rows of 32 lane cells
// coloured by state, each warp's pc and line, and the reconvergence stack
// of the selected warp.

import type { Change, Model } from "./model";
import type { CtaState, WarpState } from "./proto";
import { h, setChildren, setClass, setText } from "./dom";
import { mask32, maskText, popc } from "./format";
import { asyncGroupLines, asyncSummary, wgmmaGroupLines, wgmmaSummary } from "./pending";
import { laneWhy, lanesText, modelName, schedBar, stackLaneNotes, threadsView, type SchedHooks } from "./threads";
import { clusterBarText, clusterTitle, clustered, idxText } from "./clusters";
import { faultLanesOf, laneState, laneTitle, waitLabel, waitWords, warpKind } from "./lanestate";
import { renderMbarriers } from "./mbarriers";
import { lineName, lineShort } from "./srcline";

export { faultLanesOf, laneLegend, laneState, laneTitle, nextWarpTitle, sameIdx, threadIdx, waitLabel, warpKind, type LaneState } from "./lanestate";

/** A row of lane numbers aligned with the lane strips below it. */
function laneRuler(): HTMLElement {
  const nums = h("span.lanes.ruler");
  for (let l = 0; l < 32; l++) {
    if (l % 8 === 0 && l) nums.appendChild(h("span.ln-gap"));
    nums.appendChild(h("span", { class: "ln-no" + (l % 4 === 0 ? " ln-no4" : "") }, String(l)));
  }
  return h("div.lane-ruler", { "aria-hidden": "true" }, h("span.warp-name", "lane"), nums, h("span.warp-where"), h("span"));
}

interface Row {
  el: HTMLElement;
  lanes: HTMLElement[];
  where: HTMLElement;
  state: HTMLElement;
  async: HTMLElement;
  key: string;
  /** The lane titles say why each lane waits (the selected warp under independent scheduling). */
  why: boolean;
}

export class WarpsView {
  private rows = new Map<string, Row>();
  private ctaHeads = new Map<number, { el: HTMLElement; title: HTMLElement; bars: HTMLElement; mbars: HTMLElement }>();
  /** The cluster headings (by the cluster's linear index) while the CTAs are grouped by cluster. */
  private clusterHeads = new Map<number, { title: HTMLElement; bar: HTMLElement; ctas: CtaState[] }>();
  private shape = "";
  private list: HTMLElement;
  private stack: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly model: Model,
    private readonly select: (cta: number, warp: number) => void,
    private readonly gotoLine: (line: number) => void,
    private readonly sched: SchedHooks,
    /** The Divergence tab is shown: it holds the scheduling details, and this panel only sums them up. */
    private readonly divergenceShown: () => boolean = () => false,
  ) {
    this.list = h("div.warps-list", { role: "listbox", "aria-label": "Warps" });
    this.stack = h("div.warps-stack");
    setChildren(root, this.list, this.stack);
    this.list.addEventListener("click", (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>("[data-warp]");
      if (!row) return;
      this.select(Number(row.dataset.cta), Number(row.dataset.warp));
    });
    this.showEmpty();
    model.subscribe((c) => this.update(c));
  }

  /** What a change means here: a new program rebuilds the rows; the warps,
   * the selection, a fault or the status update them in place; with no
   * program, anything that changes the hint shows it again. */
  private update(c: Set<Change>): void {
    if (c.has("loaded")) this.loaded();
    if (c.has("loaded") || c.has("warps") || c.has("selection") || c.has("fault") || c.has("status") || c.has("threads") || c.has("compare")) this.render();
    else if (!this.model.loaded && (c.has("diagnostics") || c.has("source") || c.has("conn"))) this.render();
  }

  private showEmpty(): void {
    this.shape = "";
    this.rows.clear();
    this.ctaHeads.clear();
    this.clusterHeads.clear();
    setChildren(this.list, h("p.empty", this.model.hint));
    setChildren(this.stack);
  }

  /** A new (or remapped) program: the rows are built again on the next render. */
  private loaded(): void {
    if (this.model.loaded) this.shape = "\u0000";
    else this.showEmpty();
  }

  render(): void {
    const m = this.model;
    if (!m.loaded) {
      this.showEmpty();
      return;
    }
    const ctas = m.sortedCtas();
    const shape = (clustered(m) ? "c" : "") + ctas.map((c) => `${c.cta}/${c.linear}:${c.warps.map((w) => w.warp).join(",")}`).join("|");
    if (shape !== this.shape) this.build(ctas, shape);
    for (const [k, head] of this.clusterHeads) {
      head.ctas = ctas.filter((c) => c.clusterLinear === k);
      this.updateCluster(head);
    }
    for (const c of ctas) {
      this.updateCta(c);
      for (const w of c.warps) this.updateRow(c, w);
    }
    this.renderStack();
  }

  private build(ctas: CtaState[], shape: string): void {
    this.shape = shape;
    this.rows.clear();
    this.ctaHeads.clear();
    this.clusterHeads.clear();
    const parts: HTMLElement[] = [];
    // With clusters of several CTAs, each cluster's CTAs go in one group
    // under the cluster's heading (its CTAs are resident together, in rank order).
    const byCluster = clustered(this.model);
    let group: HTMLElement | null = null;
    let groupOf = -1;
    if (ctas.length) parts.push(laneRuler());
    if (!ctas.length) {
      const m = this.model;
      const done = m.status === "done" || m.finishedCTAs >= m.totalCTAs && m.totalCTAs > 0;
      parts.push(h("p.empty", done ? "Every CTA has finished." : "No resident CTAs."));
    }
    for (const c of ctas) {
      let out = parts;
      if (byCluster) {
        if (!group || groupOf !== c.clusterLinear) {
          const title = h("span.cluster-title");
          const bar = h("span.cluster-bar");
          group = h("div.cluster-group", { role: "group", "data-cluster": c.clusterLinear }, h("div.cluster-head", title, bar));
          groupOf = c.clusterLinear;
          this.clusterHeads.set(groupOf, { title, bar, ctas: [] });
          parts.push(group);
        }
        out = [];
      }
      const title = h("span.cta-title");
      const bars = h("span.cta-bars");
      const head = h("div.cta-head", title, bars);
      const mbars = h("div.cta-mbars");
      this.ctaHeads.set(c.cta, { el: head, title, bars, mbars });
      out.push(head, mbars);
      for (const w of c.warps) {
        const lanes: HTMLElement[] = [];
        const laneBox = h("span.lanes", { "aria-hidden": "true" });
        for (let l = 0; l < 32; l++) {
          const cell = h("span.ln", { "data-lane": l, title: laneTitle(this.model, c.cta, w.warp, l) });
          if (l % 8 === 0 && l) laneBox.appendChild(h("span.ln-gap"));
          laneBox.appendChild(cell);
          lanes.push(cell);
        }
        const where = h("span.warp-where");
        const state = h("span.warp-state");
        const async = h("span.warp-async");
        const el = h("div.warp-row", { role: "option", "data-cta": c.cta, "data-warp": w.warp, tabindex: "-1" },
          h("span.warp-name", `w${w.warp}`), laneBox, where, h("span.warp-state-box", state, async));
        const key = `${c.cta}:${w.warp}`;
        this.rows.set(key, { el, lanes, where, state, async, key, why: false });
        out.push(el);
      }
      if (group && out !== parts) group.append(...out);
    }
    setChildren(this.list, parts);
  }

  private updateCluster(head: { title: HTMLElement; bar: HTMLElement; ctas: CtaState[] }): void {
    setText(head.title, clusterTitle(this.model, head.ctas));
    setText(head.bar, clusterBarText(head.ctas));
  }

  private updateCta(c: CtaState): void {
    const head = this.ctaHeads.get(c.cta);
    if (!head) return;
    const idx = c.idx ?? [c.linear, 0, 0];
    const dims = this.model.loaded?.grid ?? [1, 1, 1];
    setText(head.title, `CTA ${idxText(idx, dims)}` + (this.model.totalCTAs > 1 ? ` · #${c.linear}` : "") + (clustered(this.model) ? ` · rank ${c.rank}` : ""));
    const bars = (c.barriers ?? []).filter((b) => b.arrived > 0 || (b.waiting?.length ?? 0) > 0);
    // A barrier without a count waits for every live thread of the CTA.
    let live = 0;
    for (const w of c.warps) live += popc(mask32(w.valid) & ~mask32(w.exited));
    setText(head.bars, bars.map((b) => `barrier ${b.id}: ${b.arrived} of ${b.expected || live} threads arrived` +
      (b.waiting?.length ? ` · waiting: ${b.waiting.map((w) => `w${w}`).join(" ")}` : "")).join("  ·  "));
    renderMbarriers(head.mbars, c);
  }

  private updateRow(c: CtaState, w: WarpState): void {
    const row = this.rows.get(`${c.cta}:${w.warp}`);
    if (!row) return;
    const m = this.model;
    const fl = faultLanesOf(m.fault, c, w.warp);
    const last = m.last && m.last.cta === c.cta && m.last.warp === w.warp ? mask32(m.last.execMask) : 0;
    for (let l = 0; l < 32; l++) {
      const st = laneState(w, l, fl);
      // A lane of another thread group is inactive too (it does not execute the next instruction).
      setClass(row.lanes[l], (st === "turn" || st === "wait" ? `ln ln-inactive ln-${st}` : `ln ln-${st}`) + (last & (1 << l) ? " ln-exec" : ""));
    }
    const sel = m.sel.cta === c.cta && m.sel.warp === w.warp;
    // The selected warp's lanes say why they wait: the thread groups'
    // reasons under independent scheduling, the stack's under the SIMT stack.
    const th = sel && m.threads?.cta === c.cta && m.threads.warp === w.warp ? m.threads : null;
    const why = !th ? null : m.scheduling === "simt-stack" ? new Map(stackLaneNotes(th).map((n) => [n.lane, n.text]))
      : new Map(th.lanes.map((lw) => [lw.lane, laneWhy(th, lw)]));
    if (why || row.why) {
      for (let l = 0; l < 32; l++) {
        const text = why?.get(l);
        row.lanes[l].title = laneTitle(m, c.cta, w.warp, l) + (text ? `\n${text}` : "");
      }
      row.why = !!why;
    }
    const next = m.next && m.next.cta === c.cta && m.next.warp === w.warp;
    const kind = warpKind(w);
    setClass(row.el, "warp-row" + (sel ? " sel" : "") + (next ? " next" : "") + ` wk-${kind}`);
    row.el.setAttribute("aria-selected", sel ? "true" : "false");
    const exited = kind === "exited";
    setText(row.where, exited || w.line <= 0 ? "" : w.cudaLine ? lineShort(w.line, w.cudaLine) : `line ${w.line} · pc ${w.pc}`);
    const act = popc(mask32(w.active) & ~mask32(w.exited));
    const mbarName = (off: string) => c.mbarriers?.find((b) => parseInt(b.offset, 16) === parseInt(off, 16))?.name;
    // Thread groups that wait while the warp's other groups run (independent scheduling).
    const gw = kind === "ready" ? (w.groupWaits ?? []) : [];
    const label = kind === "ready" ? `${act}/${popc(mask32(w.valid))} active` + gw.map((t) => ` · ${lanesText(mask32(t.lanes))} ${waitWords(t, undefined, mbarName)}`).join("")
      : kind === "barrier" || kind === "waiting" ? waitLabel(w, mbarName) : w.state;
    setText(row.state, label);
    const groups = w.groups?.length ?? 0;
    row.state.title = groups > 1 ? `${groups} thread groups (independent scheduling)` : "";
    row.el.dataset.groups = String(groups);
    // Copies in flight: the warp's asynchronous state.
    const inFlight = asyncSummary(w.async);
    const wgFlight = wgmmaSummary(w.wgmma);
    setText(row.async, [inFlight, wgFlight].filter(Boolean).join(" · "));
    row.async.hidden = !inFlight && !wgFlight;
    row.async.dataset.wgmma = wgFlight ? "1" : "0";
    if (inFlight || wgFlight) row.el.classList.add("async");
    row.el.title = `CTA ${c.linear}${clustered(m) ? ` (rank ${c.rank} of its cluster)` : ""}, warp ${w.warp}: ${w.wait ? `waiting for ${w.wait.text}` : w.state}` + (w.line > 0 ? `, ${lineName(w.line, w.cudaLine)}` : "") +
      gw.map((t) => `\n${lanesText(mask32(t.lanes))} wait for ${t.text} (${lineName(t.line, t.cudaLine)})`).join("") +
      `\nactive ${maskText(mask32(w.active))}, exited ${maskText(mask32(w.exited))}` +
      (inFlight ? `\ncp.async: ${inFlight}\n` + asyncGroupLines(w.async).join("\n") : "") +
      (wgFlight ? `\n${wgFlight}\n` + wgmmaGroupLines(w.wgmma).join("\n") : "");
  }

  /** The inspector's tab changed: the scheduling details move between this panel and the Divergence tab. */
  tabShown(): void {
    if (this.model.loaded) this.renderStack();
  }

  /** One line in place of the scheduling bar and the groups (or the stack)
   * while the Divergence tab shows them in full. */
  private schedSummary(w: WarpState | undefined, who: string): HTMLElement | null {
    const m = this.model;
    if (!m.loaded || !m.scheduling) return null;
    const indep = m.scheduling === "independent";
    const parts: (string | HTMLElement)[] = [h("strong", indep ? "Independent thread scheduling" : "SIMT stack")];
    const th = m.threads && m.threads.cta === m.sel.cta && m.threads.warp === m.sel.warp ? m.threads : null;
    if (w && indep && th) {
      const n = th.groups.length;
      const waiting = th.groups.filter((g) => g.state !== "runnable").reduce((a, g) => a | mask32(g.lanes), 0);
      parts.push(` · ${who}: ${n} thread group${n === 1 ? "" : "s"}` + (waiting ? `, ${lanesText(waiting)} waiting` : ""));
    } else if (w) {
      const d = w.stack?.length ?? 0;
      parts.push(` · ${who}: ${d} stack entr${d === 1 ? "y" : "ies"}`);
    }
    const c = m.compare;
    if (m.comparing) parts.push(" · comparing the models…");
    else if (c && !c.cancelled) parts.push(h("span", { class: c.same ? "muted" : "sched-differ" }, c.same ? " · same results under both models" : " · the models' results differ"));
    parts.push(h("span.muted", " — see the Divergence tab"));
    return h("p.sched-summary", { "data-scheduling": m.scheduling, title: `How the divergent paths of a warp are scheduled: ${modelName(m.scheduling)}` }, parts);
  }

  private renderStack(): void {
    const m = this.model;
    const w = m.selectedWarp();
    const c = m.ctas.get(m.sel.cta);
    const who = `CTA ${c?.linear ?? m.sel.cta} warp ${m.sel.warp}`;
    const brief = this.divergenceShown();
    const bar = brief ? this.schedSummary(w, who) : schedBar(m, this.sched);
    if (!w) {
      setChildren(this.stack, bar);
      return;
    }
    const stack = w.stack ?? [];
    const rows = stack.slice().reverse().map((e, i) => {
      const mk = mask32(e.mask);
      const lineOf = (pc: number) => (pc < 0 ? undefined : m.lineOf(pc));
      const pcLine = lineOf(e.pc);
      const rLine = lineOf(e.rpc);
      const cells = h("span.lanes.lanes-mini", { "aria-hidden": "true" });
      for (let l = 0; l < 32; l++) {
        if (l % 8 === 0 && l) cells.appendChild(h("span.ln-gap"));
        cells.appendChild(h("span", { class: "ln " + (mk & (1 << l) ? "ln-active" : "ln-off") }));
      }
      const lineLink = (line: number | undefined, pc: number) =>
        pc < 0 ? h("span.muted", "—") : line ? h("button.linklike", { type: "button", onclick: () => this.gotoLine(line), title: `pc ${pc}` }, `line ${line}`) : h("span", `pc ${pc}`);
      return h("tr", { class: i === 0 ? "top" : "" },
        h("td.num", String(stack.length - 1 - i)),
        h("td", lineLink(pcLine, e.pc)),
        h("td", lineLink(rLine, e.rpc)),
        h("td", cells),
        h("td.mono", maskText(mk)),
        h("td.num", String(popc(mk))));
    });
    const a = w.async;
    const asyncBox = a?.copies ? h("div.warp-async-detail", { "aria-label": "Copies in flight" },
      h("div.stack-head", h("span.stack-title", `cp.async in flight · ${asyncSummary(a)}`),
        h("span.muted", " they land at the thread's cp.async.wait_group / wait_all, or when it exits")),
      h("table.stack-table.async-table",
        h("thead", h("tr", h("th", "group"), h("th", "state"), h("th", "copies"), h("th", "bytes"), h("th", "lanes"), h("th", "issued by"), h("th", "source → destination"))),
        h("tbody", a.groups.map((g) => {
          const items = a.items.filter((it) => it.group === g.group && it.committed === g.committed);
          const dst = items.length ? `shared ${Math.min(...items.map((it) => it.dst))}…${Math.max(...items.map((it) => it.dst + it.size)) - 1}` : "";
          const src = items.length ? `0x${items[0].src}` + (items.length > 1 ? ` (+${items.length - 1})` : "") : "";
          return h("tr", { "data-group": g.group, "data-committed": g.committed ? "1" : "0" },
            h("td.num", String(g.group)),
            h("td", g.committed ? "committed" : "open"),
            h("td.num", String(g.copies)),
            h("td.num", String(g.bytes)),
            h("td.mono", maskText(mask32(g.lanes))),
            h("td", g.lines.map((l, i) => [i ? ", " : "", h("button.linklike", { type: "button", onclick: () => this.gotoLine(l) }, `line ${l}`)])),
            h("td.mono", src && dst ? `${src} → ${dst}` : ""));
        }))),
      a.more ? h("p.muted", `${a.more} more copies not listed`) : null) : null;
    const g = w.wgmma;
    const wgBox = g?.ops ? h("div.warp-async-detail.warp-wgmma-detail", { "aria-label": "wgmma results in flight" },
      h("div.stack-head", h("span.stack-title", wgmmaSummary(g)),
        h("span.muted", " the accumulators land at the warpgroup's covering wgmma.wait_group; until then they must not be read or written")),
      h("table.stack-table.async-table",
        h("thead", h("tr", h("th", "group"), h("th", "state"), h("th", "mma_async"), h("th", "issued by"))),
        h("tbody", g.groups.map((x) => h("tr", { "data-group": x.group, "data-committed": x.committed ? "1" : "0" },
          h("td.num", String(x.group)),
          h("td", x.committed ? "committed" : "open"),
          h("td.num", String(x.ops)),
          h("td", x.lines.map((l, i) => [i ? ", " : "", h("button.linklike", { type: "button", onclick: () => this.gotoLine(l) }, `line ${l}`)])))))),
      g.groupsMore ? h("p.muted", `${g.groupsMore} newer groups not listed`) : null) : null;
    if (brief) {
      setChildren(this.stack, bar, asyncBox, wgBox);
      return;
    }
    const th = m.threads;
    if (m.scheduling === "independent" && th && th.cta === m.sel.cta && th.warp === m.sel.warp) {
      setChildren(this.stack, bar, asyncBox, wgBox, threadsView(th, who, (l) => this.gotoLine(l), false));
      return;
    }
    setChildren(this.stack,
      bar,
      asyncBox,
      wgBox,
      h("div.stack-head",
        h("span.stack-title", `Reconvergence stack · ${who}`),
        h("span.muted", stack.length ? " top entry executes" : " (empty)")),
      stack.length ? h("table.stack-table",
        h("thead", h("tr", h("th", "#"), h("th", "pc"), h("th", "reconverges"), h("th", "mask"), h("th.mask-hex", ""), h("th", "lanes"))),
        h("tbody", rows)) : null);
  }

  /** Scrolls the selected warp's row into view. */
  revealSelected(): void {
    const m = this.model;
    this.rows.get(`${m.sel.cta}:${m.sel.warp}`)?.el.scrollIntoView({ block: "nearest" });
  }
}
