// The memory view: each global buffer and the selected CTA's shared memory
// as a table of typed elements, paged, with the elements whose bytes the
// last step's lanes touched highlighted (exactly: each lane's bytes, the
// lane numbers on hover). The table of a page is built once and updated in
// place as the memory changes. Shared memory can also show as its 32 banks
// (banks.ts).

import type { Change, Model, MemRegion, ProgramScoped } from "./model";
import { elemSize } from "./model";
import type { Access, CtaState } from "./proto";
import { h, setChildren, setClass } from "./dom";
import { BankView } from "./banks";
import { pendingRanges } from "./pending";
import { clusterPeers } from "./clusters";
import { PAGE_BYTES, buildGrid, fillGrid, hitsOf, setTip, tipKey, type Grid, type Hit, type MemTab } from "./memtable";
import { sharedType, viewTypes, type MemoryViewState } from "./memviewstate";
import { barControls } from "./membar";

export { parseMemoryView, sharedType, type MemoryViewState } from "./memviewstate";

export class MemoryView implements ProgramScoped {
  private tabsEl: HTMLElement;
  private bar: HTMLElement;
  private body: HTMLElement;
  private tabs: MemTab[] = [];
  private current = "";
  private page = 0;
  private viewType = new Map<string, string>();
  private hex = false;
  private follow = true;
  private pending = new Set<string>();
  private epoch = 0;
  private cols = 8;
  private lastTouchSig = "";
  private grid: Grid | null = null;
  /** What the toolbar was built for. */
  private barOf = "";
  /** Shared memory shows as its 32 banks rather than as a table. */
  private banks = false;
  private bankView: BankView | null = null;
  /** The CTA (linear) picked in the shared-memory CTA list; null: the selected warp's. */
  private sharedPeer: number | null = null;

  /** visible: whether the memory tab is shown (a hidden tab renders when shown). */
  constructor(
    private readonly root: HTMLElement,
    private readonly model: Model,
    private readonly visible: () => boolean,
    /** cta: the resident CTA (slot) whose shared memory to read; the selected warp's by default. */
    private readonly request: (space: "global" | "shared", buffer: string | undefined, offset: number, bytes: number, cta?: number) => void,
  ) {
    this.tabsEl = h("div.mem-tabs", { role: "tablist", "aria-label": "Memory regions" });
    this.bar = h("div.toolbar.mem-bar");
    this.body = h("div.mem-body");
    setChildren(root, h("div.mem-head", this.tabsEl, this.bar), this.body);
    this.tabsEl.addEventListener("click", (e) => {
      const b = (e.target as HTMLElement).closest<HTMLElement>("[data-key]");
      if (!b?.dataset.key) return;
      this.current = b.dataset.key;
      this.page = 0;
      this.render();
    });
    new ResizeObserver(() => {
      if (!this.visible()) return;
      const c = this.fitCols();
      if (c !== this.cols) {
        this.cols = c;
        this.render();
      }
    }).observe(root);
    this.body.addEventListener("mouseover", (e) => {
      const td = (e.target as HTMLElement).closest<HTMLElement>("td.val");
      if (!td || (!td.dataset.hex && !td.dataset.lanes)) return;
      if (td.dataset.tip === tipKey(td)) return;
      setTip(td);
    });
    model.scope(this);
    model.subscribe((c) => this.update(c));
  }

  /** Another program: its own regions, from their start. */
  programChanged(): void {
    this.page = 0;
    this.lastTouchSig = "";
    this.pending.clear();
    this.loaded();
  }

  /** What a change means here: a new program gives new region tabs; memory
   * contents, touches or the selection (whose CTA's shared memory shows)
   * update the table while the tab is shown; with no program, anything that
   * changes the hint shows it. */
  private update(c: Set<Change>): void {
    if (c.has("loaded")) this.loaded();
    if (this.model.memEpoch !== this.epoch) {
      // The model dropped its memory: requests in flight are for old bytes.
      this.epoch = this.model.memEpoch;
      this.pending.clear();
    }
    if (!this.visible()) return;
    // Copies in flight (a marking layer over shared memory) change with the warps.
    if (c.has("loaded") || c.has("memory") || c.has("selection") || (c.has("warps") && this.current === "shared")) this.render();
    else if (!this.model.loaded && (c.has("status") || c.has("diagnostics") || c.has("source") || c.has("conn"))) this.render();
  }

