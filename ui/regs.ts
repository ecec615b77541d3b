// The registers view: the selected warp's registers × 32 lanes with typed
// formatting, the values the last step changed highlighted, and a "warp
// watch" of one register across all lanes.

import type { Model } from "./model";
import type { RegInfo, PredInfo } from "./proto";
import { h, setChildren, setClass, setText } from "./dom";
import { allFormats, defaultFmt, describeValue, fmtLabels, formatValue, formatsFor, typeBits } from "./format";
import type { Fmt } from "./format";
import { faultLaneOf, laneState } from "./warps";

type FmtChoice = Fmt | "auto";

interface RegRow {
  kind: "reg" | "pred";
  slot: number;
  name: string;
  type: string;
  bits: number;
  tr: HTMLTableRowElement;
  nameCell: HTMLElement;
  cells: HTMLElement[];
  sel: HTMLSelectElement | null;
  shown: string[];
}

const STORE = "ptxplay.regfmt";

export class RegsView {
  private table: HTMLTableElement;
  private tbody: HTMLTableSectionElement;
  private headCells: HTMLElement[] = [];
  private rows: RegRow[] = [];
  private title: HTMLElement;
  private watchBox: HTMLElement;
  private filterInput: HTMLInputElement;
  private globalSel: HTMLSelectElement;
  private onlyChanged: HTMLInputElement;
  private scroller: HTMLElement;
  private empty: HTMLElement;
  private global: FmtChoice = "auto";
  private perReg = new Map<string, Fmt>();
  watched: string | null = null;

  constructor(root: HTMLElement, private readonly model: Model) {
    try {
      const saved = JSON.parse(localStorage.getItem(STORE) ?? "{}") as { global?: FmtChoice };
      if (saved.global && (saved.global === "auto" || allFormats.includes(saved.global))) this.global = saved.global;
    } catch {
      // No saved preference.
    }
    this.title = h("span.pane-sub");
    this.globalSel = h("select.small", { "aria-label": "Format of all registers", title: "Format of every register (auto: by its declared type)" },
      h("option", { value: "auto" }, "auto (by type)"),
      allFormats.map((f) => h("option", { value: f }, fmtLabels[f])));
    this.globalSel.value = this.global;
    this.globalSel.addEventListener("change", () => {
      this.global = this.globalSel.value as FmtChoice;
      this.perReg.clear();
      localStorage.setItem(STORE, JSON.stringify({ global: this.global }));
      for (const r of this.rows) if (r.sel) r.sel.value = this.fmtOf(r);
      this.render(true);
    });
    this.filterInput = h("input.small", { type: "search", placeholder: "filter %r…", "aria-label": "Filter registers", size: 9 });
    this.filterInput.addEventListener("input", () => this.applyFilter());
    this.onlyChanged = h("input", { type: "checkbox", "aria-label": "Only registers changed by the last step" });
    this.onlyChanged.addEventListener("change", () => this.applyFilter());
    const bar = h("div.toolbar",
      this.title,
      h("span.spacer"),
      this.filterInput,
      h("label.check", { title: "Show only the registers the last step changed" }, this.onlyChanged, "changed"),
      h("label.inline", "format ", this.globalSel));
    this.watchBox = h("div.watch", { hidden: true });
    this.table = h("table.regs");
    this.tbody = h("tbody");
    this.scroller = h("div.regs-scroll", this.table);
    this.empty = h("p.empty", "Compile and step to see the selected warp's registers.");
    setChildren(root, bar, this.watchBox, this.scroller, this.empty);
    this.table.addEventListener("click", (e) => {
      const t = e.target as HTMLElement;
      const nameCell = t.closest<HTMLElement>("th.reg-name");
      if (nameCell?.dataset.name) this.watch(this.watched === nameCell.dataset.name ? null : nameCell.dataset.name);
    });
    // Tooltips with every interpretation of a value, computed on demand.
    this.table.addEventListener("mouseover", (e) => {
      const td = (e.target as HTMLElement).closest<HTMLElement>("td.val");
      if (!td || td.dataset.hex === undefined) return;
      const key = td.dataset.hex + "/" + td.dataset.bits;
      if (td.dataset.tip === key) return;
      td.dataset.tip = key;
      td.title = `${td.dataset.reg} lane ${td.dataset.lane}\n` + describeValue(td.dataset.hex, Number(td.dataset.bits));
    });
  }

