// The registers view: the selected warp's registers × 32 lanes with typed
// formatting, the values the last step changed highlighted, and a "warp
// watch" of one register across all lanes.
//
// Two layouts: register-major (a row per register, a column per lane; the
// registers grouped by width, so that a 32-bit register never gets the
// column width of a 64-bit one) and lane-major (a row per lane, a column
// per register, each as wide as its own type needs). Every value cell
// shows its lane number; hovering a cell names the thread and CTA. Rows and
// cells: regtable.ts; register pages: regpager.ts; formats: regsstate.ts.

import type { Change, Model } from "./model";
import type { RegInfo, PredInfo } from "./proto";
import { h, setChildren, setClass, setText, stored } from "./dom";
import { addressRanges, allFormats, describeValue, fmtLabels, formatValue } from "./format";
import type { AddrRange, Fmt } from "./format";
import { faultLanesOf, laneState, laneTitle } from "./warps";
import { isFmtChoice, regFormat } from "./regsstate";
import type { FmtChoice, RegsViewState } from "./regsstate";
import { buildTables, laneGrid, makeCells, newRow, watchHead } from "./regtable";
import type { Group, Orient, RegRow } from "./regtable";
import { RegPager } from "./regpager";

export type { RegsViewState } from "./regsstate";
export { parseRegsView } from "./regsstate";
export type { Orient } from "./regtable";

const STORE = "ptxplay.regfmt";
const ORIENT = "ptxplay.regorient";

export class RegsView {
  private scroller: HTMLElement;
  private tables: HTMLTableElement[] = [];
  /** The lane header cells of each lane (one per table). */
  private headCells: HTMLElement[][] = [];
  private rows: RegRow[] = [];
  private title: HTMLElement;
  private watchBox: HTMLElement;
  private filterInput: HTMLInputElement;
  private globalSel: HTMLSelectElement;
  private onlyChanged: HTMLInputElement;
  private orientBtns: HTMLButtonElement[];
  private empty: HTMLElement;
  /** The page control of a paged register file (hidden otherwise). */
  private pager: RegPager;
  private filterNote: HTMLElement;
  private global: FmtChoice = "auto";
  private perReg = new Map<string, Fmt>();
  private ranges: AddrRange[] = [];
  private titlesOf = "";
  orient: Orient = "registers";
  watched: string | null = null;

  /** visible: whether the registers tab is shown (a hidden tab renders when
   * shown); selectPage asks the server for a page of a paged register file. */
  constructor(root: HTMLElement, private readonly model: Model, private readonly visible: () => boolean,
    selectPage: (page: number) => void = () => {}) {
    try {
      const saved = JSON.parse(stored(STORE) ?? "{}") as { global?: FmtChoice };
      if (saved.global && (saved.global === "auto" || saved.global === "decimal" || allFormats.includes(saved.global))) this.global = saved.global;
    } catch {
      // No saved preference.
    }
    if (stored(ORIENT) === "lanes") this.orient = "lanes";
    this.title = h("span.pane-sub");
    this.globalSel = h("select.small", { "aria-label": "Format of all registers", title: "Format of every register (auto: by its declared type)" },
      h("option", { value: "auto" }, "auto (by type)"),
      h("option", { value: "hex" }, "hex"),
      h("option", { value: "decimal" }, "decimal"),
      h("optgroup", { label: "every register as" },
        allFormats.filter((f) => f !== "hex").map((f) => h("option", { value: f }, fmtLabels[f]))));
    this.globalSel.value = this.global;
    this.globalSel.addEventListener("change", () => {
      this.global = this.globalSel.value as FmtChoice;
      this.perReg.clear();
      stored(STORE, JSON.stringify({ global: this.global }));
      for (const r of this.rows) if (r.sel) r.sel.value = this.fmtOf(r);
      this.render(true);
    });
    this.filterInput = h("input.small", { type: "search", placeholder: "filter %r…", "aria-label": "Filter registers", size: 9 });
    this.filterInput.addEventListener("input", () => this.applyFilter());
    this.filterNote = h("span.reg-filter-note.muted", { hidden: true });
    this.pager = new RegPager(model, selectPage);
    this.onlyChanged = h("input", { type: "checkbox", "aria-label": "Only registers changed by the last step" });
    this.onlyChanged.addEventListener("change", () => this.applyFilter());
    this.orientBtns = (["registers", "lanes"] as Orient[]).map((o) => h("button.seg-btn", {
      type: "button", "data-orient": o,
      title: o === "registers" ? "A row per register, a column per lane" : "A row per lane, a column per register",
      onclick: () => this.setOrient(o),
    }, o));
    const bar = h("div.toolbar",
      this.title,
      this.pager.el,
      h("span.spacer"),
      this.filterInput,
      this.filterNote,
      h("label.check", { title: "Show only the registers the last step changed" }, this.onlyChanged, "changed"),
      h("span.seg", { role: "group", "aria-label": "Rows of the register table" }, h("span.seg-label", "rows"), this.orientBtns),
      h("label.inline", "format ", this.globalSel));
    this.watchBox = h("div.watch", { hidden: true });
    this.scroller = h("div.regs-scroll");
    this.empty = h("p.empty", "Compile and step to see the selected warp's registers.");
    setChildren(root, bar, this.watchBox, this.scroller, this.empty);
    this.scroller.addEventListener("click", (e) => {
      const t = e.target as HTMLElement;
      if (t.closest("select")) return;
      const nameCell = t.closest<HTMLElement>("th.reg-name");
      if (nameCell?.dataset.name) this.watch(this.watched === nameCell.dataset.name ? null : nameCell.dataset.name);
    });
    // Tooltips: who the lane is, and every interpretation of its value,
    // computed on demand.
    this.scroller.addEventListener("mouseover", (e) => {
      const td = (e.target as HTMLElement).closest<HTMLElement>("td.val");
      if (!td || td.dataset.hex === undefined) return;
      const m = this.model;
      const key = `${td.dataset.hex}/${td.dataset.bits}/${m.sel.cta}:${m.sel.warp}`;
      if (td.dataset.tip === key) return;
      td.dataset.tip = key;
      const lane = Number(td.dataset.lane);
      td.title = `${td.dataset.reg} · ${laneTitle(m, m.sel.cta, m.sel.warp, lane)}\n` + describeValue(td.dataset.hex, Number(td.dataset.bits), this.ranges);
    });
    this.markOrient();
    model.subscribe((c) => this.update(c));
  }

