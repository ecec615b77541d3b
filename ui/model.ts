// The client's model of the session: what `loaded` described, merged with
// every `state` (deltas merge, `full` replaces) and `inspect` reply.

import type {
  Barrier, Divergence, LineMemory, Message, CtaState, EventInfo, Fault, LastInfo, Loaded, MemChunk, PredInfo, RegInfo, RegValues, SchedulingCompare, State, Access, WarningInfo, WarpRef, WarpState, WarpThreads, PrintfLine, TmaView, WgmmaView,
} from "./proto";
import { hexBytes } from "./format";
import { MemRegion, elemSize } from "./memregion";
import type { Change, EditState, Granularity, ProgramScoped, Selection } from "./modeltypes";
import { applyInspect, applyRegs } from "./modelregs";
import { mergeCta } from "./warpmerge";

export { PAGE, MemRegion, elemSize } from "./memregion";
export type { Change, EditState, Granularity, ProgramScoped, Selection } from "./modeltypes";
export { mergeCta, mergeKeyed } from "./warpmerge";
export class Model {
  loaded: Loaded | null = null;
  /** The program shown: bumped whenever the model drops it (another load,
   * a load that failed). Every view keys what it keeps of a program on it
   * (scope): none shows another program's lines or values. */
  program = 0;
  private programShown = 0;
  private scoped: ProgramScoped[] = [];
  /** The connection: "connecting" | "open" | "closed", with a line for the user. */
  conn = "connecting";
  connDetail = "connecting…";
  /** Diagnostics of the editor's text (live) and a launch error of the last load. */
  diagnostics: Message[] = [];
  loadError = "";
  /** A program is loaded and runs. */
  compiled = false;
  /** The editor or the launch differs from what runs. */
  edit: EditState = "clean";
  /** The edit has errors (diagnostics of the edited text). */
  editErrors = false;
  /** What the edit changed: "source", "launch", "both" ("" while clean). */
  editWhat: "" | "source" | "launch" | "both" = "";
  /** The edited source holds another kernel than the one loaded (a check said so): it cannot replay the run. */
  otherKernel = false;
  /** The unit Back and the keyboard step by. */
  gran: Granularity = "warp";
  step = 0;
  steps = 0;
  firstStep = 0;
  message = "";
  running = false;
  status = "";
  reason = "";
  stats = { warpInstructions: 0, threadInstructions: 0 };
  finishedCTAs = 0;
  totalCTAs = 0;
  next: WarpRef | null = null;
  last: LastInfo | null = null;
  /** Resident CTAs by their slot index (`cta`). */
  ctas = new Map<number, CtaState>();
  fault: Fault | null = null;
  /** Events with the step whose command reported them. */
  events: { ev: EventInfo; step: number }[] = [];
  /** The last instruction's shared- and global-memory accesses, exact (last.accesses). */
  accesses: Access[] = [];
  /** The race and memory checker's warnings at the current step. */
  warnings: WarningInfo[] = [];
  /** More distinct warnings were found than the list holds. */
  warningsDropped = false;
  /** The selected warp (whose registers the server sends). */
  sel: Selection = { cta: 0, warp: 0 };
  /** Registers of the selected warp: slot -> 32 hex lanes; predicates: slot -> mask. */
  regs = new Map<number, string[]>();
  preds = new Map<number, number>();
  regsOf: Selection | null = null;
  /** The page of a paged register file (`loaded.regPages` > 1) that regs and
   * preds hold, and the descriptors of that page's registers and predicates
   * (page 0: those of `loaded`). */
  regPage = 0;
  pageRegs: RegInfo[] = [];
  pagePreds: PredInfo[] = [];
  /** Lanes whose value the last update changed, per register slot (bit i = lane i). */
  changedLanes = new Map<number, number>();
  changedPreds = new Map<number, number>();
  changedRegs = new Set<number>();
  memory = new Map<string, MemRegion>();
  /** Bumped whenever memory contents change (views re-render on a change). */
  memVersion = 0;
  /** Bumped when the memory the client holds is thrown away (views ask again). */
  memEpoch = 0;
  breakpoints = new Set<number>();
  /** The CUDA lines with a breakpoint (a CUDA program). */
  cudaBreakpoints = new Set<number>();
  /** What the views say while there is no program (set by the app). */
  hint = "Starting a session…";
  /** The divergence data of the position shown (while asked for). */
  divergence: Divergence | null = null;
  /** The launch's scheduling model: "independent" | "simt-stack" ("" before a state). */
  scheduling = "";
  /** The selected warp's scheduling (thread groups, last issue, lane waits) at the step shown. */
  threads: WarpThreads | null = null;
  /** The selected CTA's TMA view (its next or last tensor copy) at the step shown. */
  tma: TmaView | null = null;
  /** The last wgmma descriptor view asked for (inspect with wgmmaPC), for the warp and step it names. */
  wgmma: WgmmaView | null = null;
  /** The last compare-scheduling reply for what runs, and whether one is under way. */
  compare: SchedulingCompare | null = null;
  comparing = false;
  /** The per-line memory analysis up to the step shown (kept across deltas that leave it out). */
  lineMemory: LineMemory[] = [];
  /** Lines that hold instructions (from `loaded`). */
  codeLines = new Set<number>();
  /** The Console: the launch's printf output up to the step shown (merged from `printf` updates). */
  printf: PrintfLine[] = [];
  /** Lines dropped past the launch's printf limit, and the note that says so. */
  printfDropped = 0;
  printfNote = "";
  private listeners: ((c: Set<Change>) => void)[] = [];