  private fmtOf(r: { name: string; type: string; bits: number }): Fmt {
    const own = this.perReg.get(r.name);
    if (own) return own;
    if (this.global !== "auto") {
      const ok = formatsFor(r.bits);
      if (ok.includes(this.global)) return this.global;
      if (r.bits === 16 && (this.global === "f16x2" || this.global === "f32")) return "f16";
      if (r.bits === 16 && this.global === "bf16x2") return "bf16";
      return "hex";
    }
    return defaultFmt(r.type);
  }

  /** Rebuilds the table for a newly loaded program. */
  loaded(): void {
    const m = this.model.loaded;
    this.rows = [];
    setChildren(this.tbody);
    const head = h("tr", h("th.reg-corner", "register"), h("th.reg-fmt-h", "format"));
    this.headCells = [];
    for (let l = 0; l < 32; l++) {
      const th = h("th.lane-h", String(l));
      this.headCells.push(th);
      head.appendChild(th);
    }
    setChildren(this.table, h("thead", head), this.tbody);
    if (!m) {
      this.render(true);
      return;
    }
    const preds: PredInfo[] = m.preds ?? [];
    const regs: RegInfo[] = m.regs ?? [];
    for (const p of preds) this.addRow("pred", p.slot, p.name, "pred");
    for (const r of regs) this.addRow("reg", r.slot, r.name, r.type);
    if (this.watched && !this.rows.some((r) => r.name === this.watched)) this.watched = null;
    this.applyFilter();
    this.render(true);
  }

  private addRow(kind: "reg" | "pred", slot: number, name: string, type: string): void {
    const bits = kind === "pred" ? 1 : typeBits(type);
    const nameCell = h("th.reg-name", { "data-name": name, title: `${name} .${type} — click to watch across lanes`, scope: "row" }, name);
    let sel: HTMLSelectElement | null = null;
    const fmtCell = h("td.reg-fmt");
    const row: RegRow = { kind, slot, name, type, bits, tr: h("tr"), nameCell, cells: [], sel: null, shown: [] };
    if (kind === "reg") {
      sel = h("select.tiny", { "aria-label": `Format of ${name}`, title: `.${type}` },
        formatsFor(bits).map((f) => h("option", { value: f }, f === defaultFmt(type) ? `${fmtLabels[f]}` : fmtLabels[f])));
      sel.value = this.fmtOf(row);
      sel.addEventListener("change", () => {
        this.perReg.set(name, sel!.value as Fmt);
        row.shown = [];
        this.render(true);
      });
      fmtCell.appendChild(sel);
    } else {
      fmtCell.appendChild(h("span.muted", ".pred"));
    }
    row.sel = sel;
    const tr = row.tr;
    tr.append(nameCell, fmtCell);
    for (let l = 0; l < 32; l++) {
      const td = h("td.val", { "data-lane": l, "data-reg": name, "data-bits": bits });
      row.cells.push(td);
      tr.appendChild(td);
    }
    this.rows.push(row);
    this.tbody.appendChild(tr);
  }

