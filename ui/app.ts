// The playground page: wiring only. The page shell is server-rendered
// (web/playground.templ); the app hydrates it. The session client
// (session.ts) talks to the server and fills the model (model.ts); every
// view subscribes to the model. The app owns the editor and the launch
// panel, decides what an edit does to the run (nothing is thrown away
// silently), keeps the draft in the browser, and maps keys to commands.

import { SessionClient } from "./session";
import { Model } from "./model";
import type { Change, Granularity } from "./model";
import { Editor } from "./editor";
import type { WarpMarks } from "./editor";
import { LaunchPanel, parseSpec, wireSpec, canonical } from "./launch";
import { WarpsView, laneLegend, nextWarpTitle } from "./warps";
import { RegsView } from "./regs";
import { MemoryView } from "./memory";
import { ControlsView } from "./controls";
import { FragmentsView } from "./fragments";
import { DivergenceView } from "./divergence";
import { badgesOf } from "./membadges";
import type { MemBadges } from "./membadges";
import { SwizzleView } from "./swizzle";
import { ChangeBanner, EventsView, FaultView, ProblemsView, faultCta } from "./panels";
import { ConsoleView } from "./console";
import { actionFor, helpContent, setTabNames } from "./keys";
import type { Action } from "./keys";
import { h, byId, setChildren, setText, toggle, grouped, download, stored, typingTarget } from "./dom";
import type { Fault, Loaded, Spec, State } from "./proto";
import { isaDocs } from "./isa";
import { mask32 } from "./format";
import { debounce, readDraft, writeDraft } from "./draft";
import { ShareDialog, parseShare } from "./share";
import { LessonView, parseLesson } from "./lesson";
import type { ShareData, ShareView } from "./share";
import { captureView, restoreView } from "./viewstate";
import type { ViewHost } from "./viewstate";
import type { Draft } from "./draft";
import { initPresenter, presenterOn, togglePresenter } from "./presenter";

import type * as api from "./api_gen";

/** An example as /api/examples/{name} and the page's JSON give it
 * (api_gen's ExampleData, generated from web's Example), or as a share
 * link names it: its lesson is read with parseLesson. */
export type ExampleData = Omit<api.ExampleData, "lesson"> & { lesson?: unknown };

type Tab = "regs" | "memory" | "launch" | "events" | "fragments" | "divergence" | "swizzle" | "console";
const tabs: Tab[] = ["regs", "memory", "launch", "events", "fragments", "divergence", "swizzle", "console"];

function readJSON<T>(id: string): T | null {
  const el = document.getElementById(id);
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as T;
  } catch {
    return null;
  }
}

/** The actions that need a session: on a page without one they connect first. */
const wakers = new Set<Action>(["compile", "stepWarp", "stepRound", "stepBarrier", "back", "run", "reset", "earlier", "later", "first", "last"]);

/** s with a capital first letter and a closing full stop. */
function sentence(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : t + ".";
}

function specOf(s: Spec | string): Spec {
  if (typeof s === "string") return parseSpec(s);
  return canonical(s);
}

export class App {
  readonly model = new Model();
  readonly session: SessionClient;
  private editor!: Editor;
  private launch!: LaunchPanel;
  private warps!: WarpsView;
  private regs!: RegsView;
  private mem!: MemoryView;
  private events!: EventsView;
  private console!: ConsoleView;
  private fragments!: FragmentsView;
  private divergence!: DivergenceView;
  private swizzle!: SwizzleView;
  /** The unit "× N" last stepped by (null: not used since it was set). */
  private countUnit: Granularity | null = null;
  private example: ExampleData | null = null;
  /** The kernel (a loaded kernelSig) the launch panel's spec was made for;
   * "" while the spec came with the source (an example, a link, an import).
   * A load of another kernel gets the launch inferred from it instead. */
  private launchFor = "";
  /** The restore is a share link as published (not the reader's own draft of it). */
  private restoreIsLink = false;
  /** The name of an imported file (else derived from the example or the kernel). */
  private fileName: string | null = null;
  private liveTimer = 0;
  private live = true;
  private tab: Tab = "regs";
  private toastTimer = 0;
  private lastRevealed = "";
  /** A draft to replay once the session opens (after a reload). */
  private restore: Draft | null = null;
  /** The share link the page was opened on, until the user forks it. */
  private shared: ShareData | null = null;
  /** The view of a share link whose program fields wait for its program (viewstate.ts). */
  private pendingView: ShareView | null = null;
  private shareDialog: ShareDialog | null = null;
  private lesson: LessonView | null = null;
  /** The embed player (/embed/…): read-only, no draft. */
  private compact = false;
  private saveDraft = debounce(() => this.writeDraft(), 400);
  /** While the page holds no session (asleep): what it tells the user, and the label of the button that connects. */
  private sleepNote = "";
  private sleepAction = "Connect";
  private ui = {
    count: byId<HTMLInputElement>("pg-count"),
    file: byId("pg-file"),
    live: byId<HTMLInputElement>("pg-live"),
    badges: document.getElementById("pg-badges") as HTMLInputElement | null,
    toast: byId("pg-toast"),
    help: byId("pg-help"),
    launchSummary: byId("pg-launch-summary"),
    exampleSelect: document.getElementById("pg-example-select") as HTMLSelectElement | null,
  };

  constructor() {
    this.session = new SessionClient(this.model, {
      toast: (msg, kind) => this.toast(msg, kind),
      opened: (again) => this.onOpen(again),
      parked: (code, msg) => this.onParked(code, msg),
      loaded: (m) => this.onLoaded(m),
      state: (m, ch) => this.onState(m, ch),
      done: (r) => this.onDone(r),
      checked: (_items, same, other) => this.onChecked(same, other),
    });
  }

