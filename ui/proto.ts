// Types of the websocket protocol, version 1 (docs/protocol.md).

/** A diagnostic: the shape of `ptxplay check --json` and of `diagnostics`. */
export interface Message {
  severity: "error" | "warning" | "note";
  line: number;
  col: number;
  endLine?: number;
  endCol?: number;
  message: string;
}

export interface Limits {
  maxWarpInstructions?: number;
  maxSourceBytes?: number;
  maxBufferBytes?: number;
  idleSeconds?: number;
  maxStepCount?: number;
  maxInspectBytes?: number;
}

export interface RegInfo {
  slot: number;
  name: string;
  type: string;
}

export interface PredInfo {
  slot: number;
  name: string;
}

export interface BufferInfo {
  name: string;
  type: string;
  count: number;
  addr: string;
}

export interface LineInfo {
  line: number;
  pcs: number[];
}

export interface Loaded {
  type: "loaded";
  id?: number;
  entry: string;
  grid: number[];
  block: number[];
  warpsPerCTA: number;
  residentCTAs: number;
  totalCTAs: number;
  sharedBytes: number;
  lines: LineInfo[];
  regs: RegInfo[];
  preds: PredInfo[];
  buffers: BufferInfo[];
}

export interface StackEntry {
  pc: number;
  rpc: number;
  mask: string;
}

export interface WarpState {
  warp: number;
  pc: number;
  line: number;
  /** "ready" | "barrier" | "exited" | "faulted" */
  state: string;
  /** The barrier the warp waits at. */
  barrier?: number;
  active: string;
  valid: string;
  exited: string;
  stack?: StackEntry[];
  depth?: number;
}

export interface Barrier {
  id: number;
  arrived: number;
  expected: number;
  waiting: number[];
}

export interface CtaState {
  cta: number;
  idx: number[];
  linear: number;
  barriers?: Barrier[];
  warps: WarpState[];
  done?: boolean;
}

export interface EventInfo {
  /** diverge, reconverge, barrier-arrive, barrier-release, exit, call, return */
  kind: string;
  /** The linear CTA index. */
  cta: number;
  warp: number;
  pc?: number;
  line?: number;
  mask?: string;
  other?: string;
  /** Barrier events: the barrier, the threads arrived and expected. */
  id?: number;
  count?: number;
  expected?: number;
}

export interface RegValues {
  cta: number;
  warp: number;
  values?: Record<string, string[]>;
  preds?: Record<string, string>;
}

export interface MemChunk {
  space: "global" | "shared";
  buffer?: string;
  /** Shared memory: the linear index of its CTA. */
  cta?: number;
  offset: number;
  hex: string;
}

export interface Touch {
  space: string;
  buffer?: string;
  /** Shared memory: the linear index of its CTA. */
  cta?: number;
  offset: number;
  bytes: number;
  kind: string;
}

export interface Fault {
  kind: string;
  message: string;
  line?: number;
  col?: number;
  /** The CTA's index (x, y, z) in the grid. */
  cta?: number[];
  /** The thread's index (x, y, z) in its CTA. */
  thread?: number[];
  warp?: number;
  lane?: number;
  address?: string;
  pc?: number;
}

export interface WarpRef {
  cta: number;
  warp: number;
}

export interface LastInfo extends WarpRef {
  linear?: number;
  pc: number;
  line: number;
  mask: string;
  execMask: string;
}

export interface State {
  type: "state";
  id?: number;
  step: number;
  steps: number;
  /** The earliest step back/seek can reach. */
  firstStep?: number;
  running: boolean;
  /** Why a limit stopped the command. */
  message?: string;
  status: string;
  reason: string;
  full: boolean;
  stats?: { warpInstructions: number; threadInstructions: number };
  finishedCTAs?: number;
  totalCTAs?: number;
  next?: WarpRef | null;
  last?: LastInfo | null;
  ctas?: CtaState[];
  events?: EventInfo[];
  regs?: RegValues | null;
  changedRegs?: number[];
  memory?: MemChunk[];
  memoryStale?: boolean;
  touched?: Touch[];
  fault?: Fault | null;
}

export interface Inspect {
  type: "inspect";
  id?: number;
  cta: number;
  linear?: number;
  warp: number;
  regs?: RegValues;
  memory?: MemChunk | null;
}

export interface ErrorMsg {
  type: "error";
  id?: number;
  code: string;
  message: string;
}

export type ServerMsg =
  | { type: "hello"; v: number; limits?: Limits }
  | { type: "diagnostics"; id?: number; items: Message[] | null }
  | Loaded
  | State
  | { type: "breakpoints"; id?: number; lines: number[] | null }
  | Inspect
  | { type: "done"; id?: number; result?: Record<string, unknown> }
  | ErrorMsg;

// ---- the launch spec (docs/launch-spec.md) ----

/** A scalar as the spec writes it: a JSON number or a string ("0x…", "NaN", "-Inf", a decimal). */
export type SpecValue = number | string;

export interface SpecInit {
  values?: SpecValue[];
  iota?: { start?: SpecValue; step?: SpecValue };
  fill?: SpecValue;
  bytes?: string;
  random?: { seed: number; min?: SpecValue; max?: SpecValue };
}

export interface SpecBuffer {
  name: string;
  type: string;
  count?: number;
  init?: SpecInit;
  output?: boolean;
}

/** A parameter: {"buffer": name[, "offset": n]}, {"bytes": hex} or {TYPE: value | [values]}. */
export type SpecParam = Record<string, unknown>;

export interface Spec {
  version?: number;
  comment?: string;
  ptx?: string;
  source?: string;
  entry?: string;
  grid: number[];
  block: number[];
  dynamicSharedBytes?: number;
  maxWarpInstructions?: number;
  buffers?: SpecBuffer[];
  params?: SpecParam[];
}

/** The element types a buffer or a scalar parameter may have. */
export const elemTypes = [
  "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64",
  "f16", "bf16", "f32", "f64", "b8", "b16", "b32", "b64",
] as const;

/** The size in bytes of an element type (also accepts register types). */
export function typeSize(t: string): number {
  const m = /(\d+)/.exec(t);
  if (t === "pred") return 1;
  if (t.endsWith("x2")) return 4;
  if (!m) return 4;
  return Math.max(1, Number(m[1]) / 8);
}
