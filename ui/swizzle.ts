// The swizzle explorer: pick a shared-memory swizzle (none, a TMA mode of
// PTX §5.5.7 with its atomicity, or Swizzle<B,M,S>) and a tile, and see
// where every logical (row, 16-byte chunk) lands, coloured by bank, the
// physical layout as §5.5.7 draws it, and the bank conflicts of three warp
// access patterns. The numbers come from the engine (/api/swizzle, backed
// by isa.Swizzle) so the view and the tested functions cannot disagree.

import { h, setChildren, stored, toggle } from "./dom";

/** One lane of an access check (isa.SwizzleLane). */
export interface SwizzleLane {
  lane: number;
  row: number;
  byte: number;
  words: number[];
  banks: number[];
  conflict?: boolean;
}

/** One access check (isa.SwizzleAccess). */
export interface SwizzleAccess {
  pattern: "row" | "column" | "ldmatrix";
  sel: number;
  lanes: SwizzleLane[];
  wavefronts: number;
  ideal: number;
}

/** The /api/swizzle answer. */
export interface SwizzleDoc {
  name: string;
  formula: string;
  equivalent?: string;
  patternBytes: number;
  baseOffset: number;
  table?: number[][];
  base: number;
  rowBytes: number;
  rows: number;
  /** cells[r][c]: physical byte addresses of the four words of logical chunk c of row r. */
  cells: number[][][];
  access: SwizzleAccess[];
}

const PATTERNS: [string, string][] = [
  ["none", "No swizzle"],
  ["32B", "TMA 32B"],
  ["64B", "TMA 64B"],
  ["96B", "TMA 96B"],
  ["128B", "TMA 128B"],
  ["128B/32B", "TMA 128B, 32B atom"],
  ["128B/32B-flip8B", "TMA 128B, 32B atom + 8B flip"],
  ["128B/64B", "TMA 128B, 64B atom"],
  ["xor", "Swizzle<B,M,S>"],
];

const ACCESS_TITLE: Record<SwizzleAccess["pattern"], [string, string]> = {
  row: ["Row-wise", "32 lanes read 32 consecutive 4-byte words from the start of row"],
  column: ["Column-wise", "lane l reads the same 4-byte word of row l (rows 0–31); word"],
  ldmatrix: ["ldmatrix 8×8", "lanes 0–7 read the 16 bytes of rows 0–7 at chunk"],
};
const SEL_PARAM: Record<SwizzleAccess["pattern"], string> = { row: "row", column: "col", ldmatrix: "chunk" };

/** The colour of a bank group: the 8 positions of a 16-byte chunk in a 128-byte line. */
export function chunkColour(pos: number): string {
  return `hsl(${(pos * 45 + 200) % 360}, 60%, 88%)`;
}

/** The colour of one bank (a stripe inside a cell). */
export function bankColour(bank: number): string {
  return `hsl(${(Math.floor(bank / 4) * 45 + 200) % 360}, 55%, ${bank % 2 ? 45 : 58}%)`;
}

/** Where a physical byte address lies in the tile: row and 16-byte chunk (row may fall outside). */
export function physicalPlace(doc: SwizzleDoc, addr: number): { row: number; chunk: number } {
  const off = addr - doc.base;
  return { row: Math.floor(off / doc.rowBytes), chunk: Math.floor((((off % doc.rowBytes) + doc.rowBytes) % doc.rowBytes) / 16) };
}

function numInput(label: string, name: string, value: number, min: number, max: number, step = 1): HTMLLabelElement {
  return h("label.field", h("span.field-label", label),
    h("input", { type: "number", name, value, min, max, step, "aria-label": label, class: "swz-num" }));
}

export class SwizzleView {
  private form: HTMLFormElement;
  private info: HTMLElement;
  private body: HTMLElement;
  private doc: SwizzleDoc | null = null;
  /** The access check whose lanes the grid marks. */
  private focus: SwizzleAccess["pattern"] = "column";
  private timer = 0;
  private seq = 0;

  constructor(root: HTMLElement) {
    const pick = h("select", { name: "pattern", "aria-label": "Swizzle pattern" },
      PATTERNS.map(([v, t]) => h("option", { value: v }, t)));
    const width = h("select", { name: "rowBytes", "aria-label": "Row width" },
      [16, 32, 64, 128, 256].map((n) => h("option", { value: n }, `${n} B`)));
    width.value = "128";
    this.form = h("form.toolbar.swz-bar", { "aria-label": "Swizzle" },
      h("label.field", h("span.field-label", "pattern"), pick),
      h("span.swz-bms", numInput("B", "b", 3, 0, 6), numInput("M", "m", 4, 0, 8), numInput("S", "s", 3, 0, 10)),
      h("label.field", h("span.field-label", "row"), width),
      numInput("rows", "rows", 8, 1, 64),
      numInput("base", "base", 0, 0, 1048448, 128),
      h("input", { type: "hidden", name: "row", value: 0 }),
      h("input", { type: "hidden", name: "col", value: 0 }),
      h("input", { type: "hidden", name: "chunk", value: 0 }));
    this.form.addEventListener("submit", (e) => e.preventDefault());
    this.form.addEventListener("input", () => this.schedule());
    this.form.addEventListener("change", () => this.schedule());
    this.info = h("div.swz-info", { role: "status" });
    this.body = h("div.swz-body");
    setChildren(root, this.form, this.info, this.body);
    this.restore();
  }