  /** Starts the playground; linked is a link-only share read from the URL's fragment. */
  start(linked: ShareData | null = null): void {
    this.applyTheme(stored("ptxplay.theme") as "light" | "dark" | null);
    initPresenter();
    const shared = linked ?? parseShare(readJSON<unknown>("initial-share"));
    const initial = shared ? null : readJSON<ExampleData>("initial-example");
    const pre = document.getElementById("pg-source");
    let source = initial?.source ?? pre?.textContent ?? "";
    this.example = initial;

    // A draft of this page (same example, or none asked for) comes back.
    const asked = new URLSearchParams(location.search).get("example");
    // The embed player keeps no draft: it always shows what it embeds.
    this.compact = !!document.getElementById("playground")?.classList.contains("compact");
    const draft = this.compact ? null : readDraft();
    /** The view fields a link restores as the page opens. */
    let startView: ShareView | null = null;
    if (shared) {
      // A share link opens as published, unless the draft holds edits
      // made on this very link (a reload).
      this.shared = shared;
      this.pendingView = shared.view ?? null;
      const mine = draft && shared.id && draft.share === shared.id;
      this.restoreIsLink = !mine;
      this.restore = mine ? draft : {
        v: 1, source: shared.source, spec: shared.spec, breakpoints: shared.view?.breakpoints ?? [],
        step: shared.step ?? 0, saved: 0, share: shared.id,
      };
      source = this.restore.source;
      // A reload of edits made on the link keeps their breakpoints.
      startView = mine ? { ...shared.view, breakpoints: undefined } : shared.view ?? null;
      this.example = this.exampleOfLink(shared);
    } else if (draft && (asked === null || asked === draft.example)) {
      const ex = initial && draft.example === initial.name ? initial : null;
      const same = ex && draft.source === ex.source && JSON.stringify(wireSpec(draft.spec)) === JSON.stringify(wireSpec(specOf(ex.spec)));
      if (!same || draft.step > 0 || draft.breakpoints.length) {
        this.restore = draft;
        this.launchFor = draft.kernel ?? "";
        source = draft.source;
        if (!ex) this.example = null;
        this.fileName = draft.fileName ?? null;
      }
    }

    const host = byId("pg-editor");
    setChildren(host);
    this.editor = new Editor(host, source, {
      toggleBreakpoint: (line, on) => this.toggleBreakpoint(line, on),
      changed: () => this.onEdit(),
      compile: () => this.compile(),
      registerHover: (name) => this.regs.hover(name),
      instructionHover: (line) => {
        const op = this.model.edit === "clean" ? this.model.loaded?.tensorOps?.find((o) => o.line === line) : undefined;
        const badge = this.badges.get(line);
        const mem = badge ? h("div.hover-mem", badge.title.split("\n\n").map((p) => h("p.mem-tip-p", p))) : null;
        const frag = op ? h("button.btn-small.hover-action", {
          type: "button", title: "Open the Fragments tab on this instruction, with the selected warp's values",
          onclick: () => {
            this.showTab("fragments");
            this.fragments.showLive(op.pc);
          },
        }, "Show fragments") : null;
        if (!mem && !frag) return null;
        return h("div", mem, frag);
      },
    }, this.isDark());

    this.launch = new LaunchPanel(byId("pg-tab-launch"), {
      changed: () => this.onSpecEdit(),
      adopted: () => { this.launchFor = ""; },
      infer: () => this.inferLaunch(),
      importSource: (src, fileName) => {
        this.editor.setText(src);
        if (fileName) this.fileName = fileName;
        this.onEdit();
      },
      source: () => this.editor.text,
      baseName: () => this.baseName(),
      notify: (msg, kind) => this.toast(msg, kind),
    }, document.getElementById("pg-spec-json") as HTMLTextAreaElement | null);
    if (this.restore) {
      this.launch.set(canonical(this.restore.spec));
      this.editor.setBreakpoints(this.restore.breakpoints);
    } else if (initial) this.launch.set(specOf(initial.spec));

    const m = this.model;
    // First: the views show the hint this sets.
    m.subscribe((c) => this.render(c));
    const sched = { rerun: () => this.rerunOtherModel(), compare: () => this.session.compareScheduling(this.compareBudget()) };
    this.warps = new WarpsView(byId("pg-warps"), m, (c, w) => this.select(c, w), (line) => this.editor.goto(line), sched, () => this.tab === "divergence");
    this.regs = new RegsView(byId("pg-tab-regs"), m, () => this.tab === "regs", (p) => this.session.selectRegPage(p));
    this.mem = new MemoryView(byId("pg-tab-memory"), m, () => this.tab === "memory", (space, buffer, offset, bytes) => this.session.requestMemory(space, buffer, offset, bytes));
    this.events = new EventsView(byId("pg-tab-events"), m, () => this.tab === "events", (l) => this.editor.goto(l, 1, false),
      (k) => this.session.whenLive(() => this.session.seek(k)));
    this.fragments = new FragmentsView(byId("pg-tab-fragments"), m, () => this.tab === "fragments", {
      gotoRegister: (slot, lane) => {
        this.showTab("regs");
        const name = this.model.regName(slot);
        if (name) this.regs.watch(name);
        this.regs.revealLane(lane);
      },
    });
    this.divergence = new DivergenceView(byId("pg-tab-divergence"), m, () => this.tab === "divergence", {
      want: () => this.session.wantDivergence(),
      seek: (k) => this.session.whenLive(() => this.session.seek(k)),
      goto: (l) => this.editor.goto(l, 1, false),
      sched,
    });
    this.swizzle = new SwizzleView(byId("pg-tab-swizzle"), m, () => this.tab === "swizzle");
    this.console = new ConsoleView(byId("pg-tab-console"), m, () => this.tab === "console", {
      seek: (k) => this.session.whenLive(() => this.session.seek(k)),
      goto: (l) => this.editor.goto(l, 1, false),
    });
    new ControlsView(m, {
      isOpen: () => this.session.isOpen, seekTarget: () => this.session.seekTarget,
      seek: (k) => this.session.whenLive(() => this.session.seek(k)),
      asleep: () => this.session.asleep, sleepNote: () => this.sleepNote, sleepAction: () => this.sleepAction,
      wake: () => this.session.whenLive(() => {}),
    });
    new ProblemsView(m, (line, col) => this.editor.goto(line, col), (spec) => this.fixLaunch(spec));
    new FaultView(m, { goto: (line, col) => this.editor.goto(line, col), selectFault: (f) => this.selectFault(f) });
    new ChangeBanner(m, {
      replay: () => this.compile(true),
      fresh: () => this.compile(false),
      revert: () => this.revert(),
    }, () => this.live);

    this.shareDialog = new ShareDialog(byId("pg-share"), {
      snapshot: () => this.snapshot(),
      position: () => (this.model.compiled ? this.model.step : 0),
      toast: (msg, kind) => this.toast(msg, kind),
    });
    this.updateForkButton();
    if (this.compact) this.editor.setReadOnly(true);
    this.lesson = new LessonView(byId("pg-lesson"), {
      show: (line, panel) => {
        this.editor.showHintLine(line);
        if ((tabs as readonly string[]).includes(panel)) this.showTab(panel as Tab);
        else if (panel === "warps") document.getElementById("pg-warps")?.scrollIntoView({ block: "nearest" });
      },
    });

    this.bindControls();
    this.bindTabs();
    if (startView) restoreView(this.viewHost(), startView, "start");
    this.bindSplitter();
    this.renderLegend();
    this.updateFileName();
    this.updateLaunchSummary();
    m.emit(new Set<Change>(["status", "diagnostics", "source", "events"]));

    const badgesBox = this.ui.badges;
    this.showBadges = stored("ptxplay.badges") !== "0";
    if (badgesBox) {
      badgesBox.checked = this.showBadges;
      badgesBox.addEventListener("change", () => {
        this.showBadges = badgesBox.checked;
        stored("ptxplay.badges", this.showBadges ? "1" : "0");
        this.updateBadges();
      });
    }

    this.live = stored("ptxplay.live") !== "0";
    this.ui.live.checked = this.live;
    this.ui.live.addEventListener("change", () => {
      this.live = this.ui.live.checked;
      stored("ptxplay.live", this.live ? "1" : "0");
      if (this.live && this.isDirty()) this.liveEdit();
      this.model.emit(new Set<Change>(["source"]));
    });
    this.ui.count.addEventListener("change", () => {
      if (this.session.limits.maxStepCount) this.ui.count.max = String(this.session.limits.maxStepCount);
    });
    this.ui.count.addEventListener("input", () => (this.countUnit = null));

    // One keyboard handler: in the capture phase for every key whose
    // target is not a text entry (so no control, and no dropdown's
    // type-ahead, gets a shortcut first), and after the editor or field
    // for the keys that work while typing (F-keys, Ctrl+Enter).
    document.addEventListener("keydown", (e) => {
      if (!typingTarget(e.target)) this.onKey(e);
    }, true);
    window.addEventListener("keydown", (e) => {
      if (typingTarget(e.target)) this.onKey(e);
    });
    window.addEventListener("popstate", () => {
      const name = new URLSearchParams(location.search).get("example");
      if (name && name !== this.example?.name) void this.loadExample(name, false);
    });
    window.addEventListener("pagehide", () => this.saveDraft.flush());

    document.documentElement.classList.add("hydrated");
    if (!initial && !this.restore) void this.loadExample(asked ?? "vector-add", false);
    void isaDocs();
    if (this.compact || this.shared) {
      // An embed or an opened share link holds no session on the server
      // until the reader acts: the page shows the kernel, its launch and
      // where the link points; the first step, run or compile connects,
      // replays there, then does what was asked.
      const at = this.restore?.step ?? 0;
      // The link's own title (a lesson's strip keeps the lesson's).
      const named = this.shared?.title && !this.compact ? `: “${this.shared.title}”` : "";
      this.sleepNote = at > 0
        ? `Shared at step ${grouped(at)}${named}. Step, Run or Compile connects to the server and replays to that step first.`
        : "Step, Run or Compile connects to the server and starts the kernel.";
      this.sleepAction = at > 0 ? `Start at step ${grouped(at)}` : "Start";
      this.session.park(at > 0 ? `shared at step ${grouped(at)} · not connected yet` : "not connected yet");
    } else this.session.connect();
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
    stored("ptxplay.theme", next);
    this.applyTheme(next);
  }