  subscribe(f: (c: Set<Change>) => void): void {
    this.listeners.push(f);
  }

  /** Registers a view whose state belongs to the program shown. */
  scope(v: ProgramScoped): void {
    this.scoped.push(v);
  }

  /** Tells the listeners what changed; on a new program (or none) the
   * scoped views forget the old one first and the change set says
   * "program". */
  emit(c: Set<Change>): void {
    if (this.program !== this.programShown) {
      this.programShown = this.program;
      c = new Set(c).add("program").add("loaded");
      for (const v of this.scoped) v.programChanged();
    }
    for (const f of this.listeners) f(c);
  }

  /** The key of a memory region: a global buffer, or the shared memory of the CTA with linear index `cta`. */
  static memKey(space: string, buffer: string | undefined, cta: number | undefined): string {
    return space === "shared" ? `shared:${cta ?? 0}` : `global:${buffer ?? ""}`;
  }

  /** The linear index of the selected CTA. */
  selLinear(): number {
    return this.ctas.get(this.sel.cta)?.linear ?? this.sel.cta;
  }

  region(space: string, buffer: string | undefined, cta: number | undefined): MemRegion | null {
    const key = Model.memKey(space, buffer, cta);
    let r = this.memory.get(key);
    if (r) return r;
    if (!this.loaded) return null;
    let size = 0;
    if (space === "shared") size = this.loaded.sharedBytes;
    else {
      const b = this.loaded.buffers.find((x) => x.name === buffer);
      if (!b) return null;
      size = b.count * elemSize(b.type);
    }
    r = new MemRegion(key, size);
    this.memory.set(key, r);
    return r;
  }

  reset(): void {
    this.program++;
    this.loaded = null;
    this.ctas.clear();
    this.regs.clear();
    this.preds.clear();
    this.regsOf = null;
    this.regPage = 0;
    this.pageRegs = [];
    this.pagePreds = [];
    this.changedLanes.clear();
    this.changedPreds.clear();
    this.changedRegs.clear();
    this.memory.clear();
    this.memVersion++;
    this.events = [];
    this.accesses = [];
    this.warnings = [];
    this.warningsDropped = false;
    this.fault = null;
    this.divergence = null;
    this.threads = null;
    this.tma = null;
    this.wgmma = null;
    this.scheduling = "";
    this.lineMemory = [];
    this.printf = [];
    this.printfDropped = 0;
    this.printfNote = "";
    this.step = this.steps = this.firstStep = 0;
    this.message = "";
    this.status = this.reason = "";
    this.running = false;
    this.next = this.last = null;
    this.stats = { warpInstructions: 0, threadInstructions: 0 };
  }