  /** What a change means here: a new program rebuilds the rows (the
   * editor's register hover reads them, shown or not); the registers, the
   * selection or the warps' states update the cells in place while the tab
   * is shown; with no program, anything that changes the hint shows it. */
  private update(c: Set<Change>): void {
    if (c.has("loaded") || c.has("regPage")) {
      this.loaded();
      return;
    }
    if (!this.visible()) return;
    if (c.has("regs") || c.has("selection") || c.has("warps")) this.render();
    else if (!this.model.loaded && (c.has("status") || c.has("diagnostics") || c.has("source") || c.has("conn"))) this.render();
  }

  /** The tab was shown: everything again, and the faulting lane of the selected warp in view. */
  shown(): void {
    this.render(true);
    const f = this.model.fault;
    if (f?.lane !== undefined && f.warp === this.model.sel.warp) this.revealLane(f.lane);
  }

  private fmtOf(r: { name: string; type: string; bits: number }): Fmt {
    return this.perReg.get(r.name) ?? regFormat(this.global, r.type, r.bits);
  }

  /** Switches between a row per register and a row per lane. */
  setOrient(o: Orient): void {
    if (o === this.orient) return;
    this.orient = o;
    stored(ORIENT, o);
    this.markOrient();
    this.build();
    this.render(true);
  }

  private markOrient(): void {
    for (const b of this.orientBtns) {
      const on = b.dataset.orient === this.orient;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      setClass(b, "seg-btn" + (on ? " on" : ""));
    }
  }

  /** Rebuilds the table for a newly loaded program or register page. */
  private loaded(): void {
    const m = this.model.loaded;
    this.rows = [];
    this.ranges = addressRanges(m);
    if (m) {
      const preds: PredInfo[] = this.model.pagePreds;
      const regs: RegInfo[] = this.model.pageRegs;
      for (const p of preds) this.rows.push(newRow("pred", p.slot, p.name, "pred"));
      for (const r of regs) this.rows.push(newRow("reg", r.slot, r.name, r.type));
    }
    if (this.watched && !this.rows.some((r) => r.name === this.watched)) this.watched = null;
    this.renderPager();
    this.build();
    if (this.visible()) this.render(true);
  }

  /** The page control, and the filter's placeholder, for the loaded program. */
  private renderPager(): void {
    const m = this.model;
    const pages = m.regPages();
    this.filterInput.placeholder = pages > 1 ? `filter page ${m.regPage + 1}…` : "filter %r…";
    this.pager.render();
  }