  // ---- the session ----

  /** A fresh session: load what the editor holds, at the position the user was at. */
  private onOpen(again: boolean): void {
    const at = this.restore?.step ?? (again && this.model.compiled ? this.model.step : 0);
    const why = this.restore ? "restore" : "reconnect";
    this.restore = null;
    if (again && at === 0) this.toast("Reconnected to a new session.", "info");
    const share = why === "restore" && !!this.shared && this.restoreIsLink;
    if (!this.loadEditor(at, share ? "share" : why)) return;
    this.updateDirty();
  }

  /** The server ended the session (reclaimed for another client, or expired): keep everything, say so, connect again on the next action. */
  private onParked(code: string, message: string): void {
    this.saveDraft.flush();
    const kept = code === "expired" ? " Your kernel and position are kept in this page: reconnect to go on." : "";
    this.sleepNote = `${sentence(message || (code === "reclaimed" ? "The server gave this session's place to a new client" : "The session expired"))}${kept}`;
    this.sleepAction = "Reconnect";
    this.model.emit(new Set<Change>(["conn", "status"]));
  }

  private onLoaded(m: Loaded): void {
    this.launchFor = m.kernelSig ?? "";
    this.editor.setCodeLines(this.model.codeLines);
    this.resendBreakpoints();
    this.launch.setKernels((m.kernels ?? []).map((k) => k.name));
    this.launch.setSchedulingDefault(m.defaultScheduling, m.targetSM);
    const fit = m.launch;
    if (fit?.applied && fit.spec) {
      // The spec did not fit the kernel: the session runs the launch
      // inferred from it, and the panel shows what runs.
      this.launch.set(canonical(fit.spec as unknown as Spec));
      this.session.sentSpec = JSON.stringify(wireSpec(this.launch.spec));
      this.updateDirty();
      this.updateLaunchSummary();
      this.saveDraft();
      this.toast(fit.inferred
        ? `Launch inferred from kernel ${m.entry}: ${this.launch.summary()} (the Launch tab edits it).`
        : `The launch now follows kernel ${m.entry} (see the note below the editor).`, "info");
    }
    this.updateFileName();
    this.applyPendingView();
  }

