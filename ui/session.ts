// The session client: the websocket commands of docs/protocol.md and the
// replies merged into the model. It knows nothing of the page: views
// subscribe to the model, and the app gives it a few hooks.

import { Conn } from "./conn";
import type { Change, Granularity, Model } from "./model";
import type { CudaSource, Limits, ServerMsg, Spec, State } from "./proto";
import { replayText, type LaunchFor, type Replay, type SessionHooks } from "./sessionhooks";

export type { LaunchFor, SessionHooks } from "./sessionhooks";

export class SessionClient {
  readonly conn: Conn;
  limits: Partial<Limits> = {};
  /** The source and spec of the last load (what runs, once it compiled). */
  sentSource: string | null = null;
  sentSpec = "";
  private loadId = 0;
  private checkId = 0;
  private runId = 0;
  private seekPending = 0;
  private seekWanted: number | null = null;
  /** The step of the seek under way. */
  private seekSent: number | null = null;
  private replay: Replay | null = null;
  private opens = 0;
  /** What to do once a woken session has loaded and replayed (whenLive). */
  private landing: (() => void) | null = null;

  constructor(private readonly model: Model, private readonly hooks: SessionHooks, url = Conn.pageURL()) {
    this.conn = new Conn(url, {
      message: (m) => this.onMessage(m),
      state: (s, d) => {
        model.conn = s;
        model.connDetail = d;
        if (s !== "open") model.running = false;
        model.emit(new Set<Change>(["conn", "status"]));
      },
      open: () => hooks.opened(this.opens++ > 0),
    });
  }

  connect(): void {
    this.conn.connect();
  }

  /** Holds no session until an action needs one (whenLive); detail says why, for the user. */
  park(detail: string): void {
    this.landing = null;
    this.conn.park(detail);
  }

  get isOpen(): boolean {
    return this.conn.isOpen;
  }

  /** Whether the page holds no session and connects on the next action. */
  get asleep(): boolean {
    return this.model.conn === "idle";
  }

  /**
   * Runs fn now when a session is open; when the page is asleep, connects
   * and runs fn once the session has loaded the page's kernel and replayed
   * to the page's position (the app's opened hook loads it). Only the
   * latest fn waits. False when fn waits.
   */
  whenLive(fn: () => void): boolean {
    if (!this.asleep) {
      fn();
      return true;
    }
    this.landing = fn;
    this.conn.connect();
    return false;
  }

  /** The woken session has landed (or its load failed: fn is dropped). */
  private landed(ok: boolean): void {
    const fn = this.landing;
    this.landing = null;
    if (fn && ok) fn();
  }

  /** Whether a load is replaying to a position (its states are on the way there). */
  get replaying(): boolean {
    return this.replay !== null;
  }

  /** The seek the timeline is heading for, while one is under way. */
  get seekTarget(): number | null {
    return this.seekPending ? this.seekWanted ?? null : null;
  }

  private send(msg: Record<string, unknown>): number {
    const id = this.conn.send(msg);
    if (!id) this.hooks.toast("Not connected to the server yet.", "error");
    return id;
  }

  // ---- commands ----

  /** Compiles and loads source (or, with cuda, the CUDA) with spec; with
   * at > 0 the session replays to that position. The load's id (0: not sent). */
  load(source: string, spec: Spec, at = 0, why: Replay["why"] = "edit", launch: LaunchFor = {}, cuda?: CudaSource): number {
    if (this.limits.maxSourceBytes && new Blob([source]).size > this.limits.maxSourceBytes) {
      this.hooks.toast(`The source is larger than the server's limit of ${this.limits.maxSourceBytes.toLocaleString("en-US")} bytes.`, "error");
      return 0;
    }
    const msg: Record<string, unknown> = cuda ? { type: "load", cuda, spec } : { type: "load", source, spec };
    if (launch.kernel) msg.kernel = launch.kernel;
    if (launch.infer) msg.inferLaunch = true;
    // Another kernel starts at step 0 with its own launch (the server does not replay it).
    if (launch.infer) at = 0;
    if (at > 0) msg.at = at;
    if (this.divergence) msg.divergence = true;
    const id = this.conn.send(msg);
    if (!id) return 0;
    this.loadId = id;
    this.checkId = 0;
    this.replay = at > 0 ? { id, at, why, sawLoaded: false } : null;
    this.sentSource = source;
    this.sentSpec = JSON.stringify(spec);
    this.model.edit = "clean";
    this.compareId = 0;
    const had = this.model.compare || this.model.comparing;
    this.model.compare = null;
    this.model.comparing = false;
    this.model.emit(new Set<Change>(had ? ["source", "compare"] : ["source"]));
    return id;
  }

  private compareId = 0;

