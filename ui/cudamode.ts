// The CUDA mode: kernel.cu in its own editor beside the PTX clang makes of
// it (read-only there; "Edit the PTX" forks it into PTX mode), compiled
// on the server as the user types (debounced; only the newest reply is
// shown), with clang's diagnostics at their line:col and the options
// (target, optimisation level, fast-math). Where the server has no clang,
// the mode says how to install it and PTX mode works unchanged. The
// CUDA ↔ PTX marks (colours, hover, breakpoints, warp lines, shading,
// badges) are in cudaview.ts.

import type { Compiled, CudaSource, HelloCuda, Loaded, Message } from "./proto";
import { Editor } from "./editor";
import { h, setText, stored } from "./dom";
import type { App } from "./app";
import { CudaView } from "./cudaview";

export const defaultCuda = `// kernel.cu: each thread adds one pair of elements.
__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
`;

export const arches = ["sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"];

export class CudaMode {
  on = false;
  editor: Editor | null = null;
  /** The server's CUDA support (hello.cuda); null until the hello. */
  support: HelloCuda | null = null;
  arch = "sm_80";
  opt = 2;
  fastMath = false;
  /** The newest compile or CUDA load sent: older replies are ignored. */
  newest = 0;
  /** The compile shown (its PTX and line map). */
  shown: Compiled | null = null;
  readonly view: CudaView;
  readonly host = h("div#pg-cuda.pg-cuda");
  private dual = h("div.pg-dual");
  private status = h("span#pg-cuda-status.cuda-status", { role: "status", "aria-live": "polite" });
  private note = h("div#pg-cuda-note.cuda-note", { hidden: true });
  private archSel = h("select#pg-cuda-arch", { title: "Target GPU architecture (clang's --cuda-gpu-arch)", "aria-label": "Target" },
    arches.map((a) => h("option", { value: a }, a))) as HTMLSelectElement;
  private optSel = h("select#pg-cuda-opt", { title: "Optimisation level", "aria-label": "Optimisation level" },
    [0, 1, 2, 3].map((o) => h("option", { value: String(o) }, `-O${o}`))) as HTMLSelectElement;
  private fast = h("input#pg-cuda-fast", { type: "checkbox" }) as HTMLInputElement;
  private lineBtn = h("button#pg-step-line.btn", {
    type: "button", "data-action": "step-line", "aria-pressed": "false", disabled: true,
    title: "Forward until the selected warp's CUDA source line changes (l); Back then steps by source lines (Shift+L)",
  }, h("span.icon-glyph", { "aria-hidden": "true" }, "↧"), h("span.label", "Line"));
  private timer = 0;
  /** Compiles 300 ms after the last edit. */
  compileSoon(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.compile(), 300);
  }
  private toggleBtn = h("button#pg-cuda-toggle.btn-small.cuda-toggle", { type: "button", title: "Write the kernel in CUDA C++ (compiled to PTX by clang on the server)" }, "CUDA");

  constructor(private readonly app: App) {
    this.view = new CudaView(app, this);
    this.toggleBtn.addEventListener("click", () => (this.on ? this.forkPTX() : this.enter(stored("ptxplay.cuda") ?? defaultCuda)));
    // An embed shows the kernel it was made with: no switch to CUDA mode.
    if (!app.compact) document.querySelector(".pg-left > .pane-head .pane-title")?.before(this.toggleBtn);
    // The source-line step, beside the Barrier button; shown while a CUDA program is loaded.
    this.lineBtn.hidden = true;
    document.querySelector('[data-action="step-barrier"]')?.after(" ", this.lineBtn);
    app.model.subscribe((c) => {
      if (c.has("loaded")) this.lineBtn.hidden = !app.model.loaded?.cuda;
    });
    this.archSel.value = this.arch;
    this.optSel.value = String(this.opt);
    const opts = () => {
      this.arch = this.archSel.value;
      this.opt = Number(this.optSel.value);
      this.fastMath = this.fast.checked;
      this.edited();
    };
    this.archSel.addEventListener("change", opts);
    this.optSel.addEventListener("change", opts);
    this.fast.addEventListener("change", opts);
  }

  /** The CUDA the editor holds, as a load or compile sends it. */
  source(): CudaSource {
    return { source: this.editor?.text ?? "", arch: this.arch, opt: this.opt, fastMath: this.fastMath };
  }

  /** Switches to CUDA mode with source (and options). */
  enter(source: string, o: { arch?: string; opt?: number; fastMath?: boolean } = {}): void {
    if (o.arch && arches.includes(o.arch)) this.arch = o.arch;
    if (o.opt !== undefined && o.opt >= 0 && o.opt <= 3) this.opt = o.opt;
    this.fastMath = !!o.fastMath;
    this.archSel.value = this.arch;
    this.optSel.value = String(this.opt);
    this.fast.checked = this.fastMath;
    if (!this.on) this.mount();
    this.editor!.setText(source);
    this.on = true;
    this.shown = null;
    this.view.clear();
    this.app.editor.setReadOnly(true);
    setText(this.toggleBtn, "Edit the PTX");
    this.toggleBtn.title = "Fork the PTX into PTX mode: edit it by hand (the CUDA is left behind)";
    this.showSupport();
    this.edited();
  }

  private mount(): void {
    const ptx = this.app.editor.view.dom.parentElement!;
    const dual = this.dual;
    ptx.before(dual);
    const ptxCol = h("div.pg-ptx-col", h("div.cuda-bar", h("span.cuda-file", "kernel.ptx"), h("span.cuda-sub", "clang's output, read-only")));
    dual.append(this.host, ptxCol);
    ptxCol.append(ptx);
    const edHost = h("div#pg-cuda-editor.pg-editor.pg-cuda-editor");
    this.host.replaceChildren(
      h("div.cuda-bar", h("span.cuda-file", "kernel.cu"), this.archSel, this.optSel,
        h("label.check", { title: "--use_fast_math: approximate division, sqrt and transcendental functions" }, this.fast, "fast-math"), this.status),
      this.note, edHost);
    document.querySelector(".pg-left")?.classList.add("cuda-on");
    if (!this.editor) {
      this.editor = new Editor(edHost, "", {
        toggleBreakpoint: (line, on) => this.view.toggleBreakpoint(line, on),
        changed: () => this.edited(),
        compile: () => this.app.editor.view.dom.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true })),
        registerHover: () => null,
      }, this.app.isDark(), { cuda: true, hoverLine: (l) => this.view.hoverCuda(l) });
    } else edHost.append(this.editor.view.dom);
  }

  /** Leaves CUDA mode, keeping the PTX in the (now editable) PTX editor. */
  forkPTX(): void {
    if (!this.on) return;
    if (this.editor) stored("ptxplay.cuda", this.editor.text);
    this.on = false;
    this.shown = null;
    this.newest = Number.MAX_SAFE_INTEGER; // replies still on the way are not shown
    const ptx = this.app.editor.view.dom.parentElement;
    if (ptx && this.dual.isConnected) this.dual.replaceWith(ptx);
    document.querySelector(".pg-left")?.classList.remove("cuda-on");
    this.app.editor.setReadOnly(this.app.compact);
    this.view.clear();
    setText(this.toggleBtn, "CUDA");
    this.toggleBtn.title = "Write the kernel in CUDA C++ (compiled to PTX by clang on the server)";
    this.app.cudaChanged();
  }

  /** The hello's CUDA support. */
  setSupport(s: HelloCuda | undefined): void {
    this.support = s ?? null;
    if (s?.arches?.length) this.archSel.replaceChildren(...s.arches.map((x) => h("option", { value: x }, x)));
    if (s?.arches?.length && !s.arches.includes(this.arch)) this.arch = s.defaultArch;
    this.archSel.value = this.arch;
    if (s?.defaultArch && !this.on) {
      this.arch = s.defaultArch;
      this.archSel.value = s.defaultArch;
    }
    this.showSupport();
  }

  private showSupport(): void {
    const s = this.support;
    const missing = !!s && !s.available;
    this.note.hidden = !missing;
    if (missing) setText(this.note, `${s.message || "This server cannot compile CUDA."} PTX mode works as before: "Edit the PTX" switches to it.`);
  }

  /** An edit of the CUDA or its options. */
  edited(): void {
    if (!this.on) return;
    if (this.editor) stored("ptxplay.cuda", this.editor.text);
    this.compileSoon();
    this.app.cudaChanged();
  }

  /** Sends a compile of what the editor holds (the result is shown, the run untouched). */
  compile(): void {
    if (!this.on || !this.app.session.isOpen || this.support?.available === false) return;
    const id = this.app.session.conn.send({ type: "compile", cuda: this.source() });
    if (!id) return;
    this.newest = Math.max(this.newest, id);
    setText(this.status, "compiling…");
    this.status.dataset.kind = "busy";
  }

  /** A CUDA load was sent with id: its compiled reply is the newest. */
  loading(id: number): void {
    this.newest = Math.max(this.newest, id);
    window.clearTimeout(this.timer);
  }

  /** A compiled reply (of a compile or of a CUDA load). */
  onCompiled(m: Compiled): void {
    if (!this.on || (m.id ?? 0) < this.newest) return;
    if (m.error) {
      if (m.error.code === "cancelled") return;
      setText(this.status, m.error.message);
      this.status.dataset.kind = "error";
      if (m.error.code === "not-installed") this.setSupport({ available: false, message: m.error.message, arches: [], defaultArch: this.arch });
      return;
    }
    const items: Message[] = m.diagnostics.map((d) => ({
      severity: d.severity, id: "", line: d.inPrelude ? 1 : d.line, col: d.inPrelude ? 1 : d.col, endLine: 0, endCol: 0,
      message: d.inPrelude ? `(in the prelude, line ${d.line}) ${d.message}` : d.message,
    }));
    this.editor?.setDiagnostics(items);
    const errs = m.diagnostics.filter((d) => d.severity === "error").length;
    const first = m.diagnostics.find((d) => d.severity === "error");
    setText(this.status, errs ? `${errs} error${errs > 1 ? "s" : ""}${first ? ` · ${first.line}:${first.col} ${first.message}` : ""}`
      : `PTX in ${Math.round(m.durationMs)} ms${m.cached ? " (cached)" : ""}`);
    this.status.title = first ? `kernel.cu:${first.line}:${first.col}: ${first.message}` : "";
    this.status.dataset.kind = errs ? "error" : "ok";
    if (!m.ok) return;
    this.shown = m;
    if (this.app.editor.text !== m.ptx) this.app.editor.setText(m.ptx);
    this.view.mapChanged();
  }

  onLoaded(m: Loaded): void {
    this.view.loaded(m);
  }
}