  /** Restores the program fields of a share link's view, once its
   * program is loaded and at the link's step (after the replay). */
  private applyPendingView(): void {
    const v = this.pendingView;
    const m = this.model;
    if (!v || !m.loaded || m.ctas.size === 0 || this.session.replaying) return;
    this.pendingView = null;
    restoreView(this.viewHost(), v, "program");
  }

  /** What the view fields of a share link capture from and restore onto (viewstate.ts). */
  private viewHost(): ViewHost {
    return {
      model: this.model,
      fileName: () => this.fileName,
      setFileName: (n) => { this.fileName = n; },
      tab: () => this.tab,
      showTab: (t) => {
        if ((tabs as readonly string[]).includes(t)) this.showTab(t as Tab);
      },
      breakpoints: () => this.editor.breakpointLines(),
      setBreakpoints: (lines) => this.editor.setBreakpoints(lines),
      setGran: (g) => this.setGran(g),
      select: (cta, warp) => {
        if (this.model.ctas.get(cta)?.warps.some((w) => w.warp === warp)) this.select(cta, warp);
      },
      memory: this.mem,
      regs: this.regs,
      fragments: this.fragments,
      swizzle: this.swizzle,
    };
  }

  /** The gallery example a link was made from, as the link holds it (its
   * kernel may be an older version): the page names the file after it and
   * the example menu shows it while the editor holds its kernel. None when
   * this gallery has no such example. */
  private exampleOfLink(sh: ShareData): ExampleData | null {
    if (!sh.example) return null;
    const sel = this.ui.exampleSelect;
    const opt = sel ? [...sel.options].find((o) => o.value === sh.example) : undefined;
    if (sel && !opt) return null;
    return { name: sh.example, title: opt?.textContent ?? sh.title ?? sh.example, description: sh.description ?? "", source: sh.source, spec: sh.spec, lesson: sh.lesson };
  }

  // ---- sharing ----

  /** The snapshot a share link takes of the playground. */
  private snapshot(): ShareData {
    const m = this.model;
    return {
      source: this.editor.text,
      spec: wireSpec(this.launch.spec),
      step: m.compiled && m.step > 0 ? m.step : undefined,
      example: this.example && this.followsExample() ? this.example.name : this.shared?.example,
      view: captureView(this.viewHost(), this.pendingView),
    };
  }

  private openShare(): void {
    const title = this.shared?.title ?? (this.example && this.followsExample() ? this.example.title : "");
    this.shareDialog?.show(true, title);
  }

  /** Forking a shared kernel makes it the user's own: the URL no longer names the link. */
  private fork(): void {
    if (!this.shared) return;
    const title = this.shared.title;
    this.shared = null;
    history.replaceState(null, "", "/");
    document.title = "PTX Playground";
    this.updateForkButton();
    this.updateFileName();
    this.writeDraft();
    this.toast(`Forked${title ? ` "${title}"` : ""}: this copy is yours to edit; Share makes a new link.`, "info");
  }

  private updateForkButton(): void {
    const b = document.querySelector<HTMLElement>('[data-action="fork"]');
    if (b) b.hidden = !this.shared || this.compact;
  }

  /** Applies the launch inferred from the kernel (the problems list's fix). */
  /** The budget of a comparison of the scheduling models: the launch's own
   * limit, else a million warp-instructions per model (enough for the
   * examples; a livelock shows in a fraction of a second). */
  private compareBudget(): number {
    return this.launch.spec.maxWarpInstructions ? 0 : 1_000_000;
  }

  /** Re-launches the same source and spec under the other scheduling model and compares the two. */
  private rerunOtherModel(): void {
    const cur = this.model.scheduling;
    if (!cur) return;
    const other = cur === "independent" ? "simt-stack" : "independent";
    this.launch.set({ ...this.launch.spec, scheduling: other });
    this.updateLaunchSummary();
    // A notice about the run under the other model no longer applies.
    window.clearTimeout(this.toastTimer);
    this.ui.toast.hidden = true;
    window.clearTimeout(this.liveTimer);
    if (!this.loadEditor()) return;
    this.updateDirty();
    this.saveDraft();
    this.session.compareScheduling(this.compareBudget());
  }

  /** Loads what the editor and the launch panel hold, saying which kernel the launch was made for. */
  private loadEditor(at = 0, why: "edit" | "reconnect" | "restore" | "share" = "edit", infer = false): boolean {
    return this.session.load(this.editor.text, wireSpec(this.launch.spec), at, why, { kernel: this.launchFor || undefined, infer });
  }

  /** The Launch tab's "Infer launch": the launch inferred from the kernel the editor holds (what `ptxplay init` writes). */
  private inferLaunch(): void {
    window.clearTimeout(this.liveTimer);
    this.session.whenLive(() => {
      if (this.loadEditor(0, "edit", true)) this.updateDirty();
    });
  }

  private fixLaunch(spec: Spec): void {
    this.launch.set(canonical(spec));
    this.updateLaunchSummary();
    this.compile();
  }

