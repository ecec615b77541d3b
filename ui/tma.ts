// The TMA view: for the selected CTA, the tensor copy its selected warp
// runs next (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// prefetch.tensor) or else the last one the CTA ran (the state's tma,
// sessions/tma.go): the instruction, the tensor map's fields, the box in
// the global tensor (dimension 0 across, one row per higher coordinate,
// out-of-bounds elements marked and counted) and where the box lands in
// shared memory under the map's swizzle, drawn with the swizzle explorer's
// grids from /api/swizzle (the same isa.Swizzle the copy uses), with a
// button that opens the Banks view at the tile.

import { h, setChildren } from "./dom";
import type { Model, ProgramScoped } from "./model";
import type { TmaBox, TmaTile, TmaView as Tma } from "./proto";
import type { SwizzleDoc } from "./api_gen";
import { chunkColour } from "./swizzleinfo";
import { logicalGrid, physicalGrid } from "./swizzlegrids";
import { lineName } from "./srcline";

const DIR_TEXT: Record<string, string> = {
  load: "load: global → shared::cluster",
  store: "store: shared::cta → global",
  reduce: "reduce: shared::cta into global",
  prefetch: "prefetch: global → L2",
};

const HIGHER = ["y", "z", "w", "v"];

function n(v: number): string {
  return v.toLocaleString("en-US");
}

function list(v: number[] | undefined): string {
  return `[${(v ?? []).join(", ")}]`;
}

/** The box's row label: its coordinates in dimensions 1.. ("y=60"). */
function rowLabel(coords: number[]): string {
  return coords.map((c, i) => `${HIGHER[i] ?? `d${i + 1}`}=${c}`).join(" ");
}

/** Whether element i of box row r is out of bounds. */
function oob(box: TmaBox, r: number, i: number): boolean {
  const row = box.rows[r];
  return !row || i < row.inLo || i >= row.inHi;
}

/** The global box: one table row per box row, dimension 0 across. */
function boxGrid(box: TmaBox): HTMLElement {
  const n0 = box.x.length;
  const every = n0 > 16 ? 8 : 1;
  const head = h("tr", h("th.tma-corner", { scope: "col" }, "x →"),
    box.x.map((x, i) => h("th.tma-x", { scope: "col" }, i % every === 0 ? String(x) : "")));
  const body: HTMLElement[] = [];
  let slice = "";
  box.rows.forEach((row, r) => {
    // Dimensions 2.. start a new slice when they change.
    const s = rowLabel(row.coords.slice(1));
    if (s && s !== slice) {
      slice = s;
      body.push(h("tr.tma-slice", h("th", { colspan: n0 + 1, scope: "rowgroup" }, `slice ${s}`)));
    }
    const label = rowLabel(row.coords.slice(0, 1)) || "—";
    const cells = box.x.map((x, i) => {
      const out = oob(box, r, i);
      const chunk = Math.floor((i * box.elemBytes) / 16);
      return h("td.tma-cell", {
        class: out ? "tma-cell tma-oob" : "tma-cell",
        style: out ? undefined : `background:${chunkColour(chunk % 8)}`,
        title: `(${[x, ...row.coords].join(", ")})${out ? ": out of bounds, filled" : ""}`,
      });
    });
    const whole = row.inLo === row.inHi;
    body.push(h("tr", { class: whole ? "tma-row-oob" : "" }, h("th.tma-y", { scope: "row" }, label), cells));
  });
  return h("div.tma-scroll", h("table.tma-box", { "aria-label": "The box in the global tensor" }, h("thead", head), h("tbody", body)));
}

export class TmaView implements ProgramScoped {
  private head: HTMLElement;
  private body: HTMLElement;
  private tile: HTMLElement;
  private shownKey = "";
  private tileKey = "";
  private seq = 0;

  constructor(root: HTMLElement, private readonly model: Model, private readonly visible: () => boolean,
    private readonly banks: (offset: number) => void) {
    this.head = h("div.tma-head", { role: "status" });
    this.body = h("div.tma-body");
    this.tile = h("div.tma-tile");
    setChildren(root, this.head, this.body, this.tile);
    model.scope(this);
    model.subscribe((c) => {
      if (c.has("tma") || c.has("loaded")) this.render();
    });
    this.render();
  }

  programChanged(): void {
    this.shownKey = "";
    this.tileKey = "";
    this.render();
  }

