// The bank grid: a CTA's shared memory as the 32 banks serve it. Each row
// is 128 bytes (one word per bank), each cell a 4-byte word with its typed
// value; the lanes of the last step's shared-memory access are drawn onto
// the exact words they touched, coloured by the wavefront that serves
// them, the lanes a bank conflict serialises marked, and a summary line
// gives the model's verdict (engine/analysis: wavefronts, the ideal,
// conflict degree, broadcast). Only the rows in view are in the DOM, so a
// large shared memory stays fast. The accesses' marks (lanes, wavefronts,
// the verdict) are made in bankmarks.ts.

import type { MemRegion } from "./model";
import { elemSize } from "./model";
import { h, setChildren, setClass, setText } from "./dom";
import { defaultFmt, describeValue, fitValue, leHex, maxChars, typeBits } from "./format";
import type { Fmt } from "./format";
import type { Access } from "./proto";
import { BANKS, WORD, bankSummary, laneBadges, markWords } from "./bankmarks";
import type { Mark } from "./bankmarks";

export { BANKS, bankSummary, laneRanges, markWords, waveColour } from "./bankmarks";

const ROW_BYTES = BANKS * WORD;
/** Rows drawn beyond the visible ones, above and below. */
const OVERSCAN = 6;

/** What the grid shows: the CTA's shared memory and the last step. */
export interface BankInput {
  region: MemRegion | null;
  size: number;
  type: string;
  hex: boolean;
  /** The shared accesses of the last step to this CTA's memory. */
  accesses: Access[];
  /** The last instruction's opcode ("ld.shared.f32"). */
  op: string;
  /** Shared accesses of the last step to other CTAs (their linear indices). */
  otherCTAs: number[];
  /** Follow the accesses: scroll to them when the step changes. */
  follow: boolean;
  /** Changes when the last step changes. */
  sig: string;
  /** Asks for the bytes [off, off+n) (the memory view's request). */
  need: (off: number, n: number) => void;
}

interface Row {
  tr: HTMLTableRowElement;
  cells: HTMLTableCellElement[];
  vals: HTMLElement[];
  lanes: HTMLElement[];
  /** What each cell shows, to update only what changed. */
  shown: string[];
}
export class BankView {
  readonly el: HTMLElement;
  private summary: HTMLElement;
  private scroller: HTMLElement;
  private table: HTMLTableElement;
  private tbody: HTMLTableSectionElement;
  private top: HTMLTableRowElement;
  private bottom: HTMLTableRowElement;
  private rows = new Map<number, Row>();
  private rowH = 0;
  private input: BankInput | null = null;
  /** The words the last step touched: word index -> marks. */
  private marks = new Map<number, Mark[]>();
  private marksOf = "";
  private lastSig = "";
  private layoutOf = "";
  private frame = 0;

