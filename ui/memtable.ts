// The table of one page of a memory region: its cells built once per
// region, element type, page and column layout, then updated in place (the
// values, the bytes copies in flight will write, the last step's lanes on
// the elements they touched), and the hover title of a cell.

import type { MemRegion } from "./model";
import { elemSize } from "./model";
import type { Access } from "./proto";
import { h, setClass, setText } from "./dom";
import { defaultFmt, describeValue, formatValue, leHex, typeBits } from "./format";
import { laneRanges } from "./banks";
import { pendingText, type PendingRange } from "./pending";

/** The bytes of one page of the table. */
export const PAGE_BYTES = 2048;

/** A region the memory view shows as a tab. */
export interface MemTab {
  key: string;
  space: "global" | "shared";
  buffer?: string;
  label: string;
  type: string;
  size: number;
}

/** The table of one page: built once per region, element type, page and
 * column layout; later renders (memory writes, touches, the format)
 * update its cells in place, so hover and scroll survive a run. */
export interface Grid {
  key: string;
  table: HTMLTableElement;
  /** The cell of element start+i. */
  cells: HTMLTableCellElement[];
  /** What each cell shows: null before its first render, "" unknown, else hex/format. */
  shown: (string | null)[];
  start: number;
}

/** The lanes of the last step that touched one element, by kind (lane masks). */
export interface Hit {
  load: number;
  store: number;
  atomic: number;
}

/** Builds the empty table of elements [start, end) in rows of cols. */
export function buildGrid(key: string, t: MemTab, type: string, start: number, end: number, cols: number): Grid {
  const size = elemSize(type);
  const bits = typeBits(type);
  const head = h("tr", h("th.idx-h", "index"));
  for (let c = 0; c < cols; c++) head.appendChild(h("th.col-h", `+${c}`));
  const rows: HTMLElement[] = [];
  const cells: HTMLTableCellElement[] = [];
  const rowStart = start - (start % cols);
  for (let i = rowStart; i < end; i += cols) {
    const tr = h("tr", h("th.idx", { scope: "row", title: `byte offset ${i * size} (0x${(i * size).toString(16)})` }, String(i)));
    for (let c = 0; c < cols; c++) {
      const e = i + c;
      if (e < start || e >= end) {
        tr.appendChild(h("td.val.pad"));
        continue;
      }
      const td = h("td.val", { "data-bits": bits, "data-where": `${t.label}[${e}] · byte ${e * size}` });
      cells.push(td);
      tr.appendChild(td);
    }
    rows.push(tr);
  }
  const table = h("table.mem", h("thead", head), h("tbody", rows));
  return { key, table, cells, shown: cells.map(() => null), start };
}

/** Updates the cells of g in place: values of r read as type (hex or its
 * default format: asHex), the bytes copies in flight will write (pend) and the
 * lanes of the last step that touched each element (hits). */
export function fillGrid(g: Grid, r: MemRegion | null, type: string, asHex: boolean, pend: PendingRange[], hits: Map<number, Hit>): void {
  const size = elemSize(type);
  const bits = typeBits(type);
  const fmt = asHex ? "hex" : defaultFmt(type);
  const buf = new Uint8Array(size);
  for (let i = 0; i < g.cells.length; i++) {
    const td = g.cells[i];
    const off = (g.start + i) * size;
    const known = r ? r.read(off, buf) : false;
    let cls = "val";
    // The marking layer of copies in flight: the bytes they will write.
    const pt = pend.length ? pendingText(pend, off, size) : "";
    if (pt) cls += " t-pending";
    if ((td.dataset.pending ?? "") !== pt) {
      if (pt) td.dataset.pending = pt;
      else delete td.dataset.pending;
      if (td.dataset.tip !== undefined) setTip(td);
    }
    const hit = hits.get(g.start + i);
    const lanes = hit ? hitText(hit) : "";
    if (hit) cls += hit.store || hit.atomic ? " t-store" : " t-load";
    if ((td.dataset.lanes ?? "") !== lanes) {
      if (lanes) td.dataset.lanes = lanes;
      else delete td.dataset.lanes;
      if (td.dataset.tip !== undefined) setTip(td);
    }
    if (!known) {
      if (g.shown[i] !== "") {
        g.shown[i] = "";
        setText(td, "…");
        delete td.dataset.hex;
        delete td.dataset.tip;
        td.removeAttribute("title");
      }
      setClass(td, cls + " unk");
      continue;
    }
    const hex = leHex(buf, 0, size);
    const shown = `${hex}/${fmt}`;
    if (g.shown[i] !== shown) {
      g.shown[i] = shown;
      td.dataset.hex = hex;
      setText(td, formatValue(hex, bits, fmt));
      // A cell hovered before keeps a title that tells its current value.
      if (td.dataset.tip !== undefined && td.dataset.tip !== tipKey(td)) setTip(td);
    }
    setClass(td, cls);
  }
}

/** The hover title of a value cell: where it is, the lanes of the last
 * step that touched it and every reading of its bits. */
export function setTip(td: HTMLElement): void {
  const hex = td.dataset.hex ?? "";
  td.dataset.tip = tipKey(td);
  const lanes = td.dataset.lanes ? `${td.dataset.lanes}\n` : "";
  td.title = `${td.dataset.where}\n` + lanes + (hex ? describeValue(hex, Number(td.dataset.bits)) : "not known yet") + (td.dataset.pending ? `\n${td.dataset.pending}` : "");
}

/** What a cell's hover title was made for. */
export function tipKey(td: HTMLElement): string {
  return `${td.dataset.hex ?? ""}|${td.dataset.lanes ?? ""}|${td.dataset.pending ?? ""}`;
}

/** The elements (of size bytes) whose bytes the lanes of accesses touched:
 * element index -> the lanes, by kind. Exact: each lane's own bytes, never
 * a range between lanes. */
export function hitsOf(accesses: Access[], size: number): Map<number, Hit> {
  const out = new Map<number, Hit>();
  for (const a of accesses) {
    const n = Math.max(1, a.size);
    a.offsets.forEach((o, lane) => {
      if (o === null) return;
      for (let e = Math.floor(o / size); e <= Math.floor((o + n - 1) / size); e++) {
        let x = out.get(e);
        if (!x) out.set(e, (x = { load: 0, store: 0, atomic: 0 }));
        x[a.kind] = (x[a.kind] | (1 << lane)) >>> 0;
      }
    });
  }
  return out;
}

/** "lanes 0–3, 8: load" for a cell's hover title. */
function hitText(x: Hit): string {
  const parts: string[] = [];
  for (const k of ["load", "store", "atomic"] as const) {
    const lanes: number[] = [];
    for (let l = 0; l < 32; l++) if (x[k] & (1 << l)) lanes.push(l);
    if (lanes.length) parts.push(`${lanes.length === 1 ? "lane" : "lanes"} ${laneRanges(lanes)}: ${k}`);
  }
  return "last step: " + parts.join("; ");
}
