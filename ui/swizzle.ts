// The swizzle explorer: pick a shared-memory swizzle (none, a TMA mode of
// PTX §5.5.7 with its atomicity, or Swizzle<B,M,S>) and a tile, and see
// where every logical (row, 16-byte chunk) lands, coloured by bank, the
// physical layout as §5.5.7 draws it, and the bank conflicts of three warp
// access patterns. The numbers come from the engine (/api/swizzle, backed
// by isa.Swizzle) so the view and the tested functions cannot disagree.
//
// Live: when the paused kernel's last instruction accessed shared memory
// (the state's last.swizzle: the pattern its offsets follow, found by
// isa.DetectSwizzle, or none, and their affine form), the explorer selects
// that pattern, tile and cell width (4-byte words for a 4-byte access) and
// draws the warp's lanes at their logical (row, cell) and at their
// physical places; the bar above says what the offsets are: swizzled,
// affine (a row, a column, a padded tile's column), or irregular.
//
// The numbers' reading is in swizzleinfo.ts, the grids in swizzlegrids.ts.

import { conflictWays } from "./bankmarks";
import { h, setChildren, stored, toggle } from "./dom";
import type { Model, ProgramScoped } from "./model";
import type { LastInfo, LiveSwizzle } from "./proto";
import { liveParts, patternOf, unitName } from "./swizzleinfo";
import { logicalGrid, physicalGrid } from "./swizzlegrids";

/** The /api/swizzle answer (generated from web's swizzleDoc and engine/isa). */
export type { SwizzleLane, SwizzleAccess, SwizzleDoc } from "./api_gen";
import type { SwizzleAccess, SwizzleDoc } from "./api_gen";

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

/** The explorer's settings as a share link keeps them (sessions/share normalises them). */
export interface SwizzleViewState {
  mode: string;
  atom?: string;
  b?: number;
  m?: number;
  s?: number;
  rowBytes: number;
  rows: number;
  base: number;
  row: number;
  col: number;
  chunk: number;
  /** The cell width: 4, 8 or 16 bytes (absent: 16). */
  unit?: number;
  /** The access check marked on the grid. */
  focus?: SwizzleAccess["pattern"];
  /** Follow the paused kernel's swizzled accesses. */
  live?: boolean;
}

function numInput(label: string, name: string, value: number, min: number, max: number, step = 1): HTMLLabelElement {
  return h("label.field", h("span.field-label", label),
    h("input", { type: "number", name, value, min, max, step, "aria-label": label, class: "swz-num" }));
}

export class SwizzleView implements ProgramScoped {
  private form: HTMLFormElement;
  private info: HTMLElement;
  private body: HTMLElement;
  private doc: SwizzleDoc | null = null;
  /** The access check whose lanes the grid marks. */
  private focus: SwizzleAccess["pattern"] = "column";
  private timer = 0;
  private seq = 0;
  /** The live access drawn on the grid (null: none). */
  private liveSw: LiveSwizzle | null = null;
  /** The instruction it came from. */
  private liveLast: LastInfo | null = null;
  private liveBox: HTMLInputElement;
  private liveBar: HTMLElement;
  /** The last query the server accepted (what a share link keeps). */
  private good: URLSearchParams | null = null;