  constructor() {
    this.summary = h("div.bank-summary", { role: "status", "aria-live": "polite" });
    const head = h("tr", h("th.bank-off-h", { title: "Byte offset of the row" }, "offset"));
    for (let b = 0; b < BANKS; b++) head.appendChild(h("th.bank-h", { title: `bank ${b}: words ${b}, ${b + BANKS}, ${b + 2 * BANKS}, …` }, String(b)));
    this.top = h("tr.bank-spacer");
    this.bottom = h("tr.bank-spacer");
    this.tbody = h("tbody", this.top, this.bottom);
    this.table = h("table.banks", { "aria-label": "Shared memory by bank" }, h("thead", head), this.tbody);
    this.scroller = h("div.bank-scroll", this.table);
    this.el = h("div.bank-view", this.summary, this.scroller);
    this.scroller.addEventListener("scroll", () => {
      if (this.frame) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.draw();
      });
    });
    this.summary.title = "Scroll to the words the last step accessed";
    this.summary.addEventListener("click", () => {
      if (this.marks.size) this.reveal();
    });
    this.scroller.addEventListener("mouseover", (e) => {
      const td = (e.target as HTMLElement).closest<HTMLElement>("td.bw");
      if (td) this.tip(td);
    });
  }

  /** Shows input: the summary, the marks and the rows in view; on a new
   * step (follow on) the accessed rows and banks are scrolled into view. */
  render(input: BankInput): void {
    this.input = input;
    const layout = `${input.size}|${input.type}|${input.hex}`;
    if (layout !== this.layoutOf) {
      this.layoutOf = layout;
      for (const r of this.rows.values()) r.tr.remove();
      this.rows.clear();
      // Every column is as wide as the widest text its word can show.
      this.table.style.setProperty("--bw-ch", String(wordChars(input.type, input.hex ? "hex" : defaultFmt(input.type))));
    }
    const sig = input.sig + "|" + JSON.stringify(input.accesses);
    if (sig !== this.marksOf) {
      this.marksOf = sig;
      this.marks = markWords(input.accesses);
    }
    this.renderSummary(input);
    const newStep = input.sig !== this.lastSig;
    this.lastSig = input.sig;
    this.draw();
    if (newStep && input.follow && this.marks.size) this.reveal();
  }

  private renderSummary(input: BankInput): void {
    const lines = input.accesses.map((a) => {
      const v = a.shared;
      const cls = v && v.wavefronts > v.ideal ? "div.bank-line.conflict" : "div.bank-line";
      return h(cls as "div", bankSummary(input.op, a));
    });
    if (input.otherCTAs.length) {
      lines.push(h("div.bank-line.muted", `The last step accessed the shared memory of CTA #${input.otherCTAs.join(", #")}: select one of its warps to see it here.`));
    }
    if (!lines.length) lines.push(h("div.bank-line.muted", "The last step did not access shared memory."));
    const key = lines.map((l) => l.className + l.textContent).join("\n");
    if (this.summary.dataset.key !== key) {
      this.summary.dataset.key = key;
      setChildren(this.summary, lines);
    }
  }

  /** Scrolls the first accessed row (and bank) into view unless every
   * accessed row already is. */
  private reveal(): void {
    const words = [...this.marks.keys()];
    const first = Math.floor(Math.min(...words) / BANKS);
    const last = Math.floor(Math.max(...words) / BANKS);
    const rh = this.rowHeight();
    const s = this.scroller;
    const headH = (s.querySelector("thead") as HTMLElement | null)?.offsetHeight ?? 0;
    const viewTop = s.scrollTop;
    const viewBottom = viewTop + s.clientHeight - headH;
    if (first * rh < viewTop || (last + 1) * rh > viewBottom) {
      s.scrollTop = Math.max(0, first * rh - rh);
    }
    const banks = words.map((w) => w % BANKS);
    const lo = Math.min(...banks);
    const cell = this.scroller.querySelector<HTMLElement>("th.bank-h");
    const offW = this.scroller.querySelector<HTMLElement>("th.bank-off-h")?.offsetWidth ?? 0;
    if (cell && cell.offsetWidth > 0) {
      const x = offW + lo * cell.offsetWidth;
      if (x < s.scrollLeft + offW || x + cell.offsetWidth > s.scrollLeft + s.clientWidth) s.scrollLeft = Math.max(0, x - offW - cell.offsetWidth);
    }
    this.draw();
  }

  /** Scrolls the row of byte offset off into view. */
  scrollToByte(off: number): void {
    const rh = this.rowHeight();
    const row = Math.floor(off / ROW_BYTES);
    const s = this.scroller;
    if (row * rh < s.scrollTop || (row + 2) * rh > s.scrollTop + s.clientHeight) s.scrollTop = Math.max(0, row * rh - rh);
    this.draw();
  }

  private rowHeight(): number {
    if (this.rowH > 0) return this.rowH;
    const r = this.rows.values().next().value as Row | undefined;
    const hgt = r?.tr.offsetHeight ?? 0;
    if (hgt > 0) this.rowH = hgt;
    return hgt > 0 ? hgt : 40;
  }

  /** Draws the rows in view (with some overscan) and drops the others. */
  private draw(): void {
    const input = this.input;
    if (!input) return;
    const nRows = Math.ceil(input.size / ROW_BYTES);
    const rh = this.rowHeight();
    const s = this.scroller;
    const viewRows = Math.ceil((s.clientHeight || 600) / rh);
    const first = Math.max(0, Math.min(nRows - 1, Math.floor(s.scrollTop / rh) - OVERSCAN));
    const end = Math.min(nRows, first + viewRows + 2 * OVERSCAN);
    for (const [i, r] of this.rows) {
      if (i < first || i >= end) {
        r.tr.remove();
        this.rows.delete(i);
      }
    }
    // Rows are inserted in order between the spacers.
    let before: Node = this.bottom;
    for (let i = end - 1; i >= first; i--) {
      let r = this.rows.get(i);
      if (!r) {
        r = this.buildRow(i);
        this.rows.set(i, r);
        this.tbody.insertBefore(r.tr, before);
      }
      before = r.tr;
      this.fillRow(i, r, input);
    }
    this.top.style.height = `${first * rh}px`;
    this.bottom.style.height = `${Math.max(0, nRows - end) * rh}px`;
    if (end > first) input.need(first * ROW_BYTES, Math.min(input.size, end * ROW_BYTES) - first * ROW_BYTES);
    // Measure once the first row is in the DOM.
    if (this.rowH === 0 && this.rows.size && this.rowHeight() !== rh) this.draw();
  }

  private buildRow(i: number): Row {
    const off = i * ROW_BYTES;
    const tr = h("tr.bank-row", h("th.bank-off", { scope: "row", title: `row ${i}: bytes ${off}–${off + ROW_BYTES - 1}` }, String(off)));
    const cells: HTMLTableCellElement[] = [];
    const vals: HTMLElement[] = [];
    const lanes: HTMLElement[] = [];
    for (let b = 0; b < BANKS; b++) {
      const v = h("span.bw-v");
      const l = h("span.bw-l");
      const td = h("td.bw", { "data-word": i * BANKS + b }, v, l);
      cells.push(td);
      vals.push(v);
      lanes.push(l);
      tr.appendChild(td);
    }
    return { tr, cells, vals, lanes, shown: cells.map(() => "") };
  }

  private fillRow(i: number, r: Row, input: BankInput): void {
    const size = elemSize(input.type);
    const bits = typeBits(input.type);
    const fmt = input.hex ? "hex" : defaultFmt(input.type);
    const buf = new Uint8Array(size);
    for (let b = 0; b < BANKS; b++) {
      const word = i * BANKS + b;
      const off = word * WORD;
      const td = r.cells[b];
      if (off >= input.size) {
        if (r.shown[b] !== "pad") {
          r.shown[b] = "pad";
          setText(r.vals[b], "");
          setText(r.lanes[b], "");
          setClass(td, "bw pad");
        }
        continue;
      }
      // The word's elements: one for 4-byte types, 2 or 4 for narrower
      // ones; an 8-byte element shows in its first word, its text running
      // on over the second.
      const texts: string[] = [];
      const hexes: string[] = [];
      let known = true;
      let approx = false;
      const show = (hx: string) => {
        const v = fitValue(hx, bits, fmt);
        hexes.push(hx);
        texts.push(v.text);
        approx ||= v.approx;
      };
      if (size >= 8) {
        if (off % size === 0) {
          if (off + size <= input.size && input.region?.read(off, buf)) show(leHex(buf, 0, size));
          else known = false;
        }
      } else {
        for (let e = off; e < off + WORD; e += size) {
          if (input.region?.read(e, buf)) show(leHex(buf, 0, size));
          else known = false;
        }
      }
      const marks = this.marks.get(word);
      const shown = `${known ? texts.join(" ") : "…"}#${marks ? JSON.stringify(marks) : ""}`;
      if (r.shown[b] === shown) continue;
      r.shown[b] = shown;
      setText(r.vals[b], known ? texts.join(" ") : "…");
      td.dataset.hex = known ? hexes.join(" ") : "";
      td.dataset.bits = String(bits);
      delete td.dataset.tip;
      td.removeAttribute("title");
      let cls = "bw" + (known ? "" : " unk") + (size >= 8 ? (off % size !== 0 ? " cont" : " wide") : "") + (approx ? " approx" : "");
      if (marks) {
        cls += marks.some((m) => m.kind !== "load") ? " t-store" : " t-load";
        if (marks.some((m) => m.conflict)) cls += " b-conflict";
        setChildren(r.lanes[b], laneBadges(marks));
      } else {
        setChildren(r.lanes[b]);
      }
      setClass(td, cls);
    }
  }

  /** The hover title of a word: where it is, its lanes and its value. */
  private tip(td: HTMLElement): void {
    if (td.dataset.tip !== undefined) return;
    const word = Number(td.dataset.word);
    const off = word * WORD;
    const lines = [`word ${word} · bank ${word % BANKS} · byte ${off} (0x${off.toString(16)})`];
    const marks = this.marks.get(word);
    if (marks) {
      for (const m of marks) lines.push(`lane ${m.lane}: ${m.kind}, wavefront ${m.wave + 1}${m.conflict ? " (bank conflict)" : ""}`);
    }
    const bits = Number(td.dataset.bits);
    if (td.classList.contains("approx")) lines.push("(shown rounded to fit the cell; exact below)");
    for (const hx of (td.dataset.hex ?? "").split(" ").filter(Boolean)) lines.push(describeValue(hx, bits));
    td.dataset.tip = "";
    td.title = lines.join("\n");
  }
}

/** The characters a word's column needs to show its text whole: one
 * element of a 4-byte type, 2 or 4 (space-separated) of a narrower one;
 * an 8-byte element runs over its two words, so each needs half. */
export function wordChars(type: string, fmt: Fmt): number {
  const size = elemSize(type);
  const one = maxChars(typeBits(type), fmt);
  if (size >= 8) return Math.ceil(one / 2);
  const n = Math.max(1, WORD / size);
  return n * one + n - 1;
}