  /** Builds the table(s) in the current orientation. */
  private build(): void {
    this.titlesOf = "";
    for (const r of this.rows) {
      makeCells(r, this.orient, this.fmtOf(r), (f) => {
        this.perReg.set(r.name, f);
        r.shown = [];
        this.render(true);
      });
    }
    ({ tables: this.tables, headCells: this.headCells } = buildTables(this.rows, this.orient));
    setChildren(this.scroller, this.tables);
    this.applyFilter();
  }

  private applyFilter(): void {
    const f = this.filterInput.value.trim().toLowerCase();
    const only = this.onlyChanged.checked;
    const m = this.model;
    const shownGroups = new Set<Group>();
    for (const r of this.rows) {
      const changed = r.kind === "pred" ? m.changedPreds.has(r.slot) : m.changedRegs.has(r.slot) || m.changedLanes.has(r.slot);
      const show = (!f || r.name.toLowerCase().includes(f)) && (!only || changed);
      if (show) shownGroups.add(r.group);
      if (r.tr) {
        r.tr.hidden = !show;
      } else if (r.nameCell.hidden === show) {
        r.nameCell.hidden = !show;
        for (const c of r.cells) c.hidden = !show;
      }
    }
    for (const t of this.tables) if (t.dataset.group) t.hidden = !shownGroups.has(t.dataset.group as Group);
    // A paged register file is filtered one page at a time: say which.
    const pages = m.regPages();
    const note = pages > 1 && (f || only);
    this.filterNote.hidden = !note;
    if (note) setText(this.filterNote, (shownGroups.size ? "" : "none ") + `on page ${m.regPage + 1}/${pages}`);
  }

  render(force = false): void {
    const m = this.model;
    const has = !!m.loaded && this.rows.length > 0;
    this.scroller.hidden = !has;
    this.empty.hidden = has;
    if (!m.loaded) {
      setText(this.empty, m.hint);
      setText(this.title, "");
      this.watchBox.hidden = true;
      return;
    }
    const c = m.ctas.get(m.sel.cta);
    const w = m.selectedWarp();
    if (!this.rows.length || !w) {
      this.scroller.hidden = true;
      this.empty.hidden = false;
      this.watchBox.hidden = true;
      setText(this.title, "");
      setText(this.empty, !this.rows.length ? "This kernel declares no registers."
        : m.status === "done" ? "Every thread has exited, so no warp is left to inspect: step back (p) or drag the timeline to see earlier registers."
        : "No warp selected: click a warp.");
      return;
    }
    setText(this.title, `CTA ${c?.linear ?? m.sel.cta} · warp ${m.sel.warp}`);
    const fl = c ? faultLanesOf(m.fault, c, w.warp) : 0;
    const laneCls: string[] = [];
    const who = `${m.sel.cta}:${c?.linear}:${m.sel.warp}`;
    const titles = who !== this.titlesOf;
    this.titlesOf = who;
    for (let l = 0; l < 32; l++) {
      const st = laneState(w, l, fl);
      laneCls.push(st === "active" || st === "barrier" ? "" : ` l-${st}`);
      const title = titles ? laneTitle(m, m.sel.cta, m.sel.warp, l) : "";
      for (const th of this.headCells[l]) {
        setClass(th, "lane-h" + laneCls[l]);
        if (titles) th.title = title;
      }
    }
    const stale = !m.regsOf || m.regsOf.cta !== m.sel.cta || m.regsOf.warp !== m.sel.warp;
    for (const r of this.rows) {
      const changed = r.kind === "pred" ? m.changedPreds.get(r.slot) ?? 0 : m.changedLanes.get(r.slot) ?? 0;
      const rowChanged = changed !== 0 || (r.kind === "reg" && m.changedRegs.has(r.slot));
      setClass(r.nameCell, "reg-name" + (rowChanged ? " chg" : "") + (this.watched === r.name ? " watched" : ""));
      if (r.kind === "pred") {
        const v = m.preds.get(r.slot);
        for (let l = 0; l < 32; l++) {
          const td = r.cells[l];
          const text = v === undefined || stale ? "·" : v & (1 << l) ? "1" : "0";
          setText(td, text);
          setClass(td, "val w1 pred" + (text === "1" ? " p-on" : "") + laneCls[l] + (changed & (1 << l) ? " chg" : ""));
          td.dataset.hex = v === undefined ? "" : (v >>> l) & 1 ? "1" : "0";
        }
        continue;
      }
      const vals = stale ? undefined : m.regs.get(r.slot);
      const fmt = this.fmtOf(r);
      if (r.sel && r.sel.value !== fmt) r.sel.value = fmt;
      const wcls = r.bits > 32 ? "val w64" : "val w32";
      for (let l = 0; l < 32; l++) {
        const td = r.cells[l];
        const hex = vals?.[l];
        const key = hex === undefined ? "" : hex + "/" + fmt;
        if (force || r.shown[l] !== key) {
          r.shown[l] = key;
          setText(td, hex === undefined ? "·" : formatValue(hex, r.bits, fmt, this.ranges));
          if (hex !== undefined) td.dataset.hex = hex;
          else delete td.dataset.hex;
        }
        setClass(td, wcls + laneCls[l] + (changed & (1 << l) ? " chg" : ""));
      }
    }
    if (this.onlyChanged.checked) this.applyFilter();
    this.renderWatch(laneCls);
  }