  constructor(root: HTMLElement, private readonly model?: Model, private readonly visible: () => boolean = () => true) {
    const pick = h("select", { name: "pattern", "aria-label": "Swizzle pattern" },
      PATTERNS.map(([v, t]) => h("option", { value: v }, t)));
    const width = h("select", { name: "rowBytes", "aria-label": "Row width" },
      [16, 32, 64, 128, 256, 512].map((n) => h("option", { value: n }, `${n} B`)));
    width.value = "128";
    const unit = h("select", { name: "unit", "aria-label": "Cell width", title: "One cell of the grids: a 4-byte bank word (what a 4-byte access uses), 8 bytes, or a 16-byte chunk (vectors, ldmatrix, TMA)" },
      [[4, "4 B word"], [8, "8 B"], [16, "16 B chunk"]].map(([n, t]) => h("option", { value: n }, String(t))));
    unit.value = "16";
    this.liveBox = h("input", { type: "checkbox", name: "live", checked: true }) as HTMLInputElement;
    this.form = h("form.toolbar.swz-bar", { "aria-label": "Swizzle" },
      h("label.check.swz-livebox", { title: "Follow the paused kernel: when its last instruction's shared-memory addresses follow a pattern, show it here with the warp's lanes" }, this.liveBox, "live"),
      h("label.field", h("span.field-label", "pattern"), pick),
      h("span.swz-bms", numInput("B", "b", 3, 0, 6), numInput("M", "m", 4, 0, 8), numInput("S", "s", 3, 0, 10)),
      h("label.field", h("span.field-label", "row"), width),
      h("label.field", h("span.field-label", "cell"), unit),
      numInput("rows", "rows", 8, 1, 64),
      numInput("base", "base", 0, 0, 1048448, 128),
      h("input", { type: "hidden", name: "row", value: 0 }),
      h("input", { type: "hidden", name: "col", value: 0 }),
      h("input", { type: "hidden", name: "chunk", value: 0 }));
    this.form.addEventListener("submit", (e) => e.preventDefault());
    // A setting chosen by hand leaves the live view.
    const edited = (e: Event) => {
      if (e.target === this.liveBox) return;
      this.setLive(false);
      this.schedule();
    };
    this.form.addEventListener("input", edited);
    this.form.addEventListener("change", edited);
    this.liveBox.addEventListener("change", () => this.setLive(this.liveBox.checked, true));
    this.info = h("div.swz-info", { role: "status" });
    this.liveBar = h("div.swz-live-bar", { "aria-live": "polite" });
    this.body = h("div.swz-body");
    setChildren(root, this.form, this.liveBar, this.info, this.body);
    this.restore();
    model?.scope(this);
    model?.subscribe((c) => {
      if (c.has("status") || c.has("loaded")) this.follow();
    });
  }

  /** Another program: no access of the old one stays shown live. */
  programChanged(): void {
    const was = this.liveSw;
    this.liveSw = null;
    this.liveLast = null;
    this.renderLiveBar();
    if (was && this.doc) this.render();
  }

  /** The tab was shown. */
  shown(): void {
    if (this.follow()) return;
    if (!this.doc) void this.load();
  }

  private setLive(on: boolean, apply = false): void {
    this.liveBox.checked = on;
    if (!on) {
      this.liveSw = null;
      this.liveLast = null;
      this.renderLiveBar();
      if (this.doc) this.render();
    } else if (apply && !this.follow() && this.doc) {
      this.render();
    }
  }

  /** Live: shows the last instruction's swizzled access, if there is one;
   * reports whether it started a load. */
  private follow(): boolean {
    if (!this.liveBox.checked || !this.visible()) return false;
    const last = this.model?.loaded ? this.model.last : null;
    const sw = last?.swizzle ?? null;
    const was = this.liveSw;
    this.liveSw = sw;
    this.liveLast = sw ? last : null;
    this.renderLiveBar();
    if (!sw) {
      if (was && this.doc) this.render();
      return false;
    }
    this.field("pattern").value = patternOf(sw);
    if (sw.mode === "xor") {
      this.field("b").value = String(sw.b);
      this.field("m").value = String(sw.m);
      this.field("s").value = String(sw.s);
    }
    this.field("rowBytes").value = String(sw.rowBytes);
    this.field("rows").value = String(sw.rows);
    this.field("base").value = String(sw.tileBase);
    this.field("unit").value = String(sw.unit);
    void this.load();
    return true;
  }

