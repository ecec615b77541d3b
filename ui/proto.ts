// Types of the websocket protocol (docs/protocol.md) and the launch spec
// (docs/launch-spec.md). The wire types are generated from the Go types
// (proto_gen.ts, and api_gen.ts for the REST answers); this file adds the
// shapes the client model keeps.

export * from "./proto_gen";
import type { Barrier, CtaDelta, WarpState } from "./proto_gen";

/** A resident CTA as the client model holds it: every field of its
 * CtaDelta, with its warps merged (and barriers kept when a delta leaves
 * them out). */
export interface CtaState extends Omit<CtaDelta, "warps" | "barriers"> {
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
