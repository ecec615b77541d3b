// Types of the websocket protocol (docs/protocol.md). The wire types are
// generated from the Go types (proto_gen.ts); this file adds the shapes the
// client model keeps and the launch spec.

export * from "./proto_gen";
import type { AsyncWork, Barrier, StackEntry, ThreadGroup, WaitInfo, WarpDelta } from "./proto_gen";

/** A warp as the client model holds it: a full state's warp with every delta merged in. */
export interface WarpState {
  warp: number;
  pc: number;
  line: number;
  state: NonNullable<WarpDelta["state"]>;
  /** What the warp waits for (state "waiting"): the engine's typed wait. */
  wait?: WaitInfo;
  /** The barrier the warp waits at (a wait of kind "barrier"). */
  barrier?: number;
  active: string;
  valid: string;
  exited: string;
  stack?: StackEntry[];
  depth?: number;
  /** Independent scheduling: the warp's thread groups (stack order, the picked one last). */
  groups?: ThreadGroup[];
  groupsOmitted?: number;
  /** Asynchronous work in flight (cp.async copies not landed yet); absent: none. */
  async?: AsyncWork;
}

/** A resident CTA as the client model holds it. */
export interface CtaState {
  cta: number;
  idx: number[];
  linear: number;
  barriers?: Barrier[] | null;
  warps: WarpState[];
}

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
  /** "independent" | "simt-stack"; absent: the module's .target decides. */
  scheduling?: string;
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