  /** Runs what is loaded under both scheduling models and compares the results (at most budget warp-instructions each). */
  compareScheduling(budget?: number): void {
    const msg: Record<string, unknown> = { type: "compare-scheduling" };
    if (budget) msg.maxWarpInstructions = budget;
    const id = this.send(msg);
    if (!id) return;
    this.compareId = id;
    this.model.comparing = true;
    this.model.emit(new Set<Change>(["compare"]));
  }

  /** Asks for the diagnostics of source without touching the run. */
  check(source: string): void {
    const id = this.conn.send({ type: "check", source });
    if (id) this.checkId = id;
  }

  step(granularity: Granularity, count: number): void {
    this.send({ type: "step", granularity, count });
  }

  back(granularity: Granularity, count: number): void {
    this.send({ type: "back", granularity, count });
  }

  run(): boolean {
    this.runId = this.send({ type: "run" });
    if (!this.runId) return false;
    this.model.running = true;
    this.model.emit(new Set<Change>(["status"]));
    return true;
  }

  pause(): void {
    if (this.model.running) this.send({ type: "pause" });
  }

  reset(): void {
    this.send({ type: "reset" });
  }

  /** Moves to position step of the history; a drag coalesces into the latest position. */
  seek(step: number): void {
    const m = this.model;
    if (!m.loaded || m.steps <= 0) return;
    step = Math.max(m.firstStep, Math.min(m.steps - 1, Math.round(step)));
    if (this.seekPending) {
      this.seekWanted = step;
      return;
    }
    if (step === m.step) return;
    this.seekWanted = step;
    this.seekSent = step;
    this.seekPending = this.send({ type: "seek", step });
  }

  /** Whether the divergence data is wanted (the Divergence tab was opened). */
  private divergence = false;

  /** Asks for the divergence data from now on (loads keep asking for it). */
  wantDivergence(): void {
    if (this.divergence) return;
    this.divergence = true;
    if (this.model.loaded && this.conn.isOpen) this.conn.send({ type: "divergence", on: true });
  }

  select(cta: number, warp: number): void {
    if (this.model.loaded) this.conn.send({ type: "inspect", cta, warp });
  }

  /** Asks for the selected warp's descriptor view of the wgmma.mma_async at pc. */
  inspectWgmma(pc: number): void {
    if (this.model.loaded && this.conn.isOpen) this.conn.send({ type: "inspect", cta: this.model.sel.cta, warp: this.model.sel.warp, wgmmaPC: pc });
  }

  /** Asks for page p of a paged register file (later states carry it). */
  selectRegPage(p: number): void {
    if (this.model.loaded && this.conn.isOpen) this.conn.send({ type: "inspect", cta: this.model.sel.cta, warp: this.model.sel.warp, regPage: p });
  }

  /** Asks for bytes of a buffer or of shared memory: the selected warp's
   * CTA's, or that of the resident CTA in slot cta. */
  requestMemory(space: "global" | "shared", buffer: string | undefined, offset: number, bytes: number, cta?: number): void {
    if (!this.model.loaded || !this.conn.isOpen) return;
    const memory: Record<string, unknown> = { space, offset, bytes: Math.min(bytes, this.limits.maxInspectBytes ?? 65536) };
    if (space === "global") memory.buffer = buffer;
    else if (cta !== undefined) memory.cta = cta;
    this.conn.send({ type: "inspect", cta: this.model.sel.cta, warp: this.model.sel.warp, memory });
  }

  breakpoint(line: number, on: boolean): void {
    if (this.conn.isOpen) this.conn.send({ type: "breakpoint", line, on });
  }

  // ---- replies ----

