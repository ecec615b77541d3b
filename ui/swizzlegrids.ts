// The swizzle explorer's two grids: the logical (row, cell) tile with where
// each cell lands, and the physical layout, with a live access's lanes.

import { h } from "./dom";
import type { LiveSwizzle } from "./proto";
import type { SwizzleAccess, SwizzleDoc } from "./api_gen";
import { bankColour, chunkColour, lanePlaces, lanesText, physicalPlace } from "./swizzleinfo";

/** The logical grid: each (row, cell) with its physical place and banks,
 * the marked access's cells outlined, or live, the kernel's lanes. */
export function logicalGrid(d: SwizzleDoc, focus: SwizzleAccess, sw: LiveSwizzle | null): HTMLTableElement {
  const unit = d.unit || 16;
  const chunks = d.rowBytes / unit;
  const hits = new Map<string, boolean>();
  const live = sw ? lanePlaces(d, sw, true) : null;
  // Live, the grid marks the kernel's lanes instead of the chosen check.
  for (const l of live ? [] : focus.lanes) {
    for (let i = 0; i < l.words.length; i++) {
      const key = `${l.row},${Math.floor((l.byte + 4 * i) / unit) % chunks}`;
      hits.set(key, (hits.get(key) ?? false) || Boolean(l.conflict));
    }
  }
  const head = h("tr", h("th", { scope: "col" }, "row"), Array.from({ length: chunks }, (_, c) => h("th", { scope: "col" }, String(c))));
  const rows = d.cells.map((row, r) =>
    h("tr", h("th", { scope: "row" }, String(r)), row.map((words, c) => {
      const p = physicalPlace(d, words[0]);
      const pos = (words[0] >> 4) & 7;
      const flipped = words[0] % unit !== 0;
      const hit = hits.get(`${r},${c}`);
      const td = h("td.swz-cell", {
        "data-row": r, "data-chunk": c, "data-prow": p.row, "data-pchunk": p.chunk, "data-addr": words[0],
        style: `background:${chunkColour(pos)}`,
        title: `logical row ${r}, ${unit === 16 ? "chunk" : unit === 4 ? "word" : "cell"} ${c} (byte ${c * unit}) → address ${words.map((w) => "0x" + w.toString(16)).join(", ")}; banks ${words.map((w) => (w >> 2) % 32).join(", ")}${flipped ? "; 8-byte halves swapped" : ""}`,
      },
      h("span.swz-pc", String(p.chunk)),
      p.row !== r ? h("span.swz-pr", `r${p.row}`) : null,
      flipped ? h("span.swz-flip", "⇄") : null,
      h("span.swz-banks", words.map((w) => h("i", { style: `background:${bankColour((w >> 2) % 32)}` }))));
      if (hit !== undefined) td.classList.add(hit ? "swz-conflict" : "swz-hit");
      const ls = live?.get(`${r},${c}`);
      if (ls) {
        td.classList.add("swz-live");
        td.dataset.lanes = ls.join(",");
        td.appendChild(h("span.swz-livelanes", lanesText(ls)));
        td.title += `\nlive: lane${ls.length > 1 ? "s" : ""} ${ls.join(", ")} (logical place)`;
      }
      return td;
    })));
  return h("table.swz-grid", { "aria-label": "Logical to physical cells", "data-unit": unit, class: unit === 4 ? "words" : "" }, h("thead", head), h("tbody", rows));
}

/** The physical layout: the logical cell stored at each place, or live,
 * the kernel's lanes at their physical places. */
export function physicalGrid(d: SwizzleDoc, sw: LiveSwizzle | null): HTMLTableElement {
  const unit = d.unit || 16;
  const chunks = d.rowBytes / unit;
  const live = sw ? lanePlaces(d, sw, false) : null;
  const at = new Map<string, string>();
  d.cells.forEach((row, r) => row.forEach((words, c) => {
    const p = physicalPlace(d, words[0]);
    at.set(`${p.row},${p.chunk}`, p.row === r ? String(c) : `${r}.${c}`);
  }));
  const head = h("tr", h("th", { scope: "col" }, "row"), Array.from({ length: chunks }, (_, c) => h("th", { scope: "col" }, String(c))));
  const rows = d.cells.map((_, r) =>
    h("tr", h("th", { scope: "row" }, String(r)), Array.from({ length: chunks }, (_, c) => {
      const addr = d.base + r * d.rowBytes + c * unit;
      const td = h("td.swz-cell.swz-phys", { "data-row": r, "data-chunk": c, style: `background:${chunkColour((addr >> 4) & 7)}` }, at.get(`${r},${c}`) ?? "·");
      const ls = live?.get(`${r},${c}`);
      if (ls) {
        td.classList.add("swz-live");
        td.dataset.lanes = ls.join(",");
        td.appendChild(h("span.swz-livelanes", lanesText(ls)));
        td.title = `address ${addr}: live lane${ls.length > 1 ? "s" : ""} ${ls.join(", ")} (physical place)`;
      }
      return td;
    })));
  return h("table.swz-grid", { "aria-label": "Physical layout", "data-unit": unit, class: unit === 4 ? "words" : "" }, h("thead", head), h("tbody", rows));
}