  private onState(m: State, ch: Set<Change>): void {
    const model = this.model;
    const newFault = ch.has("fault") && model.fault;
    if (newFault) {
      this.selectFault(model.fault!);
      this.warps.revealSelected();
      if (model.fault!.lane !== undefined) this.regs.revealLane(model.fault!.lane);
      if (model.fault!.line) this.editor.reveal(model.fault!.line);
    }
    if (!m.running) this.saveDraft();
    if (this.pendingView && !m.running) this.applyPendingView();
  }

  private onDone(result: Record<string, unknown>): void {
    const status = String(result.status ?? this.model.status);
    if (status === "ok" || status === "done") {
      const stats = (result.stats ?? {}) as Record<string, unknown>;
      const wi = Number(stats.warpInstructions ?? this.model.stats.warpInstructions);
      this.toast(`Finished: every thread exited after ${grouped(wi)} warp-instructions.`, "info");
    } else if (status === "limit") {
      this.toast("Stopped: the launch spent its maxWarpInstructions (see the notice above the editor).", "error");
    }
  }

  // ---- edits ----

  private isDirty(): boolean {
    const s = this.session;
    return s.sentSource !== null && (s.sentSource !== this.editor.text || s.sentSpec !== JSON.stringify(wireSpec(this.launch.spec)));
  }

  /** Whether a load would throw away a run the user has made. */
  private hasRun(): boolean {
    return this.model.compiled && !!this.model.loaded && this.model.step > 0;
  }

  private onEdit(): void {
    this.updateDirty();
    this.updateFileName();
    this.saveDraft();
    this.scheduleLive();
  }

  private onSpecEdit(): void {
    this.updateDirty();
    this.updateLaunchSummary();
    this.saveDraft();
    this.scheduleLive();
  }

  private updateDirty(): void {
    const m = this.model;
    const dirty = this.isDirty();
    const edit = !dirty ? "clean" : m.edit === "changed" ? "changed" : "pending";
    const s = this.session;
    const what = !dirty ? "" : s.sentSource !== this.editor.text
      ? (s.sentSpec !== JSON.stringify(wireSpec(this.launch.spec)) ? "both" : "source") : "launch";
    if (!dirty || what === "launch") m.otherKernel = false;
    if (what !== m.editWhat) {
      m.editWhat = what;
      m.emit(new Set<Change>(["source"]));
    }
    if (edit !== m.edit) {
      m.edit = edit;
      if (!dirty) m.editErrors = false;
      m.emit(new Set<Change>(["source"]));
      window.setTimeout(() => this.updateMarks());
    }
  }

  private scheduleLive(): void {
    window.clearTimeout(this.liveTimer);
    if (!this.live) return;
    this.liveTimer = window.setTimeout(() => this.liveEdit(), 650);
  }

  /** Live mode: keep diagnostics current; load only when no run is lost. */
  private liveEdit(): void {
    if (!this.isDirty() || !this.session.isOpen) return;
    if (!this.hasRun()) {
      this.loadEditor();
      return;
    }
    if (this.session.sentSource !== this.editor.text) {
      this.session.check(this.editor.text); // onChecked decides
      return;
    }
    this.model.edit = "changed";
    this.model.emit(new Set<Change>(["source"]));
  }

  /** The diagnostics of the edited source are in: a comment-only edit keeps the run. */
  private onChecked(sameProgram: boolean, otherKernel: boolean): void {
    if (!this.isDirty()) return;
    this.model.otherKernel = otherKernel;
    const errors = this.model.diagnostics.some((d) => d.severity === "error");
    const specSame = this.session.sentSpec === JSON.stringify(wireSpec(this.launch.spec));
    if (sameProgram && specSame && !errors) {
      this.loadEditor(); // the server remaps lines
      return;
    }
    this.model.edit = "changed";
    this.model.editErrors = errors;
    this.model.emit(new Set<Change>(["source"]));
    this.updateMarks();
  }

  /** Compiles what the editor holds: replaying to the current position when
   * there is a run to keep (or when asked), else from step 0. */
  private compile(replay = this.hasRun()): void {
    window.clearTimeout(this.liveTimer);
    // Another kernel cannot replay the run of the one loaded: it starts fresh.
    const at = replay && this.hasRun() && !this.model.otherKernel ? this.model.step : 0;
    if (this.loadEditor(at, "edit")) this.updateDirty();
  }

  /** Puts the editor and the launch back to what runs. */
  private revert(): void {
    const s = this.session;
    if (s.sentSource === null) return;
    const bps = this.editor.breakpointLines();
    this.editor.setText(s.sentSource);
    this.editor.setBreakpoints(bps.filter((l) => this.model.codeLines.has(l)));
    try {
      this.launch.set(canonical(JSON.parse(s.sentSpec) as Spec));
    } catch {
      // keep the panel as it is
    }
    this.model.edit = "clean";
    this.model.editErrors = false;
    this.session.check(s.sentSource); // the diagnostics of what runs
    this.updateDirty();
    this.updateLaunchSummary();
    this.model.emit(new Set<Change>(["source"]));
    this.updateMarks();
  }

  // ---- the draft ----

  private writeDraft(): void {
    if (!this.editor || this.compact) return;
    writeDraft({
      source: this.editor.text, spec: wireSpec(this.launch.spec), example: this.example?.name,
      fileName: this.fileName, breakpoints: this.editor.breakpointLines(), step: this.model.compiled ? this.model.step : 0,
      share: this.shared?.id, kernel: this.launchFor || undefined,
    });
  }

  // ---- commands ----

  private count(): number {
    const n = Math.floor(Number(this.ui.count.value));
    return Number.isFinite(n) && n >= 1 ? Math.min(n, this.session.limits.maxStepCount ?? 10000) : 1;
  }

  private step(g: Granularity): void {
    this.setGran(g);
    if (!this.model.canStep()) {
      this.explainBlocked();
      return;
    }
    this.countUnit = g;
    this.session.step(g, this.count());
  }