  private onMessage(m: ServerMsg): void {
    const model = this.model;
    switch (m.type) {
      case "hello":
        this.limits = m.limits ?? {};
        this.hooks.cuda?.(m.cuda);
        break;
      case "compiled":
        this.hooks.compiled?.(m);
        break;
      case "diagnostics":
        if (m.check) {
          if (m.id !== this.checkId) break; // superseded
          this.checkId = 0;
          model.diagnostics = m.items ?? [];
          model.emit(new Set<Change>(["diagnostics"]));
          this.hooks.checked(model.diagnostics, !!m.sameProgram, !!m.otherKernel);
          break;
        }
        if (m.id !== undefined && m.id !== this.loadId) break;
        model.diagnostics = m.items ?? [];
        model.loadError = "";
        if (model.diagnostics.some((d) => d.severity === "error")) {
          model.compiled = false;
          model.reset();
          this.replay = null;
          this.landed(false);
          model.emit(new Set<Change>(["loaded", "warps", "regs", "memory", "status", "fault", "events", "diagnostics"]));
        } else model.emit(new Set<Change>(["diagnostics"]));
        break;
      case "loaded":
        if (m.id !== undefined && m.id !== this.loadId) break;
        model.compiled = true;
        model.loadError = "";
        if (m.remapped && model.loaded) {
          model.emit(model.applyRemap(m));
        } else {
          model.emit(model.applyLoaded(m));
          // Another kernel's own launch starts at step 0: no replay follows.
          if (m.launch?.inferred) this.replay = null;
          if (this.replay) this.replay.sawLoaded = true;
          this.hooks.loaded(m);
        }
        break;
      case "state":
        if (!model.loaded) break;
        this.onState(m);
        break;
      case "line-memory":
        // The rest of the per-line memory update of the state just merged.
        if (!model.loaded) break;
        model.applyLineMemory(m.delta ?? []);
        model.emit(new Set<Change>(["lineMemory"]));
        break;
      case "printf":
        // The rest of the printf update of the state just merged.
        if (!model.loaded) break;
        for (const l of m.lines ?? []) model.printf.push(l);
        model.emit(new Set<Change>(["printf"]));
        break;
      case "breakpoints":
        model.breakpoints = new Set(m.lines ?? []);
        model.cudaBreakpoints = new Set(m.cudaLines ?? []);
        model.emit(new Set<Change>(["breakpoints"]));
        break;
      case "scheduling-compare":
        if (m.id !== this.compareId) break; // superseded
        this.compareId = 0;
        model.comparing = false;
        model.compare = m.cancelled ? null : m;
        model.emit(new Set<Change>(["compare"]));
        break;
      case "inspect":
        if (m.threads) {
          model.threads = m.threads;
          model.emit(new Set<Change>(["threads"]));
        }
        if (m.tma) {
          model.tma = m.tma;
          model.emit(new Set<Change>(["tma"]));
        }
        if (m.wgmma) {
          model.wgmma = m.wgmma;
          model.emit(new Set<Change>(["wgmma"]));
        }
        if (m.divergence) {
          model.divergence = m.divergence;
          model.emit(new Set<Change>(["divergence"]));
        }
        if (m.regs) {
          const paged = model.applyInspect(m.cta, m.warp, m.regs);
          model.emit(new Set<Change>(paged ? ["regs", "regPage"] : ["regs"]));
        }
        if (m.memory) {
          model.applyMemory({ ...m.memory, cta: m.memory.cta ?? m.linear ?? m.cta });
          model.emit(new Set<Change>(["memory"]));
        }
        break;
      case "done":
        this.hooks.done(m.result ?? {});
        break;
      case "error":
        this.onError(m.code, m.message, m.id);
        break;
      case "notice":
        this.hooks.toast(m.message, "info");
        break;
    }
  }

  private onState(m: State): void {
    const model = this.model;
    // After a load the server picks the warp whose registers it sends.
    if (m.full && m.regs && m.reason === "loaded") model.sel = { cta: m.regs.cta, warp: m.regs.warp };
    const ch = model.applyState(m);
    if (m.id !== undefined && m.id === this.seekPending) {
      this.seekPending = 0;
      const want = this.seekWanted;
      this.seekWanted = null;
      // A seek the server stopped at its time limit stays where it got to
      // (the status says so); a newer target is still sought.
      const stopped = m.reason === "interrupted" && want === this.seekSent;
      if (want !== null && want !== m.step && !stopped) this.seek(want);
    }
    model.emit(ch);
    // The replay's last state ends it before the app sees the state (the
    // app restores a link's view once the replay is over).
    const r = this.replay;
    if (r && m.id === r.id && r.sawLoaded && m.reason !== "loaded" && !m.running) {
      this.replay = null;
      this.hooks.toast(replayText(r, m), "info");
    }
    this.hooks.state(m, ch);
    if (this.landing && !this.replay && !m.running && m.id !== undefined && m.id === this.loadId) this.landed(true);
  }

  private onError(code: string, message: string, id?: number): void {
    const model = this.model;
    if (code === "expired" || code === "reclaimed") {
      // The server ended the session: the page keeps what it shows (and
      // the draft) and connects again on the next action, not in a loop.
      this.park(code === "reclaimed" ? "session reclaimed" : "session expired");
      this.hooks.parked(code, message);
      return;
    }
    if (id !== undefined && id === this.loadId) {
      this.landed(false);
      model.loadError = message;
      model.compiled = false;
      model.reset();
      this.replay = null;
      model.emit(new Set<Change>(["loaded", "warps", "regs", "memory", "status", "fault", "events", "diagnostics"]));
      return;
    }
    if (id !== undefined && id === this.seekPending) {
      this.seekPending = 0;
      this.seekWanted = null;
    }
    if (id !== undefined && id === this.compareId) {
      this.compareId = 0;
      model.comparing = false;
      model.emit(new Set<Change>(["compare"]));
    }
    if (id !== undefined && id === this.runId && model.running) {
      model.running = false;
      model.emit(new Set<Change>(["status"]));
    }
    this.hooks.toast(message || code, "error");
  }
}
