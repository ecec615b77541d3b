// The playground page: wiring only. The page shell is server-rendered
// (web/playground.templ); the app hydrates it. The session client
// (session.ts) talks to the server and fills the model (model.ts); every
// view subscribes to the model. The app owns the editor and the launch
// panel, decides what an edit does to the run (nothing is thrown away
// silently), keeps the draft in the browser, and maps keys to commands.
// App holds the state and builds the views; its behaviour lives in modules
// by concern, as functions of the App: lifecycle.ts (session events,
// sharing), editing.ts (edits, compiling, the draft, examples),
// commands.ts (stepping, selection, breakpoints, keys) and layout.ts (tabs,
// splitter, rendering, the lesson strip, toasts).

import { SessionClient } from "./session";
import { Model } from "./model";
import type { Change, Granularity } from "./model";
import { Editor } from "./editor";
import { ptxEditorHooks } from "./editorhooks";
import { CudaMode } from "./cudamode";
import { LaunchPanel, parseSpec, wireSpec, canonical } from "./launch";
import { WarpsView } from "./warps";
import { RegsView } from "./regs";
import { MemoryView } from "./memory";
import { ControlsView } from "./controls";
import { FragmentsView } from "./fragments";
import { DivergenceView } from "./divergence";
import type { MemBadges } from "./membadges";
import { SwizzleView } from "./swizzle";
import { TmaView } from "./tma";
import { ChangeBanner, EventsView, FaultView, ProblemsView } from "./panels";
import { ConsoleView } from "./console";
import type { Action } from "./keys";
import { byId, setChildren, grouped, stored, typingTarget } from "./dom";
import type { Spec } from "./proto";
import { isaDocs } from "./isa";
import { debounce, readDraft } from "./draft";
import { ShareDialog, parseShare } from "./share";
import { LessonView } from "./lesson";
import { lessonTwin } from "./cudalesson";
import type { ShareData, ShareView } from "./share";
import { restoreView } from "./viewstate";
import type { Draft } from "./draft";
import { initPresenter } from "./presenter";

import type * as api from "./api_gen";
import { bindControls, onKey, select, selectFault } from "./commands";
import { compile, fixLaunch, inferLaunch, isDirty, keepDraft, liveEdit, loadExample, onChecked, onEdit, onSpecEdit, revert } from "./editing";
import { SHOW_MBARRIER, type ShowMbarrier } from "./mbarriers";
import { baseName, bindSplitter, bindTabs, render, renderLegend, showTab, toast, updateBadges, updateFileName, updateLaunchSummary } from "./layout";
import { compareBudget, exampleOfLink, onDone, onLoaded, onOpen, onParked, onState, rerunOtherModel, snapshot, updateForkButton, viewHost } from "./lifecycle";

/** An example as /api/examples/{name} and the page's JSON give it
 * (api_gen's ExampleData, generated from web's Example), or as a share
 * link names it: its lesson is read with parseLesson. */
export type ExampleData = Omit<api.ExampleData, "lesson"> & { lesson?: unknown };

export type Tab = "regs" | "memory" | "launch" | "events" | "fragments" | "divergence" | "swizzle" | "tma" | "console";
export const tabs: Tab[] = ["regs", "memory", "launch", "events", "fragments", "divergence", "swizzle", "tma", "console"];

export function readJSON<T>(id: string): T | null {
  const el = document.getElementById(id);
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as T;
  } catch {
    return null;
  }
}

/** The actions that need a session: on a page without one they connect first. */
export const wakers = new Set<Action>(["compile", "stepWarp", "stepRound", "stepBarrier", "stepLine", "back", "run", "reset", "earlier", "later", "first", "last"]);

/** s with a capital first letter and a closing full stop. */
export function sentence(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : t + ".";
}

export function specOf(s: Spec | string): Spec {
  if (typeof s === "string") return parseSpec(s);
  return canonical(s);
}

/** The playground. Its fields are shared with the modules that implement
 * its concerns (lifecycle.ts, editing.ts, commands.ts, layout.ts). */
