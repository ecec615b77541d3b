// The launch panel: grid and block, dynamic shared memory, buffers and
// parameters — the launch spec of `ptxplay run` (docs/launch-spec.md) —
// as a form kept in sync with its JSON, with import and export. The spec's
// JSON is handled in launchspec.ts, the buffer and parameter rows in
// launchrows.ts.

import type { Spec } from "./proto";
import { schedulingValues } from "./proto";
import { h, setChildren, download } from "./dom";
import { canonical, dims, parseSpec, pretty, trim } from "./launchspec";
import { bufferRow, paramRow } from "./launchrows";
import type { RowContext } from "./launchrows";

export { canonical, parseSpec, pretty, wireSpec } from "./launchspec";
export { toValue } from "./launchrows";

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
  /** The buffer and parameter rows' view of the panel. */
  private rows: RowContext = {
    spec: () => this.spec,
    upd: (f, rerender = false) => {
      f();
      if (rerender) this.renderForm();
      this.emit();
    },
  };

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
      (s.buffers ?? []).length ? h("div.buf-list", (s.buffers ?? []).map((b, i) => bufferRow(this.rows, b, i))) : h("p.empty.small", "No buffers."),
      h("div.section-head", h("span", "Parameters"), h("span.muted", " in the kernel's order"), h("span.spacer"),
        h("button.small", { type: "button", onclick: () => this.addParam(bufNames) }, "+ parameter")),
      (s.params ?? []).length ? h("div.param-list", (s.params ?? []).map((p, i) => paramRow(this.rows, p, i, bufNames))) : h("p.empty.small", "No parameters."),
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

  /** A one-line summary: "grid 4 · block 64 · 3 buffers". */
  summary(): string {
    const d = (x: number[]) => trim(x).join("×");
    const nb = this.spec.buffers?.length ?? 0;
    const dyn = this.spec.dynamicSharedBytes ? ` · ${this.spec.dynamicSharedBytes.toLocaleString("en-US")} B dynamic shared` : "";
    const cl = this.spec.cluster && dims(this.spec.cluster).some((x) => x > 1) ? ` · cluster ${d(this.spec.cluster)}` : "";
    return `grid ${d(this.spec.grid)} · block ${d(this.spec.block)}${cl} · ${nb} buffer${nb === 1 ? "" : "s"}${dyn}`;
  }
}