  /** The tab was shown. */
  shown(): void {
    if (!this.doc) void this.load();
  }

  private field(name: string): HTMLInputElement | HTMLSelectElement {
    return this.form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  }

  /** Selects a pattern by its value ("128B", "xor", ...) and loads it. */
  setPattern(v: string): void {
    this.field("pattern").value = v;
    void this.load();
  }

  private restore(): void {
    const saved = stored("ptxplay.swizzle");
    if (!saved) return;
    const q = new URLSearchParams(saved);
    for (const [k, v] of q) {
      const f = this.form.elements.namedItem(k);
      if (f instanceof HTMLInputElement || f instanceof HTMLSelectElement) f.value = v;
    }
    if (!PATTERNS.some(([v]) => v === this.field("pattern").value)) this.field("pattern").value = "none";
  }

  /** The query of the form (pattern split into mode and atom). */
  query(): URLSearchParams {
    const q = new URLSearchParams();
    const [mode, atom] = this.field("pattern").value.split("/");
    q.set("mode", mode);
    if (atom) q.set("atom", atom);
    if (mode === "xor") for (const k of ["b", "m", "s"]) q.set(k, this.field(k).value || "0");
    for (const k of ["rowBytes", "rows", "base", "row", "col", "chunk"]) q.set(k, this.field(k).value || "0");
    return q;
  }

