// The launch spec as JSON (docs/launch-spec.md): its shape checked well
// enough to edit, its keys in the documented order, the form sent in
// `load`, and the pretty-printed text of the JSON editor and exports.

import type { Spec } from "./proto";

/** Puts the spec's keys in the documented order (stable exports and diffs). */
export function canonical(s: Spec): Spec {
  const o: Record<string, unknown> = {};
  const src = s as unknown as Record<string, unknown>;
  const order = ["version", "comment", "ptx", "source", "entry", "grid", "block", "cluster", "dynamicSharedBytes", "maxWarpInstructions", "scheduling", "buffers", "params"];
  for (const k of order) if (src[k] !== undefined && src[k] !== "") o[k] = src[k];
  for (const k of Object.keys(src)) if (!order.includes(k)) o[k] = src[k];
  o.version = 1;
  if (!o.grid) o.grid = [1, 1, 1];
  if (!o.block) o.block = [1, 1, 1];
  return o as unknown as Spec;
}

/** Three dimensions from a spec value (a missing or 0 dimension: 1). */
export function dims(v: unknown): number[] {
  const a = Array.isArray(v) ? v.map(Number) : [];
  return [a[0] || 1, a[1] || 1, a[2] || 1];
}

/** Validates the shape of a spec object well enough to edit it (the server checks the rest). */
export function parseSpec(text: string): Spec {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`invalid JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("a launch spec is a JSON object");
  const s = v as Record<string, unknown>;
  if (s.buffers !== undefined && !Array.isArray(s.buffers)) throw new Error('"buffers" must be an array');
  if (s.params !== undefined && !Array.isArray(s.params)) throw new Error('"params" must be an array');
  for (const [i, b] of ((s.buffers as unknown[]) ?? []).entries()) {
    if (!b || typeof b !== "object") throw new Error(`buffers[${i}] must be an object`);
  }
  for (const [i, p] of ((s.params as unknown[]) ?? []).entries()) {
    if (!p || typeof p !== "object" || Array.isArray(p)) throw new Error(`params[${i}] must be an object such as {"buffer": "a"} or {"u32": 1}`);
  }
  return { ...(s as unknown as Spec), grid: dims(s.grid ?? [1]), block: dims(s.block ?? [1]) };
}

/** The spec as sent in `load`: without "ptx"/"source" and trailing 1-dimensions. */
export function wireSpec(s: Spec): Spec {
  const out = canonical(s);
  delete out.ptx;
  delete out.source;
  out.grid = trim(out.grid);
  out.block = trim(out.block);
  if (out.cluster) out.cluster = trim(out.cluster);
  return out;
}

/** Dimensions without trailing 1s: [4, 1, 1] is [4]. */
export function trim(d: number[]): number[] {
  const a = dims(d);
  if (a[2] === 1) a.pop();
  if (a.length === 2 && a[1] === 1) a.pop();
  return a;
}

/** JSON with short arrays and objects (dims, params, init kinds) kept on one line. */
export function pretty(v: unknown): string {
  return fmt(v, "");
}

function fmt(v: unknown, indent: string): string {
  const flat = JSON.stringify(v);
  if (flat === undefined) return "null";
  if (v === null || typeof v !== "object") return flat;
  const inner = indent + "  ";
  const nested = Array.isArray(v) ? v.some((x) => x !== null && typeof x === "object" && !isSmall(x)) : Object.values(v).some((x) => x !== null && typeof x === "object" && !isSmall(x));
  if (!nested && flat.length + indent.length <= 76) return spaced(v);
  if (Array.isArray(v)) {
    if (!v.length) return "[]";
    return "[\n" + v.map((x) => inner + fmt(x, inner)).join(",\n") + "\n" + indent + "]";
  }
  const entries = Object.entries(v);
  if (!entries.length) return "{}";
  return "{\n" + entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${fmt(x, inner)}`).join(",\n") + "\n" + indent + "}";
}

function isSmall(x: unknown): boolean {
  return JSON.stringify(x).length <= 48 && !JSON.stringify(x).includes("[{");
}

/** One-line JSON with a space after commas and colons. */
function spaced(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(spaced).join(", ") + "]";
  return "{" + Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${spaced(x)}`).join(", ") + "}";
}