  /** What a share link keeps: the region, how it is read, Table or Banks, the page. */
  viewState(): MemoryViewState | undefined {
    const t = this.tab();
    if (!t) return undefined;
    const v: MemoryViewState = { region: t.key };
    const type = this.typeOf(t);
    if (type !== t.type) v.type = type;
    if (this.hex) v.hex = true;
    if (this.banks) v.banks = true;
    if (this.page > 0) v.page = this.page;
    return v;
  }

  /** Restores what viewState returned (a share link's view): it stands
   * for the position it was taken at, so following the last step's
   * accesses does not move away from it until the next step. */
  restoreView(v: MemoryViewState): void {
    this.hex = v.hex === true;
    this.banks = v.banks === true;
    const t = this.tabs.find((x) => x.key === v.region);
    if (t) {
      this.current = t.key;
      if (v.type && viewTypes.includes(v.type)) this.viewType.set(t.key, v.type);
      this.page = v.page ?? 0;
    }
    this.lastTouchSig = JSON.stringify(this.model.accesses) + this.model.step;
    this.barOf = "";
    if (this.visible()) this.shown();
  }

  /** The tab was shown: fit the columns to its width and render. */
  shown(): void {
    this.cols = this.fitCols();
    this.render();
  }

  private fitCols(): number {
    const w = this.root.clientWidth;
    const t = this.tab();
    const size = t ? elemSize(this.typeOf(t)) : 4;
    const cell = this.hex ? 20 + size * 16 : size >= 8 ? 140 : size >= 4 ? 72 : 52;
    const n = Math.max(1, Math.floor((w - 80) / cell));
    for (const c of [32, 16, 8, 4, 2, 1]) if (c <= n) return c;
    return 1;
  }

  private tab(): MemTab | undefined {
    return this.tabs.find((t) => t.key === this.current);
  }

  private typeOf(t: MemTab): string {
    return this.viewType.get(t.key) ?? t.type;
  }

  /** A new program: its buffers and shared memory as tabs. */
  private loaded(): void {
    const m = this.model.loaded;
    this.tabs = [];
    this.pending.clear();
    this.grid = null;
    this.barOf = "";
    if (m) {
      for (const b of m.buffers ?? []) {
        this.tabs.push({ key: `global:${b.name}`, space: "global", buffer: b.name, label: b.name, type: b.type, size: b.count * elemSize(b.type) });
      }
      if (m.sharedBytes > 0) this.tabs.push({ key: "shared", space: "shared", label: "shared", type: sharedType(m.symbols), size: m.sharedBytes });
    }
    if (!this.tabs.some((t) => t.key === this.current)) {
      this.current = this.tabs[0]?.key ?? "";
      this.page = 0;
    }
    setChildren(this.tabsEl, this.tabs.map((t) => h("button.mem-tab", { type: "button", role: "tab", "data-key": t.key, title: t.space === "shared" ? `shared memory of the selected CTA (${t.size} bytes)` : `.global ${t.type}[${t.size / elemSize(t.type)}]` },
      t.label, h("span.mem-tab-type", t.space === "shared" ? `${t.size}B` : `${t.type}[${t.size / elemSize(t.type)}]`))));
    if (this.visible()) this.cols = this.fitCols();
  }

  private region(t: MemTab): MemRegion | null {
    return this.model.region(t.space, t.buffer, this.sharedLin());
  }