  /** What a share link keeps: the formats, the watched register, the filter. */
  viewState(): RegsViewState | undefined {
    const v: RegsViewState = {};
    if (this.global !== "auto") v.format = this.global;
    if (this.perReg.size) v.formats = Object.fromEntries([...this.perReg].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (this.watched) v.watch = this.watched;
    if (this.filterInput.value.trim()) v.filter = this.filterInput.value;
    if (this.onlyChanged.checked) v.changed = true;
    return Object.keys(v).length ? v : undefined;
  }

  /** Restores what viewState returned (a share link's view), leaving the reader's saved preferences as they are. */
  restoreView(v: RegsViewState): void {
    this.global = isFmtChoice(v.format) ? v.format : "auto";
    this.globalSel.value = this.global;
    this.perReg.clear();
    for (const [name, fmt] of Object.entries(v.formats ?? {})) {
      if ((allFormats as string[]).includes(fmt)) this.perReg.set(name, fmt as Fmt);
    }
    for (const r of this.rows) {
      if (r.sel) r.sel.value = this.fmtOf(r);
      r.shown = [];
    }
    this.watched = v.watch && this.rows.some((r) => r.name === v.watch) ? v.watch : null;
    this.filterInput.value = v.filter ?? "";
    this.onlyChanged.checked = v.changed === true;
    this.render(true);
    this.applyFilter();
  }

  /** Scrolls a lane's column (or, lane-major, its row) into view. */
  revealLane(lane: number): void {
    const th = this.headCells[lane]?.find((x) => x.offsetParent !== null);
    if (!th) return;
    const box = this.scroller.getBoundingClientRect();
    const c = th.getBoundingClientRect();
    if (this.orient === "lanes") {
      const head = this.scroller.querySelector<HTMLElement>("thead")?.offsetHeight ?? 24;
      if (c.top < box.top + head || c.bottom > box.bottom) this.scroller.scrollTop += c.top - box.top - head;
      return;
    }
    const sticky = (this.scroller.querySelector<HTMLElement>("th.reg-name")?.offsetWidth ?? 60) + 8;
    if (c.left < box.left + sticky || c.right > box.right) this.scroller.scrollLeft += c.left - box.left - sticky;
  }

  watch(name: string | null): void {
    this.watched = name;
    this.render(false);
  }

  private renderWatch(laneCls: string[]): void {
    const r = this.watched ? this.rows.find((x) => x.name === this.watched) : undefined;
    if (!r) {
      this.watchBox.hidden = true;
      return;
    }
    this.watchBox.hidden = false;
    setChildren(this.watchBox, watchHead(r, this.fmtOf(r), () => this.watch(null)), this.laneGrid(r, laneCls, this.model));
  }

  /** A 8×4 grid of a register's lanes (also used by the editor's hover). */
  laneGrid(r: { kind: "reg" | "pred"; slot: number; name: string; type: string; bits: number }, laneCls: string[] | null, m: Model): HTMLElement {
    return laneGrid(r, laneCls, m, this.fmtOf(r), this.ranges);
  }

  /** Hover content for a register name in the editor. */
  hover(name: string): HTMLElement | null {
    const m = this.model;
    const r = this.rows.find((x) => x.name === name);
    if (!r || !m.loaded) return null;
    if (!m.regsOf) return null;
    return h("div.hover-regs",
      h("div.hover-meta", `.${r.type} in CTA ${m.ctas.get(m.sel.cta)?.linear ?? m.sel.cta} warp ${m.sel.warp}`),
      this.laneGrid(r, null, m));
  }

  /** Slot info for a register name. */
  has(name: string): boolean {
    return this.rows.some((r) => r.name === name);
  }

  /** Re-applies the filter after a step (for "changed only"). */
  refilter(): void {
    this.applyFilter();
  }
}
