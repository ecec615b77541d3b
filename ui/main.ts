// PTX Playground: the browser side. The page shell is server-rendered
// (web/playground.templ); this script hydrates it: the editor replaces the
// pre-rendered source, the panels fill in, and the websocket session
// (docs/protocol.md) drives everything.

import "./cmstyle";
import "./styles.css";
import { Conn } from "./conn";
import type { ConnState } from "./conn";
import { Model } from "./model";
import type { Change } from "./model";
import { Editor } from "./editor";
import type { WarpMarks } from "./editor";
import { LaunchPanel, parseSpec, wireSpec, canonical } from "./launch";
import { WarpsView, laneLegend, sameIdx } from "./warps";
import { RegsView } from "./regs";
import { MemoryView } from "./memory";
import { actionFor, helpContent } from "./keys";
import type { Action } from "./keys";
import { h, byId, setChildren, setText, toggle, grouped, download } from "./dom";
import { mask32, maskText, popc } from "./format";
import type { CtaState, Limits, Message, ServerMsg, Spec, State, Fault, EventInfo } from "./proto";
import { isaDocs } from "./isa";
import { initPresenter, togglePresenter } from "./presenter";

interface ExampleData {
  name: string;
  title: string;
  description?: string;
  source: string;
  spec: Spec | string;
}

type Tab = "regs" | "memory" | "launch" | "events";

function readJSON<T>(id: string): T | null {
  const el = document.getElementById(id);
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as T;
  } catch {
    return null;
  }
}