  private applyFilter(): void {
    const f = this.filterInput.value.trim().toLowerCase();
    const only = this.onlyChanged.checked;
    const m = this.model;
    for (const r of this.rows) {
      const changed = r.kind === "pred" ? m.changedPreds.has(r.slot) : m.changedRegs.has(r.slot) || m.changedLanes.has(r.slot);
      const show = (!f || r.name.toLowerCase().includes(f)) && (!only || changed);
      r.tr.hidden = !show;
    }
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
    setText(this.title, w ? `CTA ${c?.linear ?? m.sel.cta} · warp ${m.sel.warp}` : "no warp selected");
    const fl = w && c ? faultLaneOf(m.fault, c, w.warp) : -1;
    const laneCls: string[] = [];
    for (let l = 0; l < 32; l++) {
      const st = w ? laneState(w, l, fl) : "none";
      laneCls.push(st === "active" || st === "barrier" ? "" : ` l-${st}`);
      setClass(this.headCells[l], "lane-h" + laneCls[l]);
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
          setClass(td, "val pred" + (text === "1" ? " p-on" : "") + laneCls[l] + (changed & (1 << l) ? " chg" : ""));
          td.dataset.hex = v === undefined ? "" : (v >>> l) & 1 ? "1" : "0";
        }
        continue;
      }
      const vals = stale ? undefined : m.regs.get(r.slot);
      const fmt = this.fmtOf(r);
      if (r.sel && r.sel.value !== fmt) r.sel.value = fmt;
      for (let l = 0; l < 32; l++) {
        const td = r.cells[l];
        const hex = vals?.[l];
        const key = hex === undefined ? "" : hex + "/" + fmt;
        if (force || r.shown[l] !== key) {
          r.shown[l] = key;
          setText(td, hex === undefined ? "·" : formatValue(hex, r.bits, fmt));
          if (hex !== undefined) td.dataset.hex = hex;
          else delete td.dataset.hex;
        }
        setClass(td, "val" + laneCls[l] + (changed & (1 << l) ? " chg" : ""));
      }
    }
    if (this.onlyChanged.checked) this.applyFilter();
    this.renderWatch(laneCls);
  }

  /** Scrolls a lane's column into view. */
  revealLane(lane: number): void {
    const th = this.headCells[lane];
    if (!th) return;
    const box = this.scroller.getBoundingClientRect();
    const c = th.getBoundingClientRect();
    const sticky = (this.table.querySelector<HTMLElement>("th.reg-name")?.offsetWidth ?? 60) + 8;
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
    const m = this.model;
    setChildren(this.watchBox,
      h("div.watch-head",
        h("span.watch-title", "Warp watch "),
        h("code", r.name),
        h("span.muted", ` .${r.type} · ${r.kind === "pred" ? "predicate" : fmtLabels[this.fmtOf(r)]} · all 32 lanes of the selected warp`),
        h("span.spacer"),
        h("button.icon", { type: "button", title: "Close the watch", "aria-label": "Close the watch", onclick: () => this.watch(null) }, "×")),
      this.laneGrid(r, laneCls, m));
  }

  /** A 8×4 grid of a register's lanes (also used by the editor's hover). */
  laneGrid(r: { kind: "reg" | "pred"; slot: number; name: string; type: string; bits: number }, laneCls: string[] | null, m: Model): HTMLElement {
    const grid = h("div.lane-grid");
    const stale = !m.regsOf || m.regsOf.cta !== m.sel.cta || m.regsOf.warp !== m.sel.warp;
    const fmt = this.fmtOf(r);
    const changed = r.kind === "pred" ? m.changedPreds.get(r.slot) ?? 0 : m.changedLanes.get(r.slot) ?? 0;
    const w = m.selectedWarp();
    for (let l = 0; l < 32; l++) {
      let text = "·";
      let title = "";
      if (!stale) {
        if (r.kind === "pred") {
          const v = m.preds.get(r.slot);
          if (v !== undefined) text = v & (1 << l) ? "true" : "false";
        } else {
          const hex = m.regs.get(r.slot)?.[l];
          if (hex !== undefined) {
            text = formatValue(hex, r.bits, fmt);
            title = describeValue(hex, r.bits);
          }
        }
      }
      let cls = laneCls ? laneCls[l] : "";
      if (!laneCls && w) {
        const st = laneState(w, l, -1);
        cls = st === "active" || st === "barrier" ? "" : ` l-${st}`;
      }
      grid.appendChild(h("div", { class: "lane-cell" + cls + (changed & (1 << l) ? " chg" : ""), title: title || null },
        h("span.lane-no", String(l)), h("span.lane-val", text)));
    }
    return grid;
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