  private schedule(): void {
    const xor = this.field("pattern").value === "xor";
    const bms = this.form.querySelector<HTMLElement>(".swz-bms");
    if (bms) bms.hidden = !xor;
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.load(), 120);
  }

  async load(): Promise<void> {
    const bms = this.form.querySelector<HTMLElement>(".swz-bms");
    if (bms) bms.hidden = this.field("pattern").value !== "xor";
    const q = this.query();
    const seq = ++this.seq;
    let doc: SwizzleDoc | null = null;
    let err = "";
    try {
      const r = await fetch(`/api/swizzle?${q}`, { headers: { Accept: "application/json" } });
      const body = (await r.json()) as SwizzleDoc & { error?: string };
      if (r.ok) doc = body;
      else err = body.error ?? `error ${r.status}`;
    } catch {
      err = "The server did not answer.";
    }
    if (seq !== this.seq) return;
    if (!doc) {
      this.info.textContent = err;
      toggle(this.info, "error", true);
      return;
    }
    toggle(this.info, "error", false);
    stored("ptxplay.swizzle", q.toString());
    this.doc = doc;
    this.render();
  }

  private render(): void {
    const d = this.doc;
    if (!d) return;
    setChildren(this.info,
      h("b", d.name), " ",
      h("code", d.formula),
      d.equivalent ? ` = ${d.equivalent}` : "",
      ` · repeats every ${d.patternBytes} B · base ${d.base} → base offset ${d.baseOffset}`);
    const focus = d.access.find((a) => a.pattern === this.focus) ?? d.access[0];
    // The verdicts first: the grids below can be long.
    setChildren(this.body,
      h("div.swz-access", d.access.map((a) => this.accessCard(a))),
      h("div.swz-grids",
        h("figure.swz-fig", h("figcaption", "Logical (row, 16-byte chunk) → physical chunk; outlined: the marked access"), this.logicalGrid(d, focus)),
        h("figure.swz-fig", h("figcaption", "Physical layout: the logical chunk stored at each place (as §5.5.7 draws it)"), this.physicalGrid(d))));
  }

  private logicalGrid(d: SwizzleDoc, focus: SwizzleAccess): HTMLTableElement {
    const chunks = d.rowBytes / 16;
    const hits = new Map<string, boolean>();
    for (const l of focus.lanes) {
      for (let i = 0; i < l.words.length; i++) {
        const key = `${l.row},${Math.floor((l.byte + 4 * i) / 16) % chunks}`;
        hits.set(key, (hits.get(key) ?? false) || Boolean(l.conflict));
      }
    }
    const head = h("tr", h("th", { scope: "col" }, "row"), Array.from({ length: chunks }, (_, c) => h("th", { scope: "col" }, String(c))));
    const rows = d.cells.map((row, r) =>
      h("tr", h("th", { scope: "row" }, String(r)), row.map((words, c) => {
        const p = physicalPlace(d, words[0]);
        const pos = (words[0] >> 4) & 7;
        const flipped = words[0] % 16 !== 0;
        const hit = hits.get(`${r},${c}`);
        const td = h("td.swz-cell", {
          "data-row": r, "data-chunk": c, "data-prow": p.row, "data-pchunk": p.chunk, "data-addr": words[0],
          style: `background:${chunkColour(pos)}`,
          title: `logical row ${r}, chunk ${c} (byte ${c * 16}) → address ${words.map((w) => "0x" + w.toString(16)).join(", ")}; banks ${words.map((w) => (w >> 2) % 32).join(", ")}${flipped ? "; 8-byte halves swapped" : ""}`,
        },
        h("span.swz-pc", String(p.chunk)),
        p.row !== r ? h("span.swz-pr", `r${p.row}`) : null,
        flipped ? h("span.swz-flip", "⇄") : null,
        h("span.swz-banks", words.map((w) => h("i", { style: `background:${bankColour((w >> 2) % 32)}` }))));
        if (hit !== undefined) td.classList.add(hit ? "swz-conflict" : "swz-hit");
        return td;
      })));
    return h("table.swz-grid", { "aria-label": "Logical to physical chunks" }, h("thead", head), h("tbody", rows));
  }

  private physicalGrid(d: SwizzleDoc): HTMLTableElement {
    const chunks = d.rowBytes / 16;
    const at = new Map<string, string>();
    d.cells.forEach((row, r) => row.forEach((words, c) => {
      const p = physicalPlace(d, words[0]);
      at.set(`${p.row},${p.chunk}`, p.row === r ? String(c) : `${r}.${c}`);
    }));
    const head = h("tr", h("th", { scope: "col" }, "row"), Array.from({ length: chunks }, (_, c) => h("th", { scope: "col" }, String(c))));
    const rows = d.cells.map((_, r) =>
      h("tr", h("th", { scope: "row" }, String(r)), Array.from({ length: chunks }, (_, c) => {
        const addr = d.base + r * d.rowBytes + c * 16;
        return h("td.swz-cell.swz-phys", { "data-row": r, "data-chunk": c, style: `background:${chunkColour((addr >> 4) & 7)}` }, at.get(`${r},${c}`) ?? "·");
      })));
    return h("table.swz-grid", { "aria-label": "Physical layout" }, h("thead", head), h("tbody", rows));
  }

  private accessCard(a: SwizzleAccess): HTMLElement {
    const [title, what] = ACCESS_TITLE[a.pattern];
    const d = this.doc!;
    const maxSel = a.pattern === "row" ? d.rows - 1 : a.pattern === "column" ? d.rowBytes / 4 - 1 : d.rowBytes / 16 - 1;
    const sel = h("input", { type: "number", min: 0, max: maxSel, value: a.sel, class: "swz-num", "aria-label": `${title}: ${what}` });
    sel.addEventListener("change", () => {
      this.field(SEL_PARAM[a.pattern]).value = sel.value;
      this.focus = a.pattern;
      this.schedule();
    });
    const conflicts = a.lanes.filter((l) => l.conflict).length;
    const verdict = a.wavefronts <= a.ideal
      ? h("span.swz-ok", `${a.wavefronts} wavefront${a.wavefronts === 1 ? "" : "s"}: no conflict`)
      : h("span.swz-bad", `${a.wavefronts} wavefronts (ideal ${a.ideal}): ${a.wavefronts}-way conflict, ${conflicts} lanes`);
    const lanes = a.lanes.map((l) => h("span.swz-lane", {
      class: l.conflict ? "conflict" : "",
      "data-lane": l.lane,
      title: `lane ${l.lane}: row ${l.row}, byte ${l.byte} → ${l.words.map((w) => "0x" + w.toString(16)).join(", ")}, bank${l.banks.length > 1 ? "s" : ""} ${l.banks.join(", ")}`,
    }, h("b", String(l.lane)), h("small", l.banks.length > 1 ? `b${l.banks[0]}–${l.banks[l.banks.length - 1]}` : `b${l.banks[0]}`)));
    const card = h("section.swz-card", {
      "data-pattern": a.pattern, "data-wavefronts": a.wavefronts,
      class: this.focus === a.pattern ? "on" : "",
      "aria-label": `${title} access`,
    },
    h("header", h("button.btn-small", { type: "button", title: "Mark this access on the grid", onclick: () => { this.focus = a.pattern; this.render(); } }, title),
      h("label.swz-sel", h("span", what), sel)),
    h("p.swz-verdict", verdict),
    h("div.swz-lanes", lanes));
    return card;
  }
}