  /** Renders the current region's page: the table is built again only
   * when its layout changes; otherwise its cells are updated in place. */
  render(): void {
    const m = this.model;
    for (const b of this.tabsEl.querySelectorAll<HTMLElement>("[data-key]")) {
      const on = b.dataset.key === this.current;
      b.setAttribute("aria-selected", on ? "true" : "false");
      const touched = m.accesses.some((x) => this.accessKey(x) === b.dataset.key);
      setClass(b, "mem-tab" + (on ? " on" : "") + (touched ? " touched" : ""));
    }
    // Follow the last step's accesses into the region they touched.
    const sig = JSON.stringify(m.accesses) + m.step;
    if (this.follow && m.accesses.length && !m.accesses.some((x) => this.accessKey(x) === this.current)) {
      const k = m.accesses.map((x) => this.accessKey(x)).find((key) => key && this.tabs.some((t) => t.key === key));
      if (k && sig !== this.lastTouchSig) {
        this.current = k;
        for (const b of this.tabsEl.querySelectorAll<HTMLElement>("[data-key]")) {
          const on = b.dataset.key === this.current;
          b.setAttribute("aria-selected", on ? "true" : "false");
          setClass(b, "mem-tab" + (on ? " on" : "") + " touched");
        }
      }
    }
    const t = this.tab();
    if (!m.loaded || !t) {
      this.grid = null;
      this.barOf = "";
      setChildren(this.bar);
      setChildren(this.body, h("p.empty", m.loaded ? "This launch has no buffers and no shared memory." : m.hint));
      return;
    }
    const type = this.typeOf(t);
    if (t.space === "shared" && this.banks) {
      this.renderBar(t, type, 1, Math.floor(t.size / elemSize(type)));
      this.renderBanks(t, type, sig);
      this.lastTouchSig = sig;
      return;
    }
    const size = elemSize(type);
    const count = Math.floor(t.size / size);
    const perPage = Math.max(1, Math.floor(PAGE_BYTES / size));
    const pages = Math.max(1, Math.ceil(count / perPage));
    // Follow the last step's accesses to this region onto their page.
    const hits = hitsOf(m.accesses.filter((x) => this.accessKey(x) === t.key), size);
    if (this.follow && hits.size && sig !== this.lastTouchSig) {
      const first = Math.min(...hits.keys());
      const p = Math.floor(first / perPage);
      if (p !== this.page && p >= 0 && p < pages) this.page = p;
    }
    this.lastTouchSig = sig;
    this.page = Math.max(0, Math.min(this.page, pages - 1));
    const start = this.page * perPage;
    const end = Math.min(count, start + perPage);
    const r = this.region(t);
    this.need(t, r, start * size, (end - start) * size);
    this.renderBar(t, type, pages, count);
    this.renderTable(t, r, type, start, end, hits);
  }

  /** Asks the server for the bytes [off, off+len) of a region unless they
   * are known or asked for already. */
  private need(t: MemTab, r: MemRegion | null, off: number, len: number): void {
    if (!r || len <= 0 || r.has(off, len)) return;
    const lin = this.sharedLin();
    const key = `${t.key}@${off}+${len}#${lin}`;
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.request(t.space, t.buffer, off, len, t.space === "shared" ? this.model.ctaSlot(lin) : undefined);
    window.setTimeout(() => this.pending.delete(key), 3000);
  }

  /** Shared memory as its 32 banks, with the last step's lanes. */
  private renderBanks(t: MemTab, type: string, sig: string): void {
    this.grid = null;
    const bv = (this.bankView ??= new BankView());
    if (bv.el.parentNode !== this.body) setChildren(this.body, bv.el);
    const m = this.model;
    const sel = this.sharedLin();
    const shared = m.accesses.filter((x) => x.space === "shared");
    const r = this.region(t);
    bv.render({
      region: r,
      size: t.size,
      type,
      hex: this.hex,
      accesses: shared.filter((x) => x.cta === undefined || x.cta === sel),
      op: m.last?.op ?? "",
      otherCTAs: [...new Set(shared.filter((x) => x.cta !== undefined && x.cta !== sel).map((x) => x.cta as number))],
      follow: this.follow,
      sig,
      need: (off, len) => this.need(t, r, off, len),
    });
  }

  /** The tab an access belongs to ("" for another CTA's shared memory). */
  private accessKey(x: Access): string {
    if (x.space === "shared") return (x.cta ?? this.model.selLinear()) === this.sharedLin() ? "shared" : "";
    return `global:${x.buffer ?? ""}`;
  }

  /** The toolbar: built again only when the region, its type or the page changes. */
  private renderBar(t: MemTab, type: string, pages: number, count: number): void {
    const banks = t.space === "shared" && this.banks;
    const peers = t.space === "shared" ? clusterPeers(this.model) : [];
    const touchedPeers = new Set(this.model.accesses.filter((x) => x.space === "shared" && x.cta !== undefined).map((x) => x.cta as number));
    const of = `${t.key}|${type}|${pages}|${count}|${this.page}|${t.space === "shared" ? `${this.sharedLin()}/${this.model.selLinear()}` : ""}|${banks}|` +
      peers.map((c) => `${c.linear}${touchedPeers.has(c.linear) ? "*" : ""}`).join(",");
    if (of === this.barOf) return;
    this.barOf = of;
    const controls = barControls({ shared: t.space === "shared", banks: this.banks, type, hex: this.hex, follow: this.follow, page: this.page, pages, count }, {
      type: (x) => {
        this.viewType.set(t.key, x);
        this.page = 0;
        this.cols = this.fitCols();
        this.render();
      },
      hex: (on) => {
        this.hex = on;
        this.cols = this.fitCols();
        this.render();
      },
      follow: (on) => {
        this.follow = on;
      },
      page: (p) => {
        this.page = p;
        this.render();
      },
      banks: (on) => {
        if (this.banks === on) return;
        this.banks = on;
        this.lastTouchSig = ""; // follow the last step into the other view
        this.render();
      },
    });
    setChildren(this.bar, controls,
      peers.length > 1 ? this.peerPicker(peers, touchedPeers) : h("span.muted.mem-size", t.space === "shared" ? `CTA #${this.sharedLin()}` : ""));
  }

