// The register table's rows and cells: a row per register (grouped by
// width) or a row per lane, with each register's name, format menu and 32
// lane cells, and the 8×4 lane grid of one register (the warp watch and the
// editor's hover).

import type { Model } from "./model";
import { h } from "./dom";
import { describeValue, fmtLabels, formatValue, formatsFor, typeBits } from "./format";
import type { AddrRange, Fmt } from "./format";
import { laneState, laneTitle } from "./warps";

/** registers: a row per register; lanes: a row per lane. */
export type Orient = "registers" | "lanes";

export type Group = "pred" | "32" | "64";

export interface RegRow {
  kind: "reg" | "pred";
  slot: number;
  name: string;
  type: string;
  bits: number;
  group: Group;
  /** The register's row (register-major only). */
  tr: HTMLTableRowElement | null;
  nameCell: HTMLElement;
  fmtCell: HTMLElement;
  cells: HTMLElement[];
  sel: HTMLSelectElement | null;
  shown: string[];
}

const groupLabels: Record<Group, string> = { pred: "predicates", "32": "32-bit", "64": "64-bit" };

function groupOf(kind: "reg" | "pred", bits: number): Group {
  return kind === "pred" ? "pred" : bits > 32 ? "64" : "32";
}

function optLabel(f: Fmt, bits: number): string {
  return f === "auto" && bits >= 64 ? "auto" : fmtLabels[f];
}

/** A register's row, its cells not made yet. */
export function newRow(kind: "reg" | "pred", slot: number, name: string, type: string): RegRow {
  const bits = kind === "pred" ? 1 : typeBits(type);
  return {
    kind, slot, name, type, bits, group: groupOf(kind, bits),
    tr: null, nameCell: h("th"), fmtCell: h("td"), cells: [], sel: null, shown: [],
  };
}

/** Creates the cells of a register (its name, its format menu, its lanes);
 * fmt is its format, formatChanged is called when its menu changes it. */
export function makeCells(row: RegRow, orient: Orient, fmt: Fmt, formatChanged: (f: Fmt) => void): void {
  const { kind, name, type, bits } = row;
  row.nameCell = h("th.reg-name", { "data-name": name, title: `${name} .${type} — click to watch across lanes`, scope: orient === "registers" ? "row" : "col" });
  row.sel = null;
  if (orient === "lanes") {
    // A column is as wide as its values: the type instead of a menu
    // (the toolbar's menu sets every register's format).
    row.nameCell.append(h("span.reg-label", name), h("span.reg-type", `.${type}`));
    row.fmtCell = row.nameCell;
  } else {
    row.nameCell.textContent = name;
    if (kind === "reg") {
      const sel = h("select.tiny", { "aria-label": `Format of ${name}`, title: bits >= 64 ? `.${type}; auto: small values in decimal, addresses as buffer+offset, the rest in hex` : `.${type}` },
        formatsFor(bits).map((f) => h("option", { value: f }, optLabel(f, bits))));
      sel.value = fmt;
      sel.addEventListener("change", () => formatChanged(sel.value as Fmt));
      row.sel = sel;
    }
    row.fmtCell = h("td.reg-fmt", row.sel ?? h("span.muted", ".pred"));
  }
  row.cells = [];
  row.shown = [];
  for (let l = 0; l < 32; l++) row.cells.push(h("td", { class: `val w${bits > 32 ? 64 : bits === 1 ? 1 : 32}`, "data-lane": l, "data-reg": name, "data-bits": bits }));
}

/** Builds the table(s) of rows (their cells made) in an orientation, with
 * the lane header cells of each lane (one per table). */