  private setGran(g: Granularity): void {
    if (this.model.gran === g) return;
    // "× N" that counted steps of the old unit does not carry over to a
    // new one (a count typed for it just now does).
    if (this.countUnit !== null && this.countUnit !== g) this.ui.count.value = "1";
    this.model.gran = g;
    this.model.emit(new Set<Change>(["status"]));
  }

  private explainBlocked(): void {
    const m = this.model;
    if (!this.session.isOpen) this.toast("Not connected to the server.", "error");
    else if (!m.compiled) this.toast("Compile the kernel first (Ctrl+Enter); fix any errors.", "error");
    else if (m.running) this.toast("Running — pause first (Esc).", "info");
    else if (m.status === "done") this.toast("The launch has finished: step back, seek, or reset.", "info");
    else if (m.status === "fault") this.toast("The launch faulted: step back to see how it got there, or reset.", "info");
    else if (m.status === "limit") this.toast("The launch spent its maxWarpInstructions: raise it in the Launch tab, or reset.", "info");
  }

  private back(): void {
    const m = this.model;
    if (!m.loaded || m.step <= m.firstStep) return;
    if (m.running) this.session.pause();
    this.session.back(m.gran, this.count());
  }

  private runOrPause(): void {
    if (this.model.running) {
      this.session.pause();
      return;
    }
    if (!this.model.canStep()) {
      this.explainBlocked();
      return;
    }
    this.session.run();
  }

  private reset(): void {
    if (!this.model.compiled || this.isDirty()) {
      this.compile(false);
      return;
    }
    this.session.reset();
  }