  private renderLiveBar(): void {
    const sw = this.liveSw;
    const last = this.liveLast;
    if (!this.liveBox.checked) {
      setChildren(this.liveBar);
      this.liveBar.hidden = true;
      return;
    }
    this.liveBar.hidden = false;
    if (!sw || !last) {
      const why = !this.model?.loaded ? "" : this.model.last
        ? `Live: line ${this.model.last.line}, the last instruction run, did not access shared memory; step the warp over a shared load or store to see its lanes here.`
        : "Live: step the kernel; a shared-memory access whose addresses follow a swizzle shows here.";
      setChildren(this.liveBar, why ? h("span.muted", why) : null);
      return;
    }
    // A headline, the verdict under it, then the details each on a line
    // of its own: one sentence of five clauses does not read at a glance.
    const p = liveParts(sw);
    setChildren(this.liveBar,
      h("div.swz-live-head",
        h("b.swz-live-tag", "live"), " ",
        h("span.swz-live-text", { "data-part": "head" }, `line ${last.line} · CTA #${last.linear} warp ${last.warp}: ${p.head}`)),
      h("div.swz-live-row", { "data-part": "banks", class: sw.wavefronts > sw.ideal ? "swz-live-conflict" : "swz-live-ok" }, p.banks),
      h("div.swz-live-row", { "data-part": "layout" }, p.layout),
      p.padded ? h("div.swz-live-row", { "data-part": "padded" }, h("b", "Padded reading: "), p.padded) : null,
      h("div.swz-live-row.muted", { "data-part": "grids" }, `Lane numbers: logical place on the left grid, physical place on the right; one cell is a ${unitName(sw.unit)}.`));
  }

  private field(name: string): HTMLInputElement | HTMLSelectElement {
    return this.form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  }

  /** Selects a pattern by its value ("128B", "xor", ...) and loads it. */
  setPattern(v: string): void {
    this.field("pattern").value = v;
    void this.load();
  }

  /** The settings a share link keeps (the last ones the server accepted). */
  viewState(): SwizzleViewState | undefined {
    const q = this.good;
    if (!q) return undefined;
    const n = (k: string) => Number(q.get(k) ?? 0);
    const v: SwizzleViewState = {
      mode: q.get("mode") ?? "none", rowBytes: n("rowBytes"), rows: n("rows"), base: n("base"),
      row: n("row"), col: n("col"), chunk: n("chunk"), focus: this.focus, live: this.liveBox.checked,
    };
    if (n("unit") !== 16) v.unit = n("unit");
    if (q.get("atom")) v.atom = q.get("atom")!;
    if (v.mode === "xor") {
      v.b = n("b");
      v.m = n("m");
      v.s = n("s");
    }
    return v;
  }

  /** Restores what viewState returned (a share link's view). */
  restoreView(v: SwizzleViewState): void {
    this.field("pattern").value = patternOf(v);
    if (!PATTERNS.some(([p]) => p === this.field("pattern").value)) this.field("pattern").value = "none";
    this.field("unit").value = "16";
    for (const k of ["b", "m", "s", "rowBytes", "rows", "base", "row", "col", "chunk", "unit"] as const) {
      const x = v[k];
      if (typeof x === "number") this.field(k).value = String(x);
    }
    this.focus = v.focus === "row" || v.focus === "ldmatrix" ? v.focus : "column";
    this.liveBox.checked = v.live !== false;
    if (!this.follow()) void this.load();
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
    q.set("unit", this.field("unit").value || "16");
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
    this.good = q;
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
    // The live access, if the tile is the one it was detected in.
    const sw = this.liveSw && this.liveSw.tileBase === d.base && this.liveSw.rowBytes === d.rowBytes ? this.liveSw : null;
    // The verdicts first (the grids can be long); live, the lanes on the grids
    // first and the pattern's own checks after them, titled as such (they
    // are not the kernel's access).
    const cards = h("div.swz-access", d.access.map((a) => this.accessCard(a)));
    const u = unitName(d.unit || 16);
    const cell = u.replace(/^\S+ /, "");
    setChildren(this.body,
      sw ? null : cards,
      h("div.swz-grids",
        h("figure.swz-fig", h("figcaption", sw ? `Logical (row, ${u}) → physical ${cell}; lane numbers: where the live access's lanes are, logically` : `Logical (row, ${u}) → physical ${cell}; outlined: the marked access`), logicalGrid(d, focus, sw)),
        h("figure.swz-fig", h("figcaption", sw ? "Physical layout; lane numbers: where the live access's lanes went" : `Physical layout: the logical ${cell} stored at each place (as §5.5.7 draws it)`), physicalGrid(d, sw))),
      sw ? h("h4.swz-checks-title", `${d.name}: its standard accesses (not the kernel's)`) : null,
      sw ? cards : null);
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
      : h("span.swz-bad", `${a.wavefronts} wavefronts (ideal ${a.ideal}): ${conflictWays(a.wavefronts, a.ideal)}-way conflict, ${conflicts} lanes`);
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
