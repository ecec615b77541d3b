// The launch panel: grid and block, dynamic shared memory, buffers and
// parameters — the launch spec of `ptxplay run` (docs/launch-spec.md) —
// as a form kept in sync with its JSON, with import and export.

import type { Spec, SpecBuffer, SpecInit, SpecParam, SpecValue } from "./proto";
import { elemTypes, schedulingValues } from "./proto";
import { h, setChildren, download } from "./dom";

type InitKind = "zero" | "values" | "iota" | "fill" | "random" | "bytes";

const initKinds: [InitKind, string][] = [
  ["zero", "zeros"], ["values", "values"], ["iota", "iota (start + i·step)"], ["fill", "fill"], ["random", "random"], ["bytes", "raw bytes"],
];

/** A spec value from what the user typed: a JSON number when it is one and survives as one, else the text. */
export function toValue(text: string): SpecValue {
  const s = text.trim();
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(s)) {
    const n = Number(s);
    if (/^-?\d+$/.test(s)) return Number.isSafeInteger(n) ? n : s;
    if (Number.isFinite(n)) return n;
  }
  return s;
}

function valueText(v: SpecValue | undefined): string {
  return v === undefined ? "" : String(v);
}

function listText(vs: SpecValue[] | undefined): string {
  return (vs ?? []).map(valueText).join(", ");
}

function parseList(text: string): SpecValue[] {
  return text.split(/[,\s]+/).filter((x) => x !== "").map(toValue);
}

function initKind(i: SpecInit | undefined): InitKind {
  if (!i) return "zero";
  if (i.values) return "values";
  if (i.iota) return "iota";
  if (i.fill !== undefined) return "fill";
  if (i.random) return "random";
  if (i.bytes !== undefined) return "bytes";
  return "zero";
}

/** The kind of a parameter: "buffer", "bytes" or its scalar type. */
function paramKind(p: SpecParam): string {
  if ("buffer" in p) return "buffer";
  if ("bytes" in p) return "bytes";
  return Object.keys(p)[0] ?? "u32";
}

/** Puts the spec's keys in the documented order (stable exports and diffs). */
export function canonical(s: Spec): Spec {
  const o: Record<string, unknown> = {};
  const src = s as unknown as Record<string, unknown>;
  const order = ["version", "comment", "ptx", "source", "entry", "grid", "block", "cluster", "dynamicSharedBytes", "maxWarpInstructions", "scheduling", "buffers", "params"];
  for (const k of order) if (src[k] !== undefined && src[k] !== "") o[k] = src[k];
  for (const k of Object.keys(src)) if (!order.includes(k)) o[k] = src[k];
  o.version = 1;
  if (!o.grid) o.grid = [1, 1, 1];
  if (!o.block) o.block = [1, 1, 1];
  return o as unknown as Spec;
}

function dims(v: unknown): number[] {
  const a = Array.isArray(v) ? v.map(Number) : [];
  return [a[0] || 1, a[1] || 1, a[2] || 1];
}