  private select(cta: number, warp: number): void {
    const m = this.model;
    m.sel = { cta, warp };
    this.session.select(cta, warp);
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

  private selectFault(f: Fault): void {
    const m = this.model;
    const c = faultCta(m, f);
    if (f.warp === undefined || !c) return;
    if (m.sel.cta !== c.cta || m.sel.warp !== f.warp) this.select(c.cta, f.warp);
  }

  private toggleBreakpoint(line: number, on: boolean): void {
    const current = this.model.compiled && !this.isDirty();
    if (current && on && !this.model.codeLines.has(line)) {
      // Only instructions can stop the machine.
      this.editor.setBreakpoints(this.editor.breakpointLines().filter((l) => l !== line));
      this.toast(`Line ${line} holds no instruction: put the breakpoint on an instruction.`, "info");
      return;
    }
    if (current) this.session.breakpoint(line, on);
    this.saveDraft();
  }

  private resendBreakpoints(): void {
    const lines = this.editor.breakpointLines();
    const keep = lines.filter((l) => this.model.codeLines.has(l));
    if (keep.length !== lines.length) this.editor.setBreakpoints(keep);
    for (const line of keep) this.session.breakpoint(line, true);
  }

  private async loadExample(name: string, push: boolean): Promise<void> {
    if (this.isEdited() && !window.confirm("Replace your edits with the example? (Your draft is replaced too.)")) {
      this.updateFileName();
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
    // "× N" belonged to the previous lesson.
    this.ui.count.value = "1";
    this.countUnit = null;
    // A position to restore belonged to what the editor held.
    this.restore = null;
    this.pendingView = null;
    if (this.shared) {
      // Leaving a share link for a gallery example.
      this.shared = null;
      this.updateForkButton();
      if (!push && location.pathname !== "/") history.replaceState(null, "", `/?example=${encodeURIComponent(ex.name)}`);
    }
    this.editor.setText(ex.source);
    this.launch.set(specOf(ex.spec));
    this.model.breakpoints.clear();
    if (push) history.pushState(null, "", `?example=${encodeURIComponent(ex.name)}`);
    document.title = `${ex.title} · PTX Playground`;
    this.updateFileName();
    this.updateLaunchSummary();
    this.launchFor = "";
    this.loadEditor();
    this.writeDraft();
  }

  /** Whether the editor holds work that is not a gallery example as published. */
  private isEdited(): boolean {
    return this.example ? this.editor.text !== this.example.source : this.editor.text.trim() !== "";
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
        download(`${this.baseName()}.ptx`, this.editor.text, "text/plain");
        return;
      }
      if (a === "open-launch") {
        this.showTab("launch");
        return;
      }
      if (a === "share") {
        this.openShare();
        return;
      }
      if (a === "fork") {
        this.fork();
        return;
      }
      if (a && map[a]) this.perform(map[a]);
    });
    this.ui.exampleSelect?.addEventListener("change", () => {
      const name = this.ui.exampleSelect!.value;
      if (name) void this.loadExample(name, true);
    });
    this.ui.help.addEventListener("click", (e) => {
      if (e.target === this.ui.help) this.showHelp(false);
    });
  }

  private perform(a: Action): void {
    const m = this.model;
    if (this.session.asleep && wakers.has(a)) {
      // No session yet (or any more): connect, land where the page is,
      // then do it (compiling is what landing does).
      this.session.whenLive(a === "compile" ? () => {} : () => this.perform(a));
      return;
    }
    switch (a) {
      case "compile": this.compile(); break;
      case "stepWarp": this.step("warp"); break;
      case "stepRound": this.step("round"); break;
      case "stepBarrier": this.step("barrier"); break;
      case "back": this.back(); break;
      case "backRound": this.setGran("round"); this.back(); break;
      case "backBarrier": this.setGran("barrier"); this.back(); break;
      case "run": this.runOrPause(); break;
      case "pause": this.session.pause(); break;
      case "reset": this.reset(); break;
      case "earlier": this.session.seek(m.step - 1); break;
      case "later": this.session.seek(m.step + 1); break;
      case "first": this.session.seek(m.firstStep); break;
      case "last": this.session.seek(m.steps - 1); break;
      case "nextWarp": this.selectRelative(1); break;
      case "prevWarp": this.selectRelative(-1); break;
      case "gotoWarp": {
        const w = m.selectedWarp();
        if (w && w.line > 0) this.editor.goto(w.line, 1, false);
        break;
      }
      case "focusEditor": this.editor.view.focus(); break;
      case "help": this.showHelp(this.ui.help.hidden === true); break;
      case "presenter": togglePresenter(); this.editor.view.requestMeasure(); break;
      default: {
        // tabN: the inspector tabs in the order the page shows them.
        const b = document.querySelectorAll<HTMLElement>("[data-tab]")[Number(a.slice(3)) - 1];
        if (b) this.showTab(b.dataset.tab as Tab);
      }
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented || this.shareDialog?.open) return;
    if (!this.ui.help.hidden && (e.key === "Escape" || e.key === "?")) {
      e.preventDefault();
      this.showHelp(false);
      return;
    }
    const a = actionFor(e);
    if (!a) {
      // A closed dropdown never changes by a key (type-ahead would switch
      // lessons): Space or Alt+↓ opens it, and the choice is made there.
      if (e.target instanceof HTMLSelectElement && !e.altKey && !e.ctrlKey && !e.metaKey &&
        ((e.key.length === 1 && e.key !== " ") || /^(Arrow(Up|Down|Left|Right)|Home|End|Page(Up|Down))$/.test(e.key))) e.preventDefault();
      return;
    }
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
    setTabNames([...document.querySelectorAll<HTMLElement>("[data-tab]")].map((b) => b.textContent?.trim() ?? ""));
    const saved = stored("ptxplay.tab") as Tab | null;
    if (saved && tabs.includes(saved)) this.tab = saved;
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
    stored("ptxplay.tab", t);
    for (const b of document.querySelectorAll<HTMLElement>("[data-tab]")) {
      const on = b.dataset.tab === t;
      b.setAttribute("aria-selected", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
      toggle(b, "on", on);
    }
    for (const id of tabs) {
      const p = document.getElementById(`pg-tab-${id}`);
      if (p) p.hidden = id !== t;
    }
    const view = { regs: this.regs, memory: this.mem, events: this.events, fragments: this.fragments, divergence: this.divergence, swizzle: this.swizzle, console: this.console, launch: null }[t];
    view?.shown();
    this.warps?.tabShown();
  }

  /** The splitters: between the editor and the machine state (columns)
   * and, where they stack, between the editor and the inspectors (rows).
   * Each is dragged or moved with the arrow keys, and remembered for
   * normal and for presenter mode apart (each has its own layout). */
  private bindSplitter(): void {
    const work = document.getElementById("pg-work");
    if (!work) return;
    const bind = (id: string, axis: "x" | "y", name: string, prop: string, min: number, max: number, def: number) => {
      const split = document.getElementById(id);
      if (!split) return;
      const key = () => `ptxplay.${name}${presenterOn() ? ".presenter" : ""}`;
      const cssVar = () => `--${prop}${presenterOn() ? "-p" : ""}`;
      const set = (pct: number, save: boolean) => {
        pct = Math.max(min, Math.min(max, pct));
        work.style.setProperty(cssVar(), `${pct}%`);
        split.setAttribute("aria-valuenow", String(Math.round(pct)));
        if (save) stored(key(), String(pct));
        return pct;
      };
      // Both modes' remembered positions apply at once (each has its own variable).
      for (const p of [false, true]) {
        const v = Number(stored(`ptxplay.${name}${p ? ".presenter" : ""}`));
        if (v) work.style.setProperty(`--${prop}${p ? "-p" : ""}`, `${Math.max(min, Math.min(max, v))}%`);
      }
      const current = () => {
        const v = parseFloat(work.style.getPropertyValue(cssVar()));
        if (v) return v;
        // Not set yet: what the layout shows.
        const r = work.getBoundingClientRect();
        const s = split.getBoundingClientRect();
        return axis === "x" ? ((s.left - r.left) / r.width) * 100 : ((s.top - r.top) / r.height) * 100 || def;
      };
      split.setAttribute("aria-valuenow", String(Math.round(current())));
      const cls = axis === "x" ? "dragging" : "dragging-rows";
      split.addEventListener("pointerdown", (e) => {
        split.setPointerCapture(e.pointerId);
        document.body.classList.add(cls);
        const move = (ev: PointerEvent) => {
          const r = work.getBoundingClientRect();
          set(axis === "x" ? ((ev.clientX - r.left) / r.width) * 100 : ((ev.clientY - r.top) / r.height) * 100, true);
          this.editor.view.requestMeasure();
        };
        const up = () => {
          split.removeEventListener("pointermove", move);
          split.removeEventListener("pointerup", up);
          document.body.classList.remove(cls);
        };
        split.addEventListener("pointermove", move);
        split.addEventListener("pointerup", up);
      });
      split.addEventListener("keydown", (e) => {
        const less = axis === "x" ? "ArrowLeft" : "ArrowUp";
        const more = axis === "x" ? "ArrowRight" : "ArrowDown";
        if (e.key !== less && e.key !== more) return;
        set(current() + (e.key === more ? 2 : -2), true);
        this.editor.view.requestMeasure();
        e.preventDefault();
      });
    };
    bind("pg-split", "x", "split", "left", 25, 75, 46);
    bind("pg-hsplit", "y", "hsplit", "top", 20, 85, 50);
  }

  // ---- rendering what the views do not own ----
  // (the views subscribe to the model themselves; here: the hint they show,
  // the connection badge and the editor's diagnostics, breakpoints and marks)

  private updateHint(): void {
    const m = this.model;
    const errors = m.diagnostics.some((d) => d.severity === "error");
    m.hint = this.session.asleep ? this.sleepNote || "Step, Run or Compile connects to the server."
      : !this.session.isOpen ? "Connecting to the server…"
      : errors ? "Fix the errors marked in the editor to run the kernel."
      : m.loadError ? "The launch spec has a problem (see below the editor): fix it in the Launch tab."
      : "Compile the kernel (Ctrl+Enter) to see its warps.";
  }

  private render(c: Set<Change>): void {
    this.updateHint();
    const conn = byId("pg-conn");
    if (c.has("conn")) {
      conn.dataset.state = this.model.conn;
      setText(conn, this.model.conn === "open" ? "connected" : this.model.connDetail);
      conn.title = this.model.conn === "open" ? "Connected to the session" : this.model.connDetail;
    }
    if (c.has("loaded")) this.editor.setCodeLines(this.model.codeLines);
    if (c.has("diagnostics")) this.editor.setDiagnostics(this.model.diagnostics);
    if (c.has("breakpoints")) this.editor.setBreakpoints([...this.model.breakpoints]);
    if (c.has("warps") || c.has("selection") || c.has("fault") || c.has("loaded") || c.has("source")) this.updateMarks();
    if (c.has("divergence") || c.has("loaded") || c.has("source")) this.updateShading();
    if (c.has("lineMemory") || c.has("loaded") || c.has("source")) this.updateBadges();
  }

  /** Whether the memory badges are shown (the toggle above the editor). */
  private showBadges = true;
  /** The memory badges shown, by line. */
  private badges: MemBadges = new Map();

  /** Shows the per-line memory findings (bank conflicts, coalescing) as gutter badges. */
  private updateBadges(): void {
    const m = this.model;
    const doc = this.editor.view.state.doc;
    const b: MemBadges = this.showBadges && m.loaded && !this.isDirty()
      ? badgesOf(m.lineMemory, (l) => (l >= 1 && l <= doc.lines ? doc.line(l).text : ""))
      : new Map();
    if (b.size === 0 && this.badges.size === 0) return;
    this.badges = b;
    this.editor.setMemBadges(b);
  }

  /** Shades the editor's lines by the lanes that executed them (while the divergence data comes). */
  private updateShading(): void {
    const d = this.model.divergence;
    const lines = new Map<number, { lanes: number; warps: number }>();
    if (d && !this.isDirty()) for (const l of d.lines) lines.set(l.line, { lanes: l.lanes, warps: l.warps });
    this.editor.setLaneShading(lines);
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
    } else marks.faultLine = null;
    this.editor.setWarpMarks(marks);
    // Follow the selected warp in the editor as it moves.
    const key = `${m.sel.cta}:${m.sel.warp}:${marks.selectedLine}`;
    if (marks.selectedLine && key !== this.lastRevealed && m.step > 0) this.editor.reveal(marks.selectedLine);
    this.lastRevealed = key;
  }

  private renderLegend(): void {
    const el = document.getElementById("pg-legend");
    if (!el || el.childElementCount) return;
    setChildren(el, laneLegend.map(([st, label, title]) => h("span.legend-item", { title }, h("span", { class: `ln ln-${st}` }), label)),
      h("span.legend-item.legend-next", { title: nextWarpTitle }, h("span.next-mark", { "aria-hidden": "true" }, "◂"), "issues next"));
  }

  /** The name of what the editor holds: an imported file, the example as
   * published (or edited), or the kernel's own entry. */
  private baseName(): string {
    if (this.fileName) return this.fileName.replace(/\.\w+$/, "");
    if (this.example && this.followsExample()) return this.example.name;
    const entry = /\.entry\s+([A-Za-z_$][\w$]*)/.exec(this.editor.text)?.[1];
    return entry ?? this.model.loaded?.entry ?? "kernel";
  }

  /** Whether the editor still holds the example (as published, or edited but with the same kernel). */
  private followsExample(): boolean {
    const ex = this.example;
    if (!ex) return false;
    if (this.editor.text === ex.source) return true;
    const entry = /\.entry\s+([A-Za-z_$][\w$]*)/.exec(ex.source)?.[1];
    return !!entry && new RegExp(`\\.entry\\s+${entry.replace(/\$/g, "\\$")}\\b`).test(this.editor.text);
  }

  private updateFileName(): void {
    const follows = this.followsExample();
    this.updateLesson(follows);
    const edited = follows && this.example && this.editor.text !== this.example.source;
    setText(this.ui.file, `${this.baseName()}.ptx`);
    this.ui.file.title = this.fileName ? "Imported file" : follows ? `The gallery example "${this.example!.title}"${edited ? ", edited" : ""}` : "Your kernel";
    toggle(this.ui.file, "edited", !!edited);
    const sel = this.ui.exampleSelect;
    if (!sel) return;
    let mine = sel.querySelector<HTMLOptionElement>('option[value=""]');
    if (!follows) {
      if (!mine) {
        mine = h("option", { value: "" }, "Your kernel");
        sel.prepend(mine);
      }
      sel.value = "";
    } else {
      mine?.remove();
      sel.value = this.example!.name;
    }
  }

  /** The lesson strip shows while the editor holds a lesson's kernel as published. */
  private updateLesson(follows: boolean): void {
    if (!this.lesson) return;
    const sh = this.shared;
    if (sh?.lesson && this.editor.text === sh.source) {
      // The strip is the lesson's: its title is the lesson's (the
      // example's), the link's title is the page's and its notice's.
      this.lesson.set(parseLesson(sh.lesson), this.example?.title ?? sh.title ?? "", sh.title && sh.title !== this.example?.title ? sh.title : "");
      return;
    }
    const ex = this.example;
    const lesson = ex && follows && this.editor.text === ex.source ? parseLesson(ex.lesson) : null;
    this.lesson.set(lesson, ex?.title ?? "");
  }

  private updateLaunchSummary(): void {
    setText(this.ui.launchSummary, this.launch.summary());
  }

  /** Shows a message in the toast. */
  notify(msg: string, kind: "error" | "info" = "info"): void {
    this.toast(msg, kind);
  }

  private toast(msg: string, kind: "error" | "info" = "info"): void {
    const el = this.ui.toast;
    el.dataset.kind = kind;
    setText(el, msg);
    el.hidden = false;
    window.clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => { el.hidden = true; }, kind === "error" ? 6000 : 4500);
  }
}