function store(key: string, value?: string): string | null {
  try {
    if (value !== undefined) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

class App {
  private model = new Model();
  private conn: Conn;
  private editor!: Editor;
  private launch!: LaunchPanel;
  private warps!: WarpsView;
  private regs!: RegsView;
  private mem!: MemoryView;
  private limits: Limits = {};
  private example: ExampleData | null = null;
  private diagnostics: Message[] = [];
  private loadError = "";
  /** What the last `load` sent (to tell edits apart from the running program). */
  private sentSource: string | null = null;
  private sentSpec = "";
  private loadId = 0;
  private compiled = false;
  private liveTimer = 0;
  private live = true;
  private seekPending = 0;
  private runId = 0;
  /** The name of an imported file (else the example's). */
  private fileName: string | null = null;
  private seekWanted: number | null = null;
  private tab: Tab = "regs";
  private toastTimer = 0;
  private lastRevealed = "";
  private ui = {
    conn: byId("pg-conn"),
    status: byId("pg-status"),
    step: byId("pg-step"),
    stats: byId("pg-stats"),
    timeline: byId<HTMLInputElement>("pg-timeline"),
    count: byId<HTMLInputElement>("pg-count"),
    problems: byId("pg-problems"),
    diagSummary: byId("pg-diag-summary"),
    fault: byId("pg-fault"),
    dirty: byId("pg-dirty"),
    file: byId("pg-file"),
    live: byId<HTMLInputElement>("pg-live"),
    toast: byId("pg-toast"),
    help: byId("pg-help"),
    events: byId("pg-tab-events"),
    launchSummary: byId("pg-launch-summary"),
    exampleSelect: document.getElementById("pg-example-select") as HTMLSelectElement | null,
    runBtn: document.querySelector<HTMLButtonElement>('[data-action="run"]'),
  };

  constructor() {
    this.conn = new Conn(Conn.pageURL(), {
      message: (m) => this.onMessage(m),
      state: (s, d) => this.onConnState(s, d),
      open: () => this.onOpen(),
    });
  }

  start(): void {
    this.applyTheme(store("ptxplay.theme") as "light" | "dark" | null);
    initPresenter();
    const initial = readJSON<ExampleData>("initial-example");
    const pre = document.getElementById("pg-source");
    const source = initial?.source ?? pre?.textContent ?? "";
    this.example = initial;

    const host = byId("pg-editor");
    setChildren(host);
    this.editor = new Editor(host, source, {
      toggleBreakpoint: (line, on) => this.toggleBreakpoint(line, on),
      changed: () => this.onEdit(),
      compile: () => this.compile(),
      registerHover: (name) => this.regs.hover(name),
    }, this.isDark());

    this.launch = new LaunchPanel(byId("pg-tab-launch"), {
      changed: () => this.onSpecEdit(),
      importSource: (src, fileName) => {
        this.editor.setText(src);
        if (fileName) this.fileName = fileName;
        this.updateFileName();
        this.onEdit();
      },
      source: () => this.editor.text,
      baseName: () => this.fileName?.replace(/\.\w+$/, "") ?? this.example?.name ?? this.model.loaded?.entry ?? "kernel",
      notify: (msg, kind) => this.toast(msg, kind),
    }, document.getElementById("pg-spec-json") as HTMLTextAreaElement | null);
    if (initial) this.launch.set(specOf(initial.spec));

    this.warps = new WarpsView(byId("pg-warps"), this.model, (c, w) => this.select(c, w), (line) => this.editor.goto(line));
    this.regs = new RegsView(byId("pg-tab-regs"), this.model);
    this.mem = new MemoryView(byId("pg-tab-memory"), this.model, (space, buffer, offset, bytes) => this.requestMemory(space, buffer, offset, bytes), () => this.sentSource ?? this.editor.text);
    this.model.subscribe((c) => this.render(c));

    this.bindControls();
    this.bindTabs();
    this.bindSplitter();
    this.renderLegend();
    this.updateFileName();
    this.renderProblems();
    this.renderStatus();
    this.renderEvents();
    this.updateLaunchSummary();

    this.live = store("ptxplay.live") !== "0";
    this.ui.live.checked = this.live;
    this.ui.live.addEventListener("change", () => {
      this.live = this.ui.live.checked;
      store("ptxplay.live", this.live ? "1" : "0");
      if (this.live && this.isDirty()) this.compile();
    });

    window.addEventListener("keydown", (e) => this.onKey(e));
    window.addEventListener("popstate", () => {
      const name = new URLSearchParams(location.search).get("example");
      if (name && name !== this.example?.name) void this.loadExample(name, false);
    });
    window.addEventListener("beforeunload", (e) => {
      if (this.isEditedExample()) e.preventDefault();
    });

    document.documentElement.classList.add("hydrated");
    if (!initial) {
      const name = new URLSearchParams(location.search).get("example") ?? "vector-add";
      void this.loadExample(name, false);
    }
    void isaDocs();
    this.conn.connect();
  }

  // ---- theme ----

  private isDark(): boolean {
    const t = document.documentElement.dataset.theme;
    if (t) return t === "dark";
    return !window.matchMedia("(prefers-color-scheme: light)").matches;
  }

  private applyTheme(t: "light" | "dark" | null): void {
    if (t) document.documentElement.dataset.theme = t;
    else delete document.documentElement.dataset.theme;
    this.editor?.setDark(this.isDark());
  }

  private toggleTheme(): void {
    const next = this.isDark() ? "light" : "dark";
    store("ptxplay.theme", next);
    this.applyTheme(next);
  }

  // ---- connection ----

  private onConnState(s: ConnState, detail: string): void {
    this.ui.conn.dataset.state = s;
    setText(this.ui.conn, s === "open" ? "connected" : detail);
    this.ui.conn.title = s === "open" ? "Connected to the session" : detail;
    if (s !== "open") this.model.running = false;
    this.model.emit(new Set<Change>(["status"]));
  }

  private onOpen(): void {
    // A fresh session: load what the editor holds.
    this.compile();
  }

  private send(msg: Record<string, unknown>): number {
    const id = this.conn.send(msg);
    if (!id) this.toast("Not connected to the server yet.", "error");
    return id;
  }

  private onMessage(m: ServerMsg): void {
    switch (m.type) {
      case "hello":
        this.limits = m.limits ?? {};
        if (this.limits.maxStepCount) this.ui.count.max = String(this.limits.maxStepCount);
        break;
      case "diagnostics":
        if (m.id !== undefined && m.id !== this.loadId) break;
        this.diagnostics = m.items ?? [];
        this.editor.setDiagnostics(this.diagnostics);
        if (this.diagnostics.some((d) => d.severity === "error")) {
          this.compiled = false;
          this.model.reset();
          this.model.emit(new Set<Change>(["loaded", "warps", "regs", "memory", "status", "fault", "events"]));
        }
        this.renderProblems();
        break;
      case "loaded":
        if (m.id !== undefined && m.id !== this.loadId) break;
        this.compiled = true;
        this.loadError = "";
        this.model.emit(this.model.applyLoaded(m));
        this.editor.setCodeLines(this.model.codeLines);
        this.resendBreakpoints();
        this.renderProblems();
        break;
      case "state":
        if (!this.model.loaded) break;
        this.onState(m);
        break;
      case "breakpoints":
        this.model.breakpoints = new Set(m.lines ?? []);
        this.editor.setBreakpoints([...this.model.breakpoints]);
        break;
      case "inspect":
        if (m.regs) {
          this.model.applyInspect(m.cta, m.warp, m.regs);
          this.model.emit(new Set<Change>(["regs"]));
        }
        if (m.memory) {
          this.model.applyMemory({ ...m.memory, cta: m.memory.cta ?? m.linear ?? m.cta });
          this.mem.received();
          this.model.emit(new Set<Change>(["memory"]));
        }
        break;
      case "done":
        this.onDone(m.result);
        break;
      case "error":
        this.onError(m.code, m.message, m.id);
        break;
    }
  }

  private onState(m: State): void {
    // After a load the server picks the warp whose registers it sends.
    if (m.full && m.regs && m.reason === "loaded") this.model.sel = { cta: m.regs.cta, warp: m.regs.warp };
    const ch = this.model.applyState(m);
    if (m.id !== undefined && m.id === this.seekPending) {
      this.seekPending = 0;
      const want = this.seekWanted;
      this.seekWanted = null;
      if (want !== null && want !== m.step) this.seek(want);
    }
    const newFault = ch.has("fault") && this.model.fault;
    if (newFault) this.selectFault(this.model.fault!);
    this.model.emit(ch);
    if (newFault) {
      this.warps.revealSelected();
      if (this.model.fault!.lane !== undefined) this.regs.revealLane(this.model.fault!.lane);
      if (this.model.fault!.line) this.editor.reveal(this.model.fault!.line);
    }
  }

  private onDone(result: Record<string, unknown> | undefined): void {
    const status = String(result?.status ?? this.model.status);
    if (status === "ok" || status === "done") {
      const stats = (result?.stats ?? {}) as Record<string, unknown>;
      const wi = Number(stats.warpInstructions ?? this.model.stats.warpInstructions);
      this.toast(`Finished: every thread exited after ${grouped(wi)} warp-instructions.`, "info");
    } else if (status === "limit") {
      this.toast("Stopped: the warp-instruction limit is spent.", "error");
    }
  }

  private onError(code: string, message: string, id?: number): void {
    if (code === "expired") {
      this.toast("The session expired; starting a new one.", "info");
      this.conn.reconnect();
      return;
    }
    if (id !== undefined && id === this.loadId) {
      this.loadError = message;
      this.compiled = false;
      this.model.reset();
      this.model.emit(new Set<Change>(["loaded", "warps", "regs", "memory", "status", "fault", "events"]));
      this.renderProblems();
      return;
    }
    if (id !== undefined && id === this.seekPending) {
      this.seekPending = 0;
      this.seekWanted = null;
    }
    if (id !== undefined && id === this.runId && this.model.running) {
      this.model.running = false;
      this.renderStatus();
    }
    this.toast(message || code, "error");
  }

  // ---- commands ----

  private compile(): void {
    window.clearTimeout(this.liveTimer);
    const source = this.editor.text;
    if (this.limits.maxSourceBytes && new Blob([source]).size > this.limits.maxSourceBytes) {
      this.toast(`The source is larger than the server's limit of ${grouped(this.limits.maxSourceBytes)} bytes.`, "error");
      return;
    }
    const spec = wireSpec(this.launch.spec);
    const id = this.conn.send({ type: "load", source, spec });
    if (!id) return;
    this.loadId = id;
    this.sentSource = source;
    this.sentSpec = JSON.stringify(spec);
    this.updateDirty();
  }

  private isDirty(): boolean {
    return this.sentSource !== null && (this.sentSource !== this.editor.text || this.sentSpec !== JSON.stringify(wireSpec(this.launch.spec)));
  }

  private isEditedExample(): boolean {
    return !!this.example && this.editor.text !== this.example.source;
  }

  private onEdit(): void {
    this.updateDirty();
    this.scheduleLive();
  }

  private onSpecEdit(): void {
    this.updateDirty();
    this.updateLaunchSummary();
    this.scheduleLive();
  }

  private scheduleLive(): void {
    window.clearTimeout(this.liveTimer);
    if (!this.live) return;
    this.liveTimer = window.setTimeout(() => {
      if (this.isDirty()) this.compile();
    }, 650);
  }

  private updateDirty(): void {
    const dirty = this.isDirty();
    if (dirty !== document.body.classList.contains("pg-stale")) window.setTimeout(() => this.updateMarks());
    toggle(this.ui.dirty, "on", dirty);
    setText(this.ui.dirty, dirty ? (this.live ? "edited — recompiling…" : "edited — Ctrl+Enter to apply") : "");
    toggle(document.body, "pg-stale", dirty);
  }

  private canStep(): boolean {
    const m = this.model;
    return this.compiled && !!m.loaded && !m.running && m.status !== "done" && m.status !== "fault" && m.status !== "limit";
  }

  private count(): number {
    const n = Math.floor(Number(this.ui.count.value));
    return Number.isFinite(n) && n >= 1 ? Math.min(n, this.limits.maxStepCount ?? 10000) : 1;
  }

  private step(granularity: "warp" | "round" | "barrier"): void {
    if (!this.canStep()) {
      this.explainBlocked();
      return;
    }
    this.send({ type: "step", granularity, count: this.count() });
  }

  private explainBlocked(): void {
    const m = this.model;
    if (!this.conn.isOpen) this.toast("Not connected to the server.", "error");
    else if (!this.compiled) this.toast("Compile the kernel first (Ctrl+Enter); fix any errors.", "error");
    else if (m.running) this.toast("Running — pause first (Esc).", "info");
    else if (m.status === "done") this.toast("The launch has finished: step back, seek, or reset.", "info");
    else if (m.status === "fault") this.toast("The launch faulted: step back to see how it got there, or reset.", "info");
    else if (m.status === "limit") this.toast("The instruction limit is spent: reset to start over.", "info");
  }

  private back(): void {
    if (!this.model.loaded || this.model.step <= this.model.firstStep) return;
    if (this.model.running) this.pause();
    this.send({ type: "back", count: this.count() });
  }

  private runOrPause(): void {
    if (this.model.running) {
      this.pause();
      return;
    }
    if (!this.canStep()) {
      this.explainBlocked();
      return;
    }
    this.runId = this.send({ type: "run" });
    if (!this.runId) return;
    this.model.running = true;
    this.renderStatus();
  }

  private pause(): void {
    if (this.model.running) this.send({ type: "pause" });
  }

  private reset(): void {
    if (!this.compiled) {
      this.compile();
      return;
    }
    this.send({ type: "reset" });
  }

  private seek(step: number): void {
    const m = this.model;
    if (!m.loaded || m.steps <= 0) return;
    step = Math.max(m.firstStep, Math.min(m.steps - 1, step));
    if (this.seekPending) {
      this.seekWanted = step;
      return;
    }
    if (step === m.step) return;
    this.seekPending = this.send({ type: "seek", step });
  }

  private select(cta: number, warp: number): void {
    const m = this.model;
    m.sel = { cta, warp };
    if (this.model.loaded) this.send({ type: "inspect", cta, warp });
    m.emit(new Set<Change>(["selection", "regs", "warps", "memory"]));
  }

  private selectRelative(d: number): void {
    const all: [number, number][] = [];
    for (const c of this.model.sortedCtas()) for (const w of c.warps) all.push([c.cta, w.warp]);
    if (!all.length) return;
    const i = all.findIndex(([c, w]) => c === this.model.sel.cta && w === this.model.sel.warp);
    const [c, w] = all[(Math.max(0, i) + d + all.length) % all.length];
    this.select(c, w);
    this.warps.revealSelected();
  }

  private faultCta(f: Fault): CtaState | undefined {
    return [...this.model.ctas.values()].find((c) => sameIdx(c.idx, f.cta));
  }

  private selectFault(f: Fault): void {
    const m = this.model;
    const c = this.faultCta(f);
    if (f.warp === undefined || !c) return;
    if (m.sel.cta !== c.cta || m.sel.warp !== f.warp) this.select(c.cta, f.warp);
  }

  private requestMemory(space: "global" | "shared", buffer: string | undefined, offset: number, bytes: number): void {
    if (!this.model.loaded || !this.conn.isOpen) return;
    const memory: Record<string, unknown> = { space, offset, bytes: Math.min(bytes, 65536) };
    if (space === "global") memory.buffer = buffer;
    this.conn.send({ type: "inspect", cta: this.model.sel.cta, warp: this.model.sel.warp, memory });
  }

  private toggleBreakpoint(line: number, on: boolean): void {
    const current = this.compiled && !this.isDirty();
    if (current && on && !this.model.codeLines.has(line)) {
      // Only instructions can stop the machine.
      this.editor.setBreakpoints(this.editor.breakpointLines().filter((l) => l !== line));
      this.toast(`Line ${line} holds no instruction: put the breakpoint on an instruction.`, "info");
      return;
    }
    if (current && this.conn.isOpen) this.conn.send({ type: "breakpoint", line, on });
  }

  private resendBreakpoints(): void {
    const lines = this.editor.breakpointLines();
    const keep = lines.filter((l) => this.model.codeLines.has(l));
    if (keep.length !== lines.length) this.editor.setBreakpoints(keep);
    for (const line of keep) this.conn.send({ type: "breakpoint", line, on: true });
  }

  private async loadExample(name: string, push: boolean): Promise<void> {
    if (this.isEditedExample() && !window.confirm("Replace your edits with the example?")) {
      if (this.ui.exampleSelect) this.ui.exampleSelect.value = this.example?.name ?? "";
      return;
    }
    let ex: ExampleData;
    try {
      const r = await fetch(`/api/examples/${encodeURIComponent(name)}`, { headers: { Accept: "application/json" } });
      if (!r.ok) throw new Error(r.status === 404 ? `There is no example named "${name}".` : `HTTP ${r.status}`);
      ex = (await r.json()) as ExampleData;
    } catch (e) {
      this.toast(`Could not load the example: ${(e as Error).message}`, "error");
      return;
    }
    this.example = ex;
    this.fileName = null;
    this.editor.setText(ex.source);
    this.launch.set(specOf(ex.spec));
    this.model.breakpoints.clear();
    if (this.ui.exampleSelect) this.ui.exampleSelect.value = ex.name;
    if (push) history.pushState(null, "", `?example=${encodeURIComponent(ex.name)}`);
    document.title = `${ex.title} · PTX Playground`;
    this.updateFileName();
    this.updateLaunchSummary();
    this.compile();
  }

  // ---- controls ----

  private bindControls(): void {
    document.addEventListener("click", (e) => {
      const b = (e.target as HTMLElement).closest<HTMLElement>("[data-action]");
      if (!b || (b as HTMLButtonElement).disabled) return;
      const a = b.dataset.action;
      const map: Record<string, Action> = {
        compile: "compile", "step-warp": "stepWarp", "step-round": "stepRound", "step-barrier": "stepBarrier",
        back: "back", run: "run", reset: "reset", help: "help", presenter: "presenter",
      };
      if (a === "theme") {
        this.toggleTheme();
        return;
      }
      if (a === "download-ptx") {
        download(this.fileName ?? `${this.example?.name ?? this.model.loaded?.entry ?? "kernel"}.ptx`, this.editor.text, "text/plain");
        return;
      }
      if (a === "open-launch") {
        this.showTab("launch");
        return;
      }
      if (a && map[a]) this.perform(map[a]);
    });
    this.ui.timeline.addEventListener("input", () => this.seek(Number(this.ui.timeline.value)));
    this.ui.exampleSelect?.addEventListener("change", () => {
      const name = this.ui.exampleSelect!.value;
      if (name) void this.loadExample(name, true);
    });
    this.ui.help.addEventListener("click", (e) => {
      if (e.target === this.ui.help) this.showHelp(false);
    });
  }

  private perform(a: Action): void {
    switch (a) {
      case "compile": this.compile(); break;
      case "stepWarp": this.step("warp"); break;
      case "stepRound": this.step("round"); break;
      case "stepBarrier": this.step("barrier"); break;
      case "back": this.back(); break;
      case "run": this.runOrPause(); break;
      case "pause": this.pause(); break;
      case "reset": this.reset(); break;
      case "earlier": this.seek(this.model.step - 1); break;
      case "later": this.seek(this.model.step + 1); break;
      case "first": this.seek(this.model.firstStep); break;
      case "last": this.seek(this.model.steps - 1); break;
      case "nextWarp": this.selectRelative(1); break;
      case "prevWarp": this.selectRelative(-1); break;
      case "gotoWarp": {
        const w = this.model.selectedWarp();
        if (w && w.line > 0) this.editor.goto(w.line, 1, false);
        break;
      }
      case "tabRegs": this.showTab("regs"); break;
      case "tabMemory": this.showTab("memory"); break;
      case "tabLaunch": this.showTab("launch"); break;
      case "tabEvents": this.showTab("events"); break;
      case "focusEditor": this.editor.view.focus(); break;
      case "help": this.showHelp(this.ui.help.hidden === true); break;
      case "presenter": togglePresenter(); this.editor.view.requestMeasure(); break;
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented) return;
    if (!this.ui.help.hidden && (e.key === "Escape" || e.key === "?")) {
      e.preventDefault();
      this.showHelp(false);
      return;
    }
    const a = actionFor(e);
    if (!a) return;
    if (a === "pause" && !this.model.running) {
      if (e.key === "Escape") return; // Let Escape close menus and panels.
    }
    e.preventDefault();
    this.perform(a);
  }

  private showHelp(on: boolean): void {
    const el = this.ui.help;
    if (on) {
      setChildren(el, helpContent(() => this.showHelp(false)));
      el.hidden = false;
      el.querySelector<HTMLElement>("button")?.focus();
    } else {
      el.hidden = true;
    }
  }

  private bindTabs(): void {
    const saved = store("ptxplay.tab") as Tab | null;
    if (saved && ["regs", "memory", "launch", "events"].includes(saved)) this.tab = saved;
    for (const b of document.querySelectorAll<HTMLElement>("[data-tab]")) {
      b.addEventListener("click", () => this.showTab(b.dataset.tab as Tab));
      b.addEventListener("keydown", (e) => {
        if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
        const tabs = [...document.querySelectorAll<HTMLElement>("[data-tab]")];
        const i = tabs.indexOf(b);
        const next = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
        this.showTab(next.dataset.tab as Tab);
        next.focus();
        e.preventDefault();
      });
    }
    this.showTab(this.tab);
  }

  private showTab(t: Tab): void {
    this.tab = t;
    store("ptxplay.tab", t);
    for (const b of document.querySelectorAll<HTMLElement>("[data-tab]")) {
      const on = b.dataset.tab === t;
      b.setAttribute("aria-selected", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
      toggle(b, "on", on);
    }
    for (const id of ["regs", "memory", "launch", "events"]) {
      const p = document.getElementById(`pg-tab-${id}`);
      if (p) p.hidden = id !== t;
    }
    if (t === "memory") this.mem.render(true);
    if (t === "regs") {
      this.regs.render(true);
      const f = this.model.fault;
      if (f?.lane !== undefined && f.warp === this.model.sel.warp) this.regs.revealLane(f.lane);
    }
    if (t === "events") this.renderEvents();
  }

  private bindSplitter(): void {
    const split = document.getElementById("pg-split");
    const work = document.getElementById("pg-work");
    if (!split || !work) return;
    const set = (pct: number) => {
      pct = Math.max(28, Math.min(68, pct));
      work.style.setProperty("--left", `${pct}%`);
      split.setAttribute("aria-valuenow", String(Math.round(pct)));
      return pct;
    };
    const saved = Number(store("ptxplay.split"));
    if (saved) set(saved);
    split.addEventListener("pointerdown", (e) => {
      split.setPointerCapture(e.pointerId);
      document.body.classList.add("dragging");
      const move = (ev: PointerEvent) => {
        const r = work.getBoundingClientRect();
        store("ptxplay.split", String(set(((ev.clientX - r.left) / r.width) * 100)));
      };
      const up = () => {
        split.removeEventListener("pointermove", move);
        split.removeEventListener("pointerup", up);
        document.body.classList.remove("dragging");
      };
      split.addEventListener("pointermove", move);
      split.addEventListener("pointerup", up);
    });
    split.addEventListener("keydown", (e) => {
      const cur = Number(split.getAttribute("aria-valuenow")) || 46;
      if (e.key === "ArrowLeft") store("ptxplay.split", String(set(cur - 2)));
      else if (e.key === "ArrowRight") store("ptxplay.split", String(set(cur + 2)));
      else return;
      e.preventDefault();
    });
  }

  // ---- rendering ----

  private updateHint(): void {
    const errors = this.diagnostics.some((d) => d.severity === "error");
    this.model.hint = !this.conn.isOpen ? "Connecting to the server…"
      : errors ? "Fix the errors marked in the editor to run the kernel."
      : this.loadError ? "The launch spec has a problem (see below the editor): fix it in the Launch tab."
      : "Compile the kernel (Ctrl+Enter) to see its warps.";
  }

  private render(c: Set<Change>): void {
    this.updateHint();
    if (c.has("loaded")) {
      this.warps.loaded();
      this.regs.loaded();
      this.mem.loaded();
    }
    if (c.has("warps") || c.has("selection") || c.has("fault") || c.has("status")) this.warps.render();
    if (c.has("regs") || c.has("selection") || c.has("warps")) {
      if (this.tab === "regs") this.regs.render();
    }
    if (c.has("memory") || c.has("selection")) {
      if (this.tab === "memory") this.mem.render();
    }
    if (c.has("events") && this.tab === "events") this.renderEvents();
    if (c.has("fault") || c.has("loaded")) this.renderFault();
    if (c.has("warps") || c.has("selection") || c.has("fault") || c.has("loaded")) this.updateMarks();
    this.renderStatus();
  }

  private updateMarks(): void {
    const m = this.model;
    const marks: WarpMarks = { lines: new Map(), selectedLine: null, faultLine: m.fault?.line ?? null };
    if (!this.isDirty()) {
      const multi = m.ctas.size > 1;
      for (const c of m.sortedCtas()) {
        for (const w of c.warps) {
          if (w.line <= 0 || !(mask32(w.valid) & ~mask32(w.exited))) continue;
          let e = marks.lines.get(w.line);
          if (!e) marks.lines.set(w.line, (e = { warps: [], selected: false, next: false }));
          e.warps.push(multi ? `CTA ${c.linear} w${w.warp}` : `w${w.warp}`);
          if (m.sel.cta === c.cta && m.sel.warp === w.warp) {
            e.selected = true;
            marks.selectedLine = w.line;
          }
          if (m.next && m.next.cta === c.cta && m.next.warp === w.warp) e.next = true;
        }
      }
    }
    this.editor.setWarpMarks(marks);
    // Follow the selected warp in the editor as it moves.
    const key = `${m.sel.cta}:${m.sel.warp}:${marks.selectedLine}`;
    if (marks.selectedLine && key !== this.lastRevealed && m.step > 0) this.editor.reveal(marks.selectedLine);
    this.lastRevealed = key;
  }

  private renderStatus(): void {
    const m = this.model;
    const ready = this.compiled && !!m.loaded;
    const canStep = this.canStep();
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-action]")) {
      const a = b.dataset.action;
      if (a === "step-warp" || a === "step-round" || a === "step-barrier") b.disabled = !canStep;
      else if (a === "back") b.disabled = !ready || m.running || m.step <= m.firstStep;
      else if (a === "reset") b.disabled = !this.conn.isOpen;
      else if (a === "compile") b.disabled = !this.conn.isOpen;
      else if (a === "run") b.disabled = !m.running && !canStep;
    }
    if (this.ui.runBtn) {
      const label = this.ui.runBtn.querySelector(".label");
      const icon = this.ui.runBtn.querySelector(".icon-glyph");
      if (label) setText(label, m.running ? "Pause" : m.step > 0 ? "Continue" : "Run");
      if (icon) setText(icon, m.running ? "❚❚" : "▶");
      this.ui.runBtn.title = m.running ? "Pause (Esc or Space)" : "Run until a breakpoint, a fault or the end (F5 or c)";
      toggle(this.ui.runBtn, "running", m.running);
    }
    const tl = this.ui.timeline;
    tl.disabled = !ready || m.steps <= 1;
    tl.min = String(m.firstStep);
    tl.max = String(Math.max(m.firstStep, m.steps - 1));
    if (!this.seekPending || this.seekWanted === null) tl.value = String(m.step);
    tl.setAttribute("aria-valuetext", `step ${m.step} of ${Math.max(0, m.steps - 1)}`);
    setText(this.ui.step, ready ? `step ${m.step}/${Math.max(0, m.steps - 1)}` : "");
    const st = !this.conn.isOpen ? "offline" : !ready ? (this.diagnostics.some((d) => d.severity === "error") || this.loadError ? "error" : "idle") : m.running ? "running" : m.status || "paused";
    this.ui.status.dataset.status = st;
    const reason = m.reason === "breakpoint" && !m.running ? " · breakpoint" : "";
    const label: Record<string, string> = {
      offline: "offline", idle: "not loaded", error: "compile errors", running: "running", paused: "paused", done: "done", fault: "fault", limit: "limit reached",
    };
    setText(this.ui.status, (label[st] ?? st) + (st === "paused" ? reason : ""));
    this.ui.status.title = m.message || (st === "fault" && m.fault ? m.fault.message : "");
    if (ready) {
      setText(this.ui.stats, `${m.finishedCTAs}/${m.totalCTAs} CTAs finished · ${grouped(m.stats.warpInstructions)} warp-instructions · ${grouped(m.stats.threadInstructions)} thread-instructions`);
    } else setText(this.ui.stats, "");
  }

  private renderProblems(): void {
    const list = this.diagnostics;
    const errors = list.filter((d) => d.severity === "error").length;
    const warnings = list.filter((d) => d.severity === "warning").length;
    const el = this.ui.problems;
    const items = list.map((d) => h("li", { class: `diag diag-${d.severity}` },
      h("button.diag-loc", { type: "button", onclick: () => this.editor.goto(d.line, d.col), title: "Go to the line" }, `${d.line}:${d.col}`),
      h("span.diag-sev", d.severity),
      h("span.diag-msg", d.message)));
    if (this.loadError) {
      items.unshift(h("li.diag.diag-error", h("span.diag-loc", "launch"), h("span.diag-sev", "error"), h("span.diag-msg", this.loadError)));
    }
    setChildren(el, items.length ? h("ul.diag-list", items) : null);
    el.hidden = !items.length;
    const parts: string[] = [];
    if (errors + (this.loadError ? 1 : 0)) parts.push(`${errors + (this.loadError ? 1 : 0)} error${errors + (this.loadError ? 1 : 0) === 1 ? "" : "s"}`);
    if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
    setText(this.ui.diagSummary, parts.length ? parts.join(", ") : this.compiled ? "✓ compiled" : "");
    this.ui.diagSummary.dataset.kind = errors || this.loadError ? "error" : warnings ? "warning" : "ok";
  }

  private renderFault(): void {
    const f = this.model.fault;
    const el = this.ui.fault;
    if (!f) {
      el.hidden = true;
      setChildren(el);
      return;
    }
    el.hidden = false;
    const cta = this.faultCta(f);
    const dims = (v: number[] | undefined, d: number[] | undefined) => {
      if (!v) return "";
      const n = !d ? 3 : d[2] > 1 ? 3 : d[1] > 1 ? 2 : 1;
      return `(${v.slice(0, n).join(", ")})`;
    };
    const loaded = this.model.loaded;
    const thread = dims(f.thread, loaded?.block);
    const row = (k: string, v: HTMLElement | string | null) => (v === null || v === "" ? null : h("div.fault-kv", h("span.k", k), h("span.v", v)));
    setChildren(el,
      h("div.fault-head", h("span.fault-icon", { "aria-hidden": "true" }, "!"), h("span.fault-kind", f.kind || "fault"),
        h("span.fault-msg", f.message)),
      h("div.fault-grid",
        row("line", f.line ? h("button.linklike", { type: "button", onclick: () => this.editor.goto(f.line!, f.col ?? 1) }, `${f.line}${f.col ? `:${f.col}` : ""}`) : null),
        row("CTA", f.cta ? `${dims(f.cta, loaded?.grid)}${cta ? ` · #${cta.linear}` : ""}` : null),
        row("thread", thread),
        row("warp / lane", f.warp !== undefined ? h("button.linklike", { type: "button", onclick: () => this.selectFault(f), title: "Select the faulting warp" }, `warp ${f.warp}, lane ${f.lane ?? "?"}`) : null),
        row("address", f.address ? h("code", `0x${f.address}`) : null)));
  }

  private renderEvents(): void {
    const evs = this.model.events;
    const el = this.ui.events;
    if (!this.model.loaded) {
      setChildren(el, h("p.empty", "Divergence, reconvergence, barriers and exits appear here as you step."));
      return;
    }
    if (!evs.length) {
      setChildren(el, h("p.empty", "No events yet: step to see divergence, reconvergence, barriers and exits."));
      return;
    }
    const multi = this.model.totalCTAs > 1;
    const rows = evs.slice(-300).map((e) => eventRow(e.ev, multi, (l) => this.editor.goto(l, 1, false)));
    const list = h("ol.event-list", rows);
    setChildren(el, list);
    el.scrollTop = el.scrollHeight;
  }

  private renderLegend(): void {
    const el = document.getElementById("pg-legend");
    if (!el || el.childElementCount) return;
    setChildren(el, laneLegend.map(([st, label, title]) => h("span.legend-item", { title }, h("span", { class: `ln ln-${st}` }), label)));
  }

  private updateFileName(): void {
    setText(this.ui.file, this.fileName ?? `${this.example?.name ?? "kernel"}.ptx`);
    if (this.ui.exampleSelect && this.example) this.ui.exampleSelect.value = this.example.name;
  }

  private updateLaunchSummary(): void {
    setText(this.ui.launchSummary, this.launch.summary());
  }

  private toast(msg: string, kind: "error" | "info" = "info"): void {
    const el = this.ui.toast;
    el.dataset.kind = kind;
    setText(el, msg);
    el.hidden = false;
    window.clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => { el.hidden = true; }, kind === "error" ? 6000 : 3500);
  }
}

function specOf(s: Spec | string): Spec {
  if (typeof s === "string") return parseSpec(s);
  return canonical(s);
}

const eventText: Record<string, string> = {
  diverge: "split at a branch", reconverge: "reconverged", "barrier-arrive": "arrived at a barrier",
  "barrier-release": "barrier released", exit: "lanes exited", call: "called a function", return: "returned",
};

function eventRow(e: EventInfo, multi: boolean, goto: (line: number) => void): HTMLElement {
  const who = `${multi ? `CTA ${e.cta} ` : ""}w${e.warp}`;
  const mask = e.mask ? mask32(e.mask) : null;
  const other = e.other ? mask32(e.other) : null;
  return h("li", { class: `ev ev-${e.kind}` },
    h("span.ev-kind", e.kind),
    h("span.ev-who", who),
    h("span.ev-what", eventText[e.kind] ?? ""),
    e.line ? h("button.linklike", { type: "button", onclick: () => goto(e.line!) }, `line ${e.line}`) : null,
    mask !== null ? h("span.ev-mask", { title: maskText(mask) }, `${popc(mask)} lane${popc(mask) === 1 ? "" : "s"}`) : null,
    other !== null ? h("span.ev-mask", { title: maskText(other) }, `/ ${popc(other)} other`) : null,
    e.id !== undefined ? h("span.ev-mask", `barrier ${e.id}${e.count !== undefined ? ` · ${e.count}/${e.expected} threads` : ""}`) : null);
}

function boot(): void {
  if (!document.getElementById("playground")) return;
  try {
    new App().start();
  } catch (e) {
    const el = document.getElementById("pg-toast");
    if (el) {
      el.hidden = false;
      el.dataset.kind = "error";
      el.textContent = `The playground failed to start: ${(e as Error).message}`;
    }
    throw e;
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();