  /** Whether the machine can move forward (not running, not at a terminal state). */
  canStep(): boolean {
    return this.compiled && !!this.loaded && !this.running && this.status !== "done" && this.status !== "fault" && this.status !== "limit";
  }

  /** The line of a pc of the loaded program. */
  lineOf(pc: number): number | undefined {
    return this.pcLine.get(pc);
  }

  private pcLine = new Map<number, number>();

  /** A `loaded` with remapped set: same machine, new line numbers. */
  applyRemap(m: Loaded): Set<Change> {
    this.loaded = m;
    if (this.regPage === 0) {
      this.pageRegs = m.regs ?? [];
      this.pagePreds = m.preds ?? [];
    }
    this.setLines(m);
    return new Set<Change>(["loaded", "warps", "status"]);
  }

  private setLines(m: Loaded): void {
    this.codeLines = new Set((m.lines ?? []).map((l) => l.line));
    this.pcLine.clear();
    for (const l of m.lines ?? []) for (const pc of l.pcs) this.pcLine.set(pc, l.line);
  }

  applyLoaded(m: Loaded): Set<Change> {
    this.reset();
    this.loaded = m;
    this.scheduling = m.scheduling ?? "";
    this.pageRegs = m.regs ?? [];
    this.pagePreds = m.preds ?? [];
    this.setLines(m);
    this.totalCTAs = m.totalCTAs;
    this.sel = { cta: 0, warp: 0 };
    return new Set<Change>(["loaded", "warps", "regs", "memory", "status", "fault", "events", "selection", "lineMemory", "printf"]);
  }

  applyState(m: State): Set<Change> {
    const ch = new Set<Change>(["status"]);
    this.step = m.step;
    this.steps = m.steps;
    this.firstStep = m.firstStep ?? 0;
    this.message = m.message ?? "";
    this.running = m.running;
    this.status = m.status;
    this.reason = m.reason;
    if (m.stats) this.stats = m.stats;
    if (m.finishedCTAs !== undefined) this.finishedCTAs = m.finishedCTAs;
    if (m.totalCTAs !== undefined) this.totalCTAs = m.totalCTAs;
    this.next = m.next ?? null;
    this.last = m.last ?? null;
    if (m.full) {
      this.ctas.clear();
      ch.add("warps");
    }
    for (const c of m.ctas ?? []) {
      mergeCta(this.ctas, c, m.full);
      ch.add("warps");
    }
    if (m.full || m.events?.length) {
      // Going back forgets the events of the steps undone.
      if (m.full) this.events = this.events.filter((e) => e.step <= m.step);
      if (m.events?.length) {
        for (const ev of m.events) this.events.push({ ev, step: ev.step || m.step });
        if (this.events.length > 500) this.events.splice(0, this.events.length - 500);
      }
      ch.add("events");
    }
    if (m.warnings) {
      this.warnings = m.warnings.list;
      this.warningsDropped = m.warnings.dropped;
      ch.add("events");
    }
    if (m.regs !== undefined || m.full) {
      if (applyRegs(this, m.regs ?? null, m.full)) ch.add("regPage");
      ch.add("regs");
    } else if (this.changedLanes.size || this.changedPreds.size) {
      this.changedLanes.clear();
      this.changedPreds.clear();
      ch.add("regs");
    }
    this.changedRegs = new Set(m.changedRegs ?? []);
    const rebuilt = m.full && (m.reason === "reset" || m.reason === "loaded");
    if (m.memoryStale || rebuilt || (m.full && !m.memory?.length && m.step !== this.memStep)) {
      // The memory the client holds may be from another step: fetch again.
      for (const r of this.memory.values()) r.invalidate();
      this.memVersion++;
      this.memEpoch++;
      ch.add("memory");
    }
    for (const c of m.memory ?? []) this.applyMemory(c);
    if (m.memory?.length) ch.add("memory");
    this.memStep = m.step;
    const accesses = m.last?.accesses ?? [];
    if (accesses.length || this.accesses.length) ch.add("memory");
    this.accesses = accesses;
    if (m.scheduling && m.scheduling !== this.scheduling) {
      this.scheduling = m.scheduling;
      ch.add("threads");
    }
    if (m.threads || (m.full && this.threads)) {
      this.threads = m.threads ?? null;
      ch.add("threads");
    }
    if (m.tma || (m.full && this.tma)) {
      this.tma = m.tma ?? null;
      ch.add("tma");
    }
    if (m.divergence || this.divergence) ch.add("divergence");
    this.divergence = m.divergence ?? null;
    if (m.lineMemory) {
      this.lineMemory = m.lineMemory;
      ch.add("lineMemory");
    }
    if (m.lineMemoryDelta?.length) {
      this.applyLineMemory(m.lineMemoryDelta);
      ch.add("lineMemory");
    }
    if (m.printf) {
      // Keep a prefix of the lines held, append the new ones.
      const p = m.printf;
      this.printf.length = Math.min(p.keep, this.printf.length);
      for (const l of p.lines ?? []) this.printf.push(l);
      this.printfDropped = p.dropped;
      this.printfNote = p.note ?? "";
      ch.add("printf");
    }
    const fault = m.fault ?? null;
    if (JSON.stringify(fault) !== JSON.stringify(this.fault)) ch.add("fault");
    this.fault = fault;
    return ch;
  }

