// Types of the websocket protocol (docs/protocol.md) and the launch spec
// (docs/launch-spec.md). The wire types are generated from the Go types
// (proto_gen.ts, and api_gen.ts for the REST answers); this file adds the
// shapes the client model keeps.

export * from "./proto_gen";
import type { AsyncWork, Barrier, StackEntry, ThreadGroup } from "./proto_gen";

/** A warp as the client model holds it: a full state's warp with every delta merged in. */
export interface WarpState {
  warp: number;
  pc: number;
  line: number;
  /** "ready" | "barrier" | "exited" | "faulted" */
  state: string;
  /** The barrier the warp waits at (state "barrier"). */
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