/** Validates the shape of a spec object well enough to edit it (the server checks the rest). */
export function parseSpec(text: string): Spec {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`invalid JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("a launch spec is a JSON object");
  const s = v as Record<string, unknown>;
  if (s.buffers !== undefined && !Array.isArray(s.buffers)) throw new Error('"buffers" must be an array');
  if (s.params !== undefined && !Array.isArray(s.params)) throw new Error('"params" must be an array');
  for (const [i, b] of ((s.buffers as unknown[]) ?? []).entries()) {
    if (!b || typeof b !== "object") throw new Error(`buffers[${i}] must be an object`);
  }
  for (const [i, p] of ((s.params as unknown[]) ?? []).entries()) {
    if (!p || typeof p !== "object" || Array.isArray(p)) throw new Error(`params[${i}] must be an object such as {"buffer": "a"} or {"u32": 1}`);
  }
  return { ...(s as unknown as Spec), grid: dims(s.grid ?? [1]), block: dims(s.block ?? [1]) };
}

/** The spec as sent in `load`: without "ptx"/"source" and trailing 1-dimensions. */
export function wireSpec(s: Spec): Spec {
  const out = canonical(s);
  delete out.ptx;
  delete out.source;
  out.grid = trim(out.grid);
  out.block = trim(out.block);
  if (out.cluster) out.cluster = trim(out.cluster);
  return out;
}

function trim(d: number[]): number[] {
  const a = dims(d);
  if (a[2] === 1) a.pop();
  if (a.length === 2 && a[1] === 1) a.pop();
  return a;
}

export interface LaunchHooks {
  /** The spec changed (form or JSON). */
  changed(spec: Spec): void;
  /** The user imported PTX (a .ptx file, or a spec that carries its source). */
  importSource(source: string, fileName?: string): void;
  /** A spec came from an import: it is taken as made for the editor's kernel. */
  adopted(): void;
  /** Replace the launch with the one inferred from the kernel. */
  infer(): void;
  /** The current PTX source, for export. */
  source(): string;
  /** A name for exported files. */
  baseName(): string;
  /** Shows a message to the user. */
  notify(msg: string, kind?: "error" | "info"): void;
}

export class LaunchPanel {
  spec: Spec = { version: 1, grid: [1, 1, 1], block: [32, 1, 1] };
  /** The module's kernels (from `loaded`): the entry becomes a chooser when there are several. */
  private kernels: string[] = [];
  private form: HTMLElement;
  private json: HTMLTextAreaElement;
  private jsonErr: HTMLElement;
  private fileInput: HTMLInputElement;

  constructor(root: HTMLElement, private readonly hooks: LaunchHooks, initialJSON: HTMLTextAreaElement | null) {
    this.form = h("div.launch-form");
    this.json = initialJSON ?? h("textarea");
    this.json.classList.add("launch-json");
    this.json.spellcheck = false;
    this.json.setAttribute("aria-label", "Launch spec as JSON");
    this.jsonErr = h("div.launch-json-err", { role: "status" });
    this.fileInput = h("input", { type: "file", accept: ".json,application/json", hidden: true });
    this.fileInput.addEventListener("change", () => void this.importFile());
    this.json.addEventListener("input", () => this.fromJSON());
    const actions = h("div.launch-actions",
      h("button.small.infer-launch", { type: "button", onclick: () => this.hooks.infer(), title: "Replace this launch with the one inferred from the kernel in the editor: grid, block, dynamic shared memory, buffers and parameters (what `ptxplay init` writes)" }, "Infer launch"),
      h("button.small", { type: "button", onclick: () => this.fileInput.click(), title: "Import a launch spec (JSON file; its \"source\" replaces the editor's PTX)" }, "Import…"),
      h("button.small", { type: "button", onclick: () => this.exportSpec(), title: "Download this launch spec with the PTX inline: `ptxplay run spec.json` runs it" }, "Export"),
      h("button.small", { type: "button", onclick: () => this.copy(), title: "Copy the spec JSON" }, "Copy"),
      this.fileInput);
    setChildren(root,
      h("div.launch-cols",
        h("div.launch-left", this.form),
        h("div.launch-right",
          h("div.launch-json-head", h("span", "JSON"), h("span.muted.small-note", "the same spec as ptxplay run: edit, paste or drop a file"), h("span.spacer"), actions),
          this.json, this.jsonErr)));
    root.addEventListener("dragover", (e) => e.preventDefault());
    root.addEventListener("drop", (e) => {
      const f = e.dataTransfer?.files?.[0];
      if (!f) return;
      e.preventDefault();
      void this.readFile(f);
    });
  }

  /** Sets the spec (an example or an import) without reporting a change. */
  set(spec: Spec): void {
    this.spec = canonical(spec);
    delete this.spec.source;
    delete this.spec.ptx;
    this.renderForm();
    this.writeJSON(true);
  }

  /** The scheduling model the module's .target picks (from `loaded`). */
  private schedDefault = "";
  private targetSM = 0;

  setSchedulingDefault(model: string, sm: number): void {
    if (model === this.schedDefault && sm === this.targetSM) return;
    this.schedDefault = model;
    this.targetSM = sm;
    this.renderForm();
  }

  /** The kernels of the loaded module. */
  setKernels(names: string[]): void {
    if (names.join("\n") === this.kernels.join("\n")) return;
    this.kernels = names;
    this.renderForm();
  }

  private emit(): void {
    this.writeJSON(false);
    this.hooks.changed(this.spec);
  }

  private writeJSON(force: boolean): void {
    if (!force && document.activeElement === this.json) return;
    this.json.value = pretty(canonical(this.spec));
    this.jsonErr.textContent = "";
    this.json.classList.remove("bad");
  }

  private fromJSON(): void {
    try {
      const s = parseSpec(this.json.value);
      if (s.source !== undefined) {
        this.hooks.adopted();
        this.hooks.importSource(s.source);
        delete s.source;
      }
      delete s.ptx;
      this.spec = canonical(s);
      this.jsonErr.textContent = "";
      this.json.classList.remove("bad");
      this.renderForm();
      this.hooks.changed(this.spec);
    } catch (e) {
      this.jsonErr.textContent = (e as Error).message;
      this.json.classList.add("bad");
    }
  }

  private async importFile(): Promise<void> {
    const f = this.fileInput.files?.[0];
    this.fileInput.value = "";
    if (f) await this.readFile(f);
  }

  private async readFile(f: File): Promise<void> {
    const text = await f.text();
    if (/\.ptx$/i.test(f.name) || (!text.trimStart().startsWith("{") && /\.(version|entry)\b/.test(text))) {
      this.hooks.importSource(text, f.name);
      this.hooks.notify(`Loaded ${f.name} into the editor.`, "info");
      return;
    }
    try {
      const s = parseSpec(text);
      const src = s.source;
      const ptxFile = s.ptx;
      delete s.source;
      delete s.ptx;
      this.set(s);
      this.hooks.adopted();
      if (src !== undefined) this.hooks.importSource(src, f.name.replace(/\.json$/i, ".ptx"));
      else if (ptxFile) this.hooks.notify(`${f.name} names its PTX file "${ptxFile}": open that file here (Import… or drop it) or paste its text into the editor.`, "info");
      this.hooks.changed(this.spec);
      this.hooks.notify(`Imported ${f.name}.`, "info");
    } catch (e) {
      this.hooks.notify(`${f.name}: ${(e as Error).message}`, "error");
    }
  }

  private exportSpec(): void {
    const s = canonical({ ...this.spec, source: this.hooks.source() });
    download(`${this.hooks.baseName()}.json`, pretty(s) + "\n");
  }

  private copy(): void {
    void navigator.clipboard?.writeText(pretty(canonical(this.spec)) + "\n").then(
      () => this.hooks.notify("Copied the launch spec.", "info"),
      () => this.hooks.notify("The browser refused clipboard access.", "error"));
  }

  // ---- the form ----

  private renderForm(): void {
    const s = this.spec;
    const num = (label: string, value: number | undefined, set: (n: number | undefined) => void, opts: { min?: number; placeholder?: string; title?: string; optional?: boolean } = {}) => {
      const input = h("input.num", { type: "number", min: opts.min ?? 0, value: value ?? "", placeholder: opts.placeholder ?? "", "aria-label": label, title: opts.title ?? label });
      input.addEventListener("change", () => {
        const t = input.value.trim();
        if (t === "" && opts.optional) set(undefined);
        else {
          const n = Math.floor(Number(t));
          if (!Number.isFinite(n) || n < (opts.min ?? 0)) {
            input.value = value === undefined ? "" : String(value);
            return;
          }
          set(n);
        }
        this.emit();
      });
      return input;
    };
    const dim3 = (label: string, d: number[], key: "grid" | "block" | "cluster", title = "") =>
      h("div.field", { title },
        h("span.field-label", label),
        h("div.dim3",
          ["x", "y", "z"].map((axis, i) => h("label.dim", h("span.axis", axis),
            num(`${label} ${axis}`, d[i], (n) => {
              const nd = dims(this.spec[key]);
              nd[i] = n ?? 1;
              this.spec[key] = nd;
            }, { min: 1 })))));
    let entry: HTMLInputElement | HTMLSelectElement;
    if (this.kernels.length > 1) {
      // Several kernels: choose one (the launch follows the kernel).
      const cur = s.entry && this.kernels.includes(s.entry) ? s.entry : this.kernels[0];
      entry = h("select", { "aria-label": "Entry kernel", title: "The kernel to launch: the buffers and parameters follow it" },
        this.kernels.map((k) => h("option", { value: k, selected: k === cur }, k)));
      entry.value = cur;
    } else {
      entry = h("input.text", { type: "text", value: s.entry ?? "", placeholder: "(the only kernel)", "aria-label": "Entry kernel", spellcheck: "false" });
    }
    entry.addEventListener("change", () => {
      const v = entry.value.trim();
      if (v) this.spec.entry = v;
      else delete this.spec.entry;
      this.emit();
    });
    const dflt = this.schedDefault ? ` (${this.schedDefault === "simt-stack" ? "SIMT stack" : "independent"}${this.targetSM ? ` for sm_${this.targetSM}` : ""})` : "";
    const sched = h("select", { "aria-label": "Scheduling model", class: "sched-select", title: "How the divergent paths of a warp are scheduled: independent thread scheduling (sm_70 and later) or the pre-Volta SIMT reconvergence stack" },
      h("option", { value: "", selected: !s.scheduling }, `default${dflt}`),
      h("option", { value: "independent", selected: s.scheduling === "independent" }, "independent"),
      h("option", { value: "simt-stack", selected: s.scheduling === "simt-stack" }, "SIMT stack"));
    sched.value = s.scheduling ?? "";
    sched.addEventListener("change", () => {
      const v = schedulingValues.find((x) => x === sched.value);
      if (v) this.spec.scheduling = v;
      else delete this.spec.scheduling;
      this.emit();
    });
    const totalThreads = dims(s.grid).reduce((a, b) => a * b, 1) * dims(s.block).reduce((a, b) => a * b, 1);
    const bufNames = (s.buffers ?? []).map((b) => b.name);
    setChildren(this.form,
      h("div.field-row",
        h("label.field", h("span.field-label", "entry"), entry),
        h("label.field", h("span.field-label", "dynamic shared"),
          h("span.with-unit", num("Dynamic shared memory bytes", s.dynamicSharedBytes, (n) => {
            if (n) this.spec.dynamicSharedBytes = n;
            else delete this.spec.dynamicSharedBytes;
          }, { optional: true, placeholder: "0" }), h("span.unit", "bytes"))),
        h("label.field", h("span.field-label", "instruction limit"),
          num("Maximum warp-instructions (empty: the server's limit)", s.maxWarpInstructions, (n) => {
            if (n) this.spec.maxWarpInstructions = n;
            else delete this.spec.maxWarpInstructions;
          }, { optional: true, placeholder: "—" })),
        h("label.field", h("span.field-label", "scheduling"), sched)),
      h("div.field-row", dim3("grid", dims(s.grid), "grid"), dim3("block", dims(s.block), "block"),
        // Thread-block clusters (sm_90): shown for a launch that sets them or a kernel for sm_90 and later.
        s.cluster || this.targetSM >= 90
          ? dim3("cluster", dims(s.cluster ?? [1]), "cluster", "CTAs per cluster (sm_90): the grid's dimensions must be multiples of it; 1×1×1 without clusters, unless the kernel's .reqnctapercluster says otherwise")
          : null,
        h("div.field.launch-total", h("span.field-label", "threads"), h("span.total", totalThreads.toLocaleString("en-US")))),
      h("div.section-head", h("span", "Buffers"), h("span.muted", " global memory, allocated in order"), h("span.spacer"),
        h("button.small", { type: "button", onclick: () => this.addBuffer() }, "+ buffer")),
      (s.buffers ?? []).length ? h("div.buf-list", (s.buffers ?? []).map((b, i) => this.bufferRow(b, i))) : h("p.empty.small", "No buffers."),
      h("div.section-head", h("span", "Parameters"), h("span.muted", " in the kernel's order"), h("span.spacer"),
        h("button.small", { type: "button", onclick: () => this.addParam(bufNames) }, "+ parameter")),
      (s.params ?? []).length ? h("div.param-list", (s.params ?? []).map((p, i) => this.paramRow(p, i, bufNames))) : h("p.empty.small", "No parameters."),
    );
  }

  private addBuffer(): void {
    const bufs = (this.spec.buffers ??= []);
    let n = bufs.length;
    const names = new Set(bufs.map((b) => b.name));
    let name = "buf";
    while (names.has(name)) name = `buf${++n}`;
    bufs.push({ name, type: "f32", count: 32 });
    this.renderForm();
    this.emit();
  }

  private addParam(bufNames: string[]): void {
    (this.spec.params ??= []).push(bufNames.length ? { buffer: bufNames[0] } : { u32: 0 });
    this.renderForm();
    this.emit();
  }

  private typeSelect(value: string, label: string, onchange: (v: string) => void, extra: [string, string][] = []): HTMLSelectElement {
    const sel = h("select.small", { "aria-label": label },
      extra.map(([v, l]) => h("option", { value: v }, l)),
      elemTypes.map((t) => h("option", { value: t }, t)));
    sel.value = value;
    sel.addEventListener("change", () => onchange(sel.value));
    return sel;
  }

  private text(value: string, label: string, onchange: (v: string) => void, cls = "text", placeholder = ""): HTMLInputElement {
    const input = h("input", { type: "text", class: cls, value, "aria-label": label, placeholder, spellcheck: "false" });
    input.addEventListener("change", () => onchange(input.value));
    return input;
  }

  private bufferRow(b: SpecBuffer, i: number): HTMLElement {
    const bufs = this.spec.buffers!;
    const kind = initKind(b.init);
    const upd = (f: () => void, rerender = false) => {
      f();
      if (rerender) this.renderForm();
      this.emit();
    };
    const initFields: (HTMLElement | string)[] = [];
    const init = b.init ?? {};
    switch (kind) {
      case "values":
        initFields.push(this.text(listText(init.values), `${b.name} values`, (v) => upd(() => { b.init = { values: parseList(v) }; }), "text wide", "1, 2.5, -1, 0x3f800000"));
        break;
      case "iota":
        initFields.push("start", this.text(valueText(init.iota?.start), `${b.name} iota start`, (v) => upd(() => { b.init = { iota: { ...b.init?.iota, start: toValue(v || "0") } }; }), "text short", "0"),
          "step", this.text(valueText(init.iota?.step), `${b.name} iota step`, (v) => upd(() => { b.init = { iota: { ...b.init?.iota, step: toValue(v || "1") } }; }), "text short", "1"));
        break;
      case "fill":
        initFields.push(this.text(valueText(init.fill), `${b.name} fill value`, (v) => upd(() => { b.init = { fill: toValue(v || "0") }; }), "text short", "0"));
        break;
      case "random":
        initFields.push("seed", this.text(String(init.random?.seed ?? 1), `${b.name} random seed`, (v) => upd(() => { b.init = { random: { ...b.init?.random, seed: Math.max(0, Math.floor(Number(v) || 0)) } }; }), "text short"),
          "min", this.text(valueText(init.random?.min), `${b.name} random min`, (v) => upd(() => { const r = { ...b.init!.random! }; if (v.trim()) r.min = toValue(v); else delete r.min; b.init = { random: r }; }), "text short", "default"),
          "max", this.text(valueText(init.random?.max), `${b.name} random max`, (v) => upd(() => { const r = { ...b.init!.random! }; if (v.trim()) r.max = toValue(v); else delete r.max; b.init = { random: r }; }), "text short", "default"));
        break;
      case "bytes":
        initFields.push(this.text(init.bytes ?? "", `${b.name} bytes`, (v) => upd(() => { b.init = { bytes: v.trim() }; }), "text wide mono", "hex, memory order"));
        break;
      case "zero":
        break;
    }
    const kindSel = h("select.small", { "aria-label": `${b.name} initial contents` }, initKinds.map(([k, l]) => h("option", { value: k }, l)));
    kindSel.value = kind;
    kindSel.addEventListener("change", () => upd(() => {
      switch (kindSel.value as InitKind) {
        case "zero": delete b.init; break;
        case "values": b.init = { values: [] }; break;
        case "iota": b.init = { iota: { start: 0, step: 1 } }; break;
        case "fill": b.init = { fill: 0 }; break;
        case "random": b.init = { random: { seed: 1 } }; break;
        case "bytes": b.init = { bytes: "" }; break;
      }
    }, true));
    const count = h("input.num", { type: "number", min: 0, value: b.count ?? "", "aria-label": `${b.name} element count`, title: "element count" });
    count.addEventListener("change", () => upd(() => {
      const n = Math.max(0, Math.floor(Number(count.value) || 0));
      b.count = n;
    }));
    const out = h("input", { type: "checkbox", checked: b.output !== false, "aria-label": `${b.name} is an output`, title: "Report this buffer in the run's result" });
    out.addEventListener("change", () => upd(() => {
      if (out.checked) delete b.output;
      else b.output = false;
    }));
    return h("div.buf-row",
      this.text(b.name, `buffer ${i} name`, (v) => upd(() => {
        const old = b.name;
        b.name = v.trim();
        // Parameters follow the rename.
        for (const p of this.spec.params ?? []) if (p.buffer === old) p.buffer = b.name;
      }, true), "text name mono"),
      this.typeSelect(b.type, `${b.name} element type`, (v) => upd(() => { b.type = v; })),
      h("span.times", "×"), count,
      kindSel, h("span.init-fields", initFields),
      h("label.check", { title: "Report this buffer in the run's result" }, out, "out"),
      h("button.icon", { type: "button", title: `Remove ${b.name}`, "aria-label": `Remove buffer ${b.name}`, onclick: () => upd(() => { bufs.splice(i, 1); }, true) }, "×"));
  }

  private paramRow(p: SpecParam, i: number, bufNames: string[]): HTMLElement {
    const params = this.spec.params!;
    const kind = paramKind(p);
    const upd = (f: () => void, rerender = false) => {
      f();
      if (rerender) this.renderForm();
      this.emit();
    };
    const kindSel = this.typeSelect(kind, `parameter ${i} kind`, (v) => upd(() => {
      if (v === "buffer") params[i] = { buffer: bufNames[0] ?? "" };
      else if (v === "bytes") params[i] = { bytes: "" };
      else {
        const old = kind !== "buffer" && kind !== "bytes" ? p[kind] : 0;
        params[i] = { [v]: old ?? 0 };
      }
    }, true), [["buffer", "buffer address"], ["bytes", "raw bytes"]]);
    let fields: HTMLElement[] = [];
    if (kind === "buffer") {
      const sel = h("select.small", { "aria-label": `parameter ${i} buffer` },
        bufNames.map((n) => h("option", { value: n }, n)),
        bufNames.includes(String(p.buffer)) ? null : h("option", { value: String(p.buffer ?? "") }, `${p.buffer ?? ""} (missing)`));
      sel.value = String(p.buffer ?? "");
      sel.addEventListener("change", () => upd(() => { p.buffer = sel.value; }));
      const off = h("input.num", { type: "number", min: 0, value: (p.offset as number | undefined) ?? "", placeholder: "0", "aria-label": `parameter ${i} byte offset`, title: "byte offset into the buffer" });
      off.addEventListener("change", () => upd(() => {
        const n = Math.max(0, Math.floor(Number(off.value) || 0));
        if (n) p.offset = n;
        else delete p.offset;
      }));
      fields = [sel, h("span.muted", "+"), off, h("span.unit", "bytes")];
    } else if (kind === "bytes") {
      fields = [this.text(String(p.bytes ?? ""), `parameter ${i} bytes`, (v) => upd(() => { p.bytes = v.trim(); }), "text wide mono", "hex, memory order")];
    } else {
      const v = p[kind];
      const text = Array.isArray(v) ? listText(v as SpecValue[]) : valueText(v as SpecValue);
      fields = [this.text(text, `parameter ${i} value`, (nv) => upd(() => {
        const list = parseList(nv);
        p[kind] = Array.isArray(v) || list.length > 1 ? list : list[0] ?? 0;
      }), "text wide mono", "value (several: an array)")];
    }
    const move = (d: number) => upd(() => {
      const j = i + d;
      if (j < 0 || j >= params.length) return;
      [params[i], params[j]] = [params[j], params[i]];
    }, true);
    return h("div.param-row",
      h("span.param-no", String(i)),
      kindSel, h("span.param-fields", fields),
      h("span.spacer"),
      h("button.icon", { type: "button", title: "Move up", "aria-label": `Move parameter ${i} up`, disabled: i === 0, onclick: () => move(-1) }, "↑"),
      h("button.icon", { type: "button", title: "Move down", "aria-label": `Move parameter ${i} down`, disabled: i === params.length - 1, onclick: () => move(1) }, "↓"),
      h("button.icon", { type: "button", title: "Remove", "aria-label": `Remove parameter ${i}`, onclick: () => upd(() => { params.splice(i, 1); }, true) }, "×"));
  }

  /** A one-line summary: "grid 4 · block 64 · 3 buffers". */
  summary(): string {
    const d = (x: number[]) => trim(x).join("×");
    const nb = this.spec.buffers?.length ?? 0;
    const dyn = this.spec.dynamicSharedBytes ? ` · ${this.spec.dynamicSharedBytes.toLocaleString("en-US")} B dynamic shared` : "";
    const cl = this.spec.cluster && dims(this.spec.cluster).some((x) => x > 1) ? ` · cluster ${d(this.spec.cluster)}` : "";
    return `grid ${d(this.spec.grid)} · block ${d(this.spec.block)}${cl} · ${nb} buffer${nb === 1 ? "" : "s"}${dyn}`;
  }
}

/** JSON with short arrays and objects (dims, params, init kinds) kept on one line. */
export function pretty(v: unknown): string {
  return fmt(v, "");
}

function fmt(v: unknown, indent: string): string {
  const flat = JSON.stringify(v);
  if (flat === undefined) return "null";
  if (v === null || typeof v !== "object") return flat;
  const inner = indent + "  ";
  const nested = Array.isArray(v) ? v.some((x) => x !== null && typeof x === "object" && !isSmall(x)) : Object.values(v).some((x) => x !== null && typeof x === "object" && !isSmall(x));
  if (!nested && flat.length + indent.length <= 76) return spaced(v);
  if (Array.isArray(v)) {
    if (!v.length) return "[]";
    return "[\n" + v.map((x) => inner + fmt(x, inner)).join(",\n") + "\n" + indent + "]";
  }
  const entries = Object.entries(v);
  if (!entries.length) return "{}";
  return "{\n" + entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${fmt(x, inner)}`).join(",\n") + "\n" + indent + "}";
}

function isSmall(x: unknown): boolean {
  return JSON.stringify(x).length <= 48 && !JSON.stringify(x).includes("[{");
}

/** One-line JSON with a space after commas and colons. */
function spaced(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(spaced).join(", ") + "]";
  return "{" + Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${spaced(x)}`).join(", ") + "}";
}