export class App {
  readonly model = new Model();
  readonly session: SessionClient;
  editor!: Editor;
  cuda!: CudaMode;
  launch!: LaunchPanel;
  warps!: WarpsView;
  regs!: RegsView;
  mem!: MemoryView;
  events!: EventsView;
  console!: ConsoleView;
  fragments!: FragmentsView;
  divergence!: DivergenceView;
  swizzle!: SwizzleView;
  tma!: TmaView;
  /** The unit "× N" last stepped by (null: not used since it was set). */
  countUnit: Granularity | null = null;
  example: ExampleData | null = null;
  /** The kernel (a loaded kernelSig) the launch panel's spec was made for;
   * "" while the spec came with the source (an example, a link, an import).
   * A load of another kernel gets the launch inferred from it instead. */
  launchFor = "";
  /** The restore is a share link as published (not the reader's own draft of it). */
  restoreIsLink = false;
  /** The name of an imported file (else derived from the example or the kernel). */
  fileName: string | null = null;
  liveTimer = 0;
  live = true;
  tab: Tab = "regs";
  toastTimer = 0;
  lastRevealed = "";
  /** A draft to replay once the session opens (after a reload). */
  restore: Draft | null = null;
  /** The share link the page was opened on, until the user forks it. */
  shared: ShareData | null = null;
  /** The view of a share link whose program fields wait for its program (viewstate.ts). */
  pendingView: ShareView | null = null;
  shareDialog: ShareDialog | null = null;
  lesson: LessonView | null = null;
  /** The embed player (/embed/…): read-only, no draft. */
  compact = false;
  saveDraft = debounce(() => keepDraft(this), 400);
  /** While the page holds no session (asleep): what it tells the user, and the label of the button that connects. */
  sleepNote = "";
  sleepAction = "Connect";
  ui = {
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
      toast: (msg, kind) => toast(this, msg, kind),
      opened: (again) => onOpen(this, again),
      parked: (code, msg) => onParked(this, code, msg),
      loaded: (m) => onLoaded(this, m),
      state: (m, ch) => onState(this, m, ch),
      done: (r) => onDone(this, r),
      checked: (_items, same, other) => onChecked(this, same, other),
      compiled: (m) => this.cuda?.onCompiled(m),
      cuda: (c) => this.cuda?.setSupport(c),
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
        v: 1, source: shared.source, spec: shared.spec, breakpoints: shared.view?.breakpoints ?? [], cudaBreakpoints: shared.view?.cudaBreakpoints,
        step: shared.step ?? 0, saved: 0, share: shared.id, cuda: shared.cuda,
      };
      source = this.restore.source;
      // A reload of edits made on the link keeps their breakpoints.
      startView = mine ? { ...shared.view, breakpoints: undefined, cudaBreakpoints: undefined } : shared.view ?? null;
      this.example = exampleOfLink(this, shared);
    } else if (draft && (asked === null || asked === draft.example)) {
      const ex = initial && draft.example === initial.name ? initial : null;
      const same = ex && draft.source === ex.source && JSON.stringify(wireSpec(draft.spec)) === JSON.stringify(wireSpec(specOf(ex.spec)));
      if (!same || draft.step > 0 || draft.breakpoints.length || draft.cudaBreakpoints?.length || draft.cuda) {
        this.restore = draft;
        this.launchFor = draft.kernel ?? "";
        source = draft.source;
        if (!ex) this.example = null;
        this.fileName = draft.fileName ?? null;
      }
    }

    const host = byId("pg-editor");
    setChildren(host);
    this.editor = new Editor(host, source, ptxEditorHooks(this), this.isDark(), { hoverLine: (l) => this.cuda?.view.hoverPtx(l) });
    this.cuda = new CudaMode(this);

    this.launch = new LaunchPanel(byId("pg-tab-launch"), {
      changed: () => onSpecEdit(this),
      adopted: () => { this.launchFor = ""; },
      infer: () => inferLaunch(this),
      importSource: (src, fileName) => {
        this.editor.setText(src);
        if (fileName) this.fileName = fileName;
        onEdit(this);
      },
      source: () => this.editor.text,
      baseName: () => baseName(this),
      notify: (msg, kind) => toast(this, msg, kind),
    }, document.getElementById("pg-spec-json") as HTMLTextAreaElement | null);
    if (this.restore) {
      this.launch.set(canonical(this.restore.spec));
      this.editor.setBreakpoints(this.restore.breakpoints);
    } else if (initial) this.launch.set(specOf(initial.spec));
    // A link or a draft made in CUDA mode opens in CUDA mode, its kernel.cu breakpoints sent with the load (cudaview.ts).
    if (this.restore?.cuda) {
      this.cuda.enter(this.restore.cuda.source, this.restore.cuda);
      this.cuda.editor?.setBreakpoints(this.restore.cudaBreakpoints ?? []);
    }

    const m = this.model;
    // First: the views show the hint this sets.
    m.subscribe((c) => render(this, c));
    const sched = { rerun: () => rerunOtherModel(this), compare: () => this.session.compareScheduling(compareBudget(this)) };
    this.warps = new WarpsView(byId("pg-warps"), m, (c, w) => select(this, c, w), (line) => this.editor.goto(line), sched, () => this.tab === "divergence");
    byId("pg-warps").addEventListener(SHOW_MBARRIER, (e) => {
      const d = (e as CustomEvent<ShowMbarrier>).detail;
      const c = this.model.ctas.get(d.cta);
      if (c && this.model.sel.cta !== d.cta) select(this, d.cta, c.warps[0]?.warp ?? 0);
      showTab(this, "memory");
      this.mem.reveal("shared", undefined, d.offset);
    });
    this.regs = new RegsView(byId("pg-tab-regs"), m, () => this.tab === "regs", (p) => this.session.selectRegPage(p));
    this.mem = new MemoryView(byId("pg-tab-memory"), m, () => this.tab === "memory", (space, buffer, offset, bytes, cta) => this.session.requestMemory(space, buffer, offset, bytes, cta));
    this.events = new EventsView(byId("pg-tab-events"), m, () => this.tab === "events", (l) => this.editor.goto(l, 1, false),
      (k) => this.session.whenLive(() => this.session.seek(k)));
    this.fragments = new FragmentsView(byId("pg-tab-fragments"), m, () => this.tab === "fragments", {
      gotoRegister: (slot, lane) => {
        showTab(this, "regs");
        const name = this.model.regName(slot);
        if (name) this.regs.watch(name);
        this.regs.revealLane(lane);
      },
      wgmma: (pc) => this.session.inspectWgmma(pc),
    });
    this.divergence = new DivergenceView(byId("pg-tab-divergence"), m, () => this.tab === "divergence", {
      want: () => this.session.wantDivergence(),
      seek: (k) => this.session.whenLive(() => this.session.seek(k)),
      goto: (l) => this.editor.goto(l, 1, false),
      sched,
    });
    this.swizzle = new SwizzleView(byId("pg-tab-swizzle"), m, () => this.tab === "swizzle");
    this.tma = new TmaView(byId("pg-tab-tma"), m, () => this.tab === "tma", (off) => { showTab(this, "memory"); this.mem.showBanks(off); });
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
    new ProblemsView(m, (line, col) => this.editor.goto(line, col), (spec) => fixLaunch(this, spec));
    new FaultView(m, { goto: (line, col) => this.editor.goto(line, col), selectFault: (f) => selectFault(this, f) });
    new ChangeBanner(m, {
      replay: () => compile(this, true),
      fresh: () => compile(this, false),
      revert: () => revert(this),
    }, () => this.live);

    this.shareDialog = new ShareDialog(byId("pg-share"), {
      snapshot: () => snapshot(this),
      position: () => (this.model.compiled ? this.model.step : 0),
      toast: (msg, kind) => toast(this, msg, kind),
    });
    updateForkButton(this);
    if (this.compact) this.editor.setReadOnly(true);
    this.lesson = new LessonView(byId("pg-lesson"), {
      show: (line, panel, cuda) => {
        if (cuda) this.cuda.view.showCudaLine(line);
        else this.editor.showHintLine(line);
        if ((tabs as readonly string[]).includes(panel)) showTab(this, panel as Tab);
        // A Fragments hint on a tensor instruction shows that instruction live.
        const op = panel === "fragments" ? this.model.loaded?.tensorOps?.find((o) => o.line === line) : undefined;
        if (op) this.fragments.showLive(op.pc);
        else if (panel === "warps") document.getElementById("pg-warps")?.scrollIntoView({ block: "nearest" });
      },
      twin: () => lessonTwin(this),
    });

    bindControls(this);
    bindTabs(this);
    if (startView) restoreView(viewHost(this), startView, "start");
    bindSplitter(this);
    renderLegend();
    updateFileName(this);
    updateLaunchSummary(this);
    m.emit(new Set<Change>(["status", "diagnostics", "source", "events"]));

    const badgesBox = this.ui.badges;
    this.showBadges = stored("ptxplay.badges") !== "0";
    if (badgesBox) {
      badgesBox.checked = this.showBadges;
      badgesBox.addEventListener("change", () => {
        this.showBadges = badgesBox.checked;
        stored("ptxplay.badges", this.showBadges ? "1" : "0");
        updateBadges(this);
      });
    }

    this.live = stored("ptxplay.live") !== "0";
    this.ui.live.checked = this.live;
    this.ui.live.addEventListener("change", () => {
      this.live = this.ui.live.checked;
      stored("ptxplay.live", this.live ? "1" : "0");
      if (this.live && isDirty(this)) liveEdit(this);
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
      if (!typingTarget(e.target)) onKey(this, e);
    }, true);
    window.addEventListener("keydown", (e) => {
      if (typingTarget(e.target)) onKey(this, e);
    });
    window.addEventListener("popstate", () => {
      const name = new URLSearchParams(location.search).get("example");
      if (name && name !== this.example?.name) void loadExample(this, name, false);
    });
    window.addEventListener("pagehide", () => this.saveDraft.flush());

    document.documentElement.classList.add("hydrated");
    if (!initial && !this.restore) void loadExample(this, asked ?? "vector-add", false);
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

  isDark(): boolean {
    const t = document.documentElement.dataset.theme;
    if (t) return t === "dark";
    return !window.matchMedia("(prefers-color-scheme: light)").matches;
  }

  applyTheme(t: "light" | "dark" | null): void {
    if (t) document.documentElement.dataset.theme = t;
    else delete document.documentElement.dataset.theme;
    this.editor?.setDark(this.isDark());
  }

  toggleTheme(): void {
    const next = this.isDark() ? "light" : "dark";
    stored("ptxplay.theme", next);
    this.applyTheme(next);
  }

  /** Whether the memory badges are shown (the toggle above the editor). */
  showBadges = true;
  /** The memory badges shown, by line. */
  badges: MemBadges = new Map();

  /** The CUDA (or its options) changed, or the mode did. */
  cudaChanged(): void {
    onEdit(this);
  }

  /** Shows a message in the toast. */
  notify(msg: string, kind: "error" | "info" = "info"): void {
    toast(this, msg, kind);
  }
}