  shown(): void {
    this.shownKey = "";
    this.render();
  }

  private render(): void {
    if (!this.visible()) return;
    const t = this.model.loaded ? this.model.tma : null;
    const key = JSON.stringify(t);
    if (key === this.shownKey) return;
    this.shownKey = key;
    if (!t || t.source === "none") {
      setChildren(this.head, h("p.muted", this.model.loaded
        ? "No tensor copy yet in this CTA. Step to a cp.async.bulk.tensor, cp.reduce.async.bulk.tensor or prefetch.tensor: its box, tensor map and shared-memory tile show here (the selected warp's next one, or the CTA's last)."
        : "Load a kernel that uses TMA (cp.async.bulk.tensor with a tensorMap launch parameter)."));
      setChildren(this.body);
      setChildren(this.tile);
      this.tileKey = "";
      return;
    }
    const which = t.source === "next" ? "next instruction of the selected warp" : "last tensor copy of this CTA";
    setChildren(this.head,
      h("div.tma-title",
        h("b", lineName(t.line, t.cudaLine)), ` · CTA #${t.linear} warp ${t.warp} lane ${t.lane} · `,
        h("span.tma-src", { "data-source": t.source }, which)),
      // Breaks only between modifiers, not inside one.
      h("code.tma-op", (t.op ?? "").split(".").flatMap((w, i) => (i ? [".", h("wbr"), w] : [w]))),
      h("div.tma-facts",
        h("span.tma-dir", { "data-dir": t.direction }, DIR_TEXT[t.direction ?? ""] ?? t.direction ?? ""),
        t.reduction ? h("span", `.${t.reduction}`) : null,
        h("span", `coords (${t.coords.join(", ")})`),
        t.multicast ? h("span", { title: ".multicast::cluster: the CTAs of the cluster that receive the box" }, `multicast ctaMask 0x${t.multicast}`) : null,
        t.mbarrier ? h("span", `mbarrier @0x${t.mbarrier}`) : null,
        t.shared !== undefined ? h("span", `shared 0x${t.shared}${t.sharedRank ? ` (CTA rank ${t.sharedRank}, offset 0x${t.sharedOffset.toString(16)})` : ""}`) : null),
      t.error ? h("p.error.tma-error", t.error) : null);
    const mp = t.map;
    const box = t.box;
    setChildren(this.body,
      mp ? h("section.tma-map", { "aria-label": "Tensor map" },
        h("h4", "Tensor map"),
        h("dl.tma-fields",
          h("dt", "global"), h("dd", mp.buffer ? `${mp.buffer} + 0x${mp.bufferOffset.toString(16)}` : `0x${mp.globalAddress}`),
          h("dt", "dataType"), h("dd", mp.dataType),
          h("dt", "globalDim"), h("dd", list(mp.globalDim)),
          h("dt", "globalStrides"), h("dd", `${list(mp.globalStrides)} B`),
          h("dt", "boxDim"), h("dd", list(mp.boxDim)),
          h("dt", "elementStrides"), h("dd", list(mp.elementStrides)),
          h("dt", "interleave"), h("dd", mp.interleave),
          h("dt", "swizzle"), h("dd", mp.swizzle + (mp.swizzleAtom ? ` (atom ${mp.swizzleAtom})` : "")),
          h("dt", "oobFill"), h("dd", mp.oobFill))) : null,
      box ? h("section.tma-global", { "aria-label": "Box in the global tensor" },
        h("h4", "Box in the global tensor"),
        h("p.tma-count",
          `${n(box.elements)} elements (${box.elems.join(" × ")}) · ${n(box.bytes)} bytes counted as transaction bytes (the whole box) · `,
          h("b", { class: box.oob ? "tma-oob-count" : "" }, `${n(box.oob)} out of bounds`),
          box.oob ? ` (${t.direction === "load" || t.direction === "prefetch" ? `read as ${mp?.oobFill === "nan" ? "NaN" : "zero"}` : "not written"})` : ""),
        boxGrid(box),
        box.rowsOmitted ? h("p.muted", `${n(box.rowsOmitted)} more rows not drawn.`) : null,
        h("p.tma-legend.muted", h("span.tma-key"), " in bounds, coloured by 16-byte chunk of its row; ", h("span.tma-key.tma-oob"), " out of bounds")) : null);
    this.renderTile(t, box ?? null, t.tile ?? null);
  }

