// The one rule by which the client merges a keyed delta (sessions/delta.go)
// into what it holds, and its use on the resident CTAs and their warps.

import type { CtaDelta, CtaState, KeyedDelta, WarpState } from "./proto";

/** Merges a keyed delta (sessions/delta.go) into what the client holds:
 * null deletes a field, any other value replaces it; with no old value the
 * delta is a full one. The one rule for every field of a warp. */
export function mergeKeyed<T extends object, K extends keyof T>(old: T | undefined, d: KeyedDelta<T, K>): T {
  const out: Record<string, unknown> = { ...old };
  for (const [k, v] of Object.entries(d)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out as T;
}

export function mergeCta(ctas: Map<number, CtaState>, c: CtaDelta, full: boolean): void {
  const old = ctas.get(c.cta);
  // Every field of the CTA but its warps comes whole and replaces what the
  // client holds (barriers only when sent).
  const { warps: deltas, barriers, ...fields } = c;
  if (full || !old || old.linear !== c.linear) {
    // A CTA new to the client comes with every field of its warps.
    const warps = (deltas ?? []).map((w) => mergeKeyed<WarpState, "warp">(undefined, w));
    ctas.set(c.cta, { ...fields, barriers, warps: warps.sort((a, b) => a.warp - b.warp) });
    return;
  }
  const merged: CtaState = { ...old, ...fields, warps: old.warps.slice() };
  if (barriers) merged.barriers = barriers;
  for (const w of deltas ?? []) {
    const i = merged.warps.findIndex((x) => x.warp === w.warp);
    if (i < 0) {
      merged.warps.push(mergeKeyed<WarpState, "warp">(undefined, w));
      continue;
    }
    merged.warps[i] = mergeKeyed<WarpState, "warp">(merged.warps[i], w);
  }
  merged.warps.sort((a, b) => a.warp - b.warp);
  ctas.set(c.cta, merged);
}