  private memStep = -1;

  /**
   * Merges a per-line memory update (a state's lineMemoryDelta or a
   * line-memory message): each entry replaces its line's, one with no
   * executions removes the line. The table stays sorted by line.
   */
  applyLineMemory(delta: LineMemory[]): void {
    const byLine = new Map<number, LineMemory>();
    for (const l of this.lineMemory) byLine.set(l.line, l);
    for (const l of delta) {
      if (l.executions === 0) byLine.delete(l.line);
      else byLine.set(l.line, l);
    }
    this.lineMemory = [...byLine.values()].sort((a, b) => a.line - b.line);
  }

  applyMemory(c: MemChunk): void {
    const r = this.region(c.space, c.buffer, c.cta ?? this.selLinear());
    if (!r || !c.hex) return;
    r.write(c.offset, hexBytes(c.hex));
    this.memVersion++;
  }

  /** The `inspect` reply: the selected warp's registers in full (no change
   * marks); reports whether the page of the register file changed. */
  applyInspect(cta: number, warp: number, r: RegValues | undefined): boolean {
    return applyInspect(this, cta, warp, r);
  }

  /** The number of pages of the register file (1 unless it is paged). */
  regPages(): number {
    return Math.max(1, this.loaded?.regPages ?? 1);
  }

  /** The name of a register slot on the page held, else among page 0's. */
  regName(slot: number): string | undefined {
    return (this.pageRegs.find((r) => r.slot === slot) ?? this.loaded?.regs.find((r) => r.slot === slot))?.name;
  }

  warp(cta: number, warp: number): WarpState | undefined {
    return this.ctas.get(cta)?.warps.find((w) => w.warp === warp);
  }

  selectedWarp(): WarpState | undefined {
    return this.warp(this.sel.cta, this.sel.warp);
  }

  barrierOf(cta: number, warp: number): Barrier | undefined {
    return this.ctas.get(cta)?.barriers?.find((b) => b.waiting?.includes(warp));
  }

  /** The resident slot of the CTA with linear index lin (undefined: not resident). */
  ctaSlot(lin: number): number | undefined {
    for (const c of this.ctas.values()) if (c.linear === lin) return c.cta;
    return undefined;
  }

  sortedCtas(): CtaState[] {
    return [...this.ctas.values()].sort((a, b) => a.cta - b.cta);
  }
}