  /** The shared-memory tile, drawn with the swizzle explorer's grids. */
  private renderTile(t: Tma, box: TmaBox | null, tile: TmaTile | null): void {
    if (!tile || !box) {
      setChildren(this.tile);
      this.tileKey = "";
      return;
    }
    const q = new URLSearchParams({ mode: tile.mode, rowBytes: String(tile.rowBytes), rows: String(tile.rows), base: String(tile.base), unit: "16" });
    if (tile.atom) q.set("atom", tile.atom);
    const key = `${q}|${JSON.stringify(box.rows)}`;
    if (key === this.tileKey) return;
    this.tileKey = key;
    const seq = ++this.seq;
    setChildren(this.tile, h("p.muted", "Loading the shared-memory tile…"));
    void fetch(`/api/swizzle?${q}`, { headers: { Accept: "application/json" } })
      .then(async (r) => {
        const body = (await r.json()) as SwizzleDoc & { error?: string };
        if (!r.ok) throw new Error(body.error ?? `error ${r.status}`);
        return body;
      })
      .then((d) => {
        if (seq === this.seq) this.drawTile(t, box, tile, d);
      })
      .catch((e: Error) => {
        if (seq === this.seq) setChildren(this.tile, h("p.error", `The tile could not be drawn: ${e.message}`));
      });
  }

  private drawTile(t: Tma, box: TmaBox, tile: TmaTile, d: SwizzleDoc): void {
    const focus = { ...d.access[0], lanes: [] };
    const logical = logicalGrid(d, focus, null);
    const physical = physicalGrid(d, null);
    // Mark the 16-byte chunks whose elements are all out of bounds (the
    // fill), on both grids.
    const n0 = box.x.length;
    const per = 16 / box.elemBytes;
    const filled = new Set<string>();
    let nfill = 0;
    logical.querySelectorAll<HTMLElement>("td.swz-cell").forEach((td) => {
      const r = Number(td.dataset.row), c = Number(td.dataset.chunk);
      const first = (r * tile.rowBytes + c * 16) / box.elemBytes;
      let all = true;
      for (let k = 0; k < Math.max(1, per); k++) {
        const e = Math.floor(first) + k;
        if (!oob(box, Math.floor(e / n0), e % n0)) all = false;
      }
      if (!all) return;
      nfill++;
      td.classList.add("tma-oob");
      td.title += "\nout of bounds: holds the fill";
      filled.add(`${td.dataset.prow},${td.dataset.pchunk}`);
    });
    // A tile row that is one box row is labelled with its coordinates.
    if (tile.rowBytes === n0 * box.elemBytes) {
      logical.querySelectorAll<HTMLElement>("tbody th").forEach((th, r) => {
        const row = box.rows[r];
        if (row && row.coords.length) th.textContent = rowLabel(row.coords);
      });
    }
    physical.querySelectorAll<HTMLElement>("td.swz-cell").forEach((td) => {
      if (filled.has(`${td.dataset.row},${td.dataset.chunk}`)) td.classList.add("tma-oob");
    });
    const rows = tile.rows < tile.totalRows ? ` (the first ${tile.rows} of ${tile.totalRows} rows)` : "";
    const end = tile.base + tile.bytes - 1;
    setChildren(this.tile,
      h("h4", "Where it lands in shared memory"),
      h("p.tma-count", `${d.name} · bytes 0x${tile.base.toString(16)}–0x${end.toString(16)} of CTA #${t.linear}'s shared memory${t.sharedRank ? ` (rank ${t.sharedRank})` : ""} · rows of ${tile.rowBytes} B${rows}`,
        nfill ? ` · ${nfill} chunk${nfill === 1 ? "" : "s"} of fill` : ""),
      h("div.tma-actions",
        h("button.btn-small", { type: "button", "data-action": "tma-banks", title: "Open the Memory tab's bank grid at the tile", onclick: () => this.banks(tile.base) }, "Show in Banks")),
      h("div.swz-grids",
        h("figure.swz-fig", h("figcaption", "Box row (logical, 16-byte chunk) → physical chunk; hatched: out of bounds"), logical),
        h("figure.swz-fig", h("figcaption", "Physical layout: the logical chunk stored at each place"), physical)));
  }
}