  /** The linear index of the CTA whose shared memory shows: the CTA picked
   * in the shared-memory CTA list while it is a resident peer of the
   * selected warp's CTA in its cluster, else the selected warp's CTA. */
  sharedLin(): number {
    const own = this.model.selLinear();
    if (this.sharedPeer === null || this.sharedPeer === own) return own;
    return clusterPeers(this.model).some((c) => c.linear === this.sharedPeer) ? this.sharedPeer : own;
  }

  /** Shows the shared memory of the CTA with linear index lin (a peer of
   * the selected warp's CTA in its cluster, or that CTA itself). */
  showSharedOf(lin: number): void {
    this.sharedPeer = lin === this.model.selLinear() ? null : lin;
    this.page = 0;
    this.lastTouchSig = JSON.stringify(this.model.accesses) + this.model.step;
    this.render();
  }

  /** The list of the cluster's resident CTAs whose shared memory the tab can show. */
  private peerPicker(peers: CtaState[], touched: Set<number>): HTMLElement {
    const own = this.model.selLinear();
    const sel = h("select.small.mem-cta", { "aria-label": "Shared memory of CTA", title: "Whose shared memory to show: the selected warp's CTA or a peer CTA of its cluster (distributed shared memory). ● marks the CTAs whose shared memory the last step accessed." },
      peers.map((c) => h("option", { value: c.linear },
        `rank ${c.rank} · CTA #${c.linear}` + (c.linear === own ? " (own)" : " (peer)") + (touched.has(c.linear) ? " ●" : ""))));
    sel.value = String(this.sharedLin());
    sel.addEventListener("change", () => this.showSharedOf(Number(sel.value)));
    return h("label.inline.mem-size", "CTA ", sel);
  }

  private renderTable(t: MemTab, r: MemRegion | null, type: string, start: number, end: number, hits: Map<number, Hit>): void {
    const key = `${t.key}|${type}|${start}|${end}|${this.cols}`;
    let g = this.grid;
    if (!g || g.key !== key || g.table.parentNode !== this.body) {
      g = buildGrid(key, t, type, start, end, this.cols);
      this.grid = g;
      const scroll = this.body.scrollTop;
      setChildren(this.body, g.table);
      this.body.scrollTop = scroll;
    }
    fillGrid(g, r, type, this.hex, t.space === "shared" ? pendingRanges(this.model, this.sharedLin()) : [], hits);
    // Keep a touched cell in view.
    const hit = g.table.querySelector<HTMLElement>(".t-store, .t-load");
    if (hit && this.follow) {
      const b = this.body.getBoundingClientRect();
      const c = hit.getBoundingClientRect();
      const head = g.table.tHead?.getBoundingClientRect().height ?? 0;
      if (c.top < b.top + head) this.body.scrollTop -= b.top + head - c.top + 2;
      else if (c.bottom > b.bottom) this.body.scrollTop += c.bottom - b.bottom + 2;
    }
  }

  /** Shows shared memory as its 32 banks at a byte offset (the TMA view's tile). */
  showBanks(offset: number): void {
    this.banks = true;
    this.reveal("shared", undefined, offset);
  }

  /** Shows a region's tab, on the page of a byte offset (e.g. from the fault panel). */
  reveal(space: "global" | "shared", buffer?: string, offset?: number): void {
    const key = space === "shared" ? "shared" : `global:${buffer}`;
    const t = this.tabs.find((x) => x.key === key);
    if (!t) return;
    this.current = key;
    if (offset !== undefined) {
      const size = elemSize(this.typeOf(t));
      this.page = Math.floor(offset / size / Math.max(1, Math.floor(PAGE_BYTES / size)));
    }
    this.render();
    if (offset !== undefined && t.space === "shared" && this.banks) this.bankView?.scrollToByte(offset);
  }
}