export function buildTables(rows: RegRow[], orient: Orient): { tables: HTMLTableElement[]; headCells: HTMLElement[][] } {
  const headCells: HTMLElement[][] = Array.from({ length: 32 }, () => []);
  const tables: HTMLTableElement[] = [];
  const laneHead = (l: number, scope: "col" | "row"): HTMLElement => {
    const th = h("th.lane-h", { scope, "data-lane": l }, String(l));
    headCells[l].push(th);
    return th;
  };
  if (orient === "registers") {
    for (const g of ["pred", "32", "64"] as Group[]) {
      const gr = rows.filter((r) => r.group === g);
      if (!gr.length) continue;
      const narrow = g === "32" && gr.some((r) => r.bits < 32);
      const head = h("tr",
        h("th.reg-corner", { scope: "col", title: "Registers of this width; click a name to watch it across lanes" }, narrow ? "≤32-bit" : groupLabels[g]),
        h("th.reg-fmt-h", { scope: "col" }, "format"));
      for (let l = 0; l < 32; l++) head.appendChild(laneHead(l, "col"));
      const body = h("tbody");
      for (const r of gr) {
        r.tr = h("tr", r.nameCell, r.fmtCell, r.cells);
        body.appendChild(r.tr);
      }
      tables.push(h("table.regs", { "data-orient": "registers", "data-group": g }, h("thead", head), body));
    }
  } else {
    const head = h("tr", h("th.reg-corner", { scope: "col" }, "lane"));
    for (const r of rows) {
      r.tr = null;
      head.appendChild(r.nameCell);
    }
    const body = h("tbody");
    for (let l = 0; l < 32; l++) body.appendChild(h("tr", laneHead(l, "row"), rows.map((r) => r.cells[l])));
    if (rows.length) tables.push(h("table.regs", { "data-orient": "lanes" }, h("thead", head), body));
  }
  return { tables, headCells };
}

/** A 8×4 grid of a register's lanes in format fmt (the warp watch and the
 * editor's hover); laneCls: each lane's state class (null: from the warp). */
export function laneGrid(r: { kind: "reg" | "pred"; slot: number; name: string; type: string; bits: number }, laneCls: string[] | null, m: Model, fmt: Fmt, ranges: AddrRange[]): HTMLElement {
  const grid = h("div.lane-grid");
  const stale = !m.regsOf || m.regsOf.cta !== m.sel.cta || m.regsOf.warp !== m.sel.warp;
  const changed = r.kind === "pred" ? m.changedPreds.get(r.slot) ?? 0 : m.changedLanes.get(r.slot) ?? 0;
  const w = m.selectedWarp();
  for (let l = 0; l < 32; l++) {
    let text = "·";
    let title = laneTitle(m, m.sel.cta, m.sel.warp, l);
    if (!stale) {
      if (r.kind === "pred") {
        const v = m.preds.get(r.slot);
        if (v !== undefined) text = v & (1 << l) ? "true" : "false";
      } else {
        const hex = m.regs.get(r.slot)?.[l];
        if (hex !== undefined) {
          text = formatValue(hex, r.bits, fmt, ranges);
          title += "\n" + describeValue(hex, r.bits, ranges);
        }
      }
    }
    let cls = laneCls ? laneCls[l] : "";
    if (!laneCls && w) {
      const st = laneState(w, l, 0);
      cls = st === "active" || st === "barrier" ? "" : ` l-${st}`;
    }
    grid.appendChild(h("div", { class: "lane-cell" + cls + (changed & (1 << l) ? " chg" : ""), title },
      h("span.lane-no", String(l)), h("span.lane-val", text)));
  }
  return grid;
}

/** The warp watch's head: the register, its type and format, and a close button. */
export function watchHead(r: { kind: "reg" | "pred"; name: string; type: string; bits: number }, fmt: Fmt, close: () => void): HTMLElement {
  return h("div.watch-head",
    h("span.watch-title", "Warp watch "),
    h("code", r.name),
    h("span.muted", ` .${r.type} · ${r.kind === "pred" ? "predicate" : optLabel(fmt, r.bits)} · all 32 lanes of the selected warp`),
    h("span.spacer"),
    h("button.icon", { type: "button", title: "Close the watch", "aria-label": "Close the watch", onclick: close }, "×"));
}
