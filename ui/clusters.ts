// Thread-block clusters in the views: whether the launch groups CTAs
// into clusters of several, and how a cluster and a CTA's place in it read.

import type { Model } from "./model";
import type { CtaState } from "./proto";

/** Whether the launch's clusters have more than one CTA (the Warps pane
 * then groups the CTAs by cluster). */
export function clustered(m: Model): boolean {
  const d = m.loaded?.cluster ?? [1, 1, 1];
  return (d[0] ?? 1) * (d[1] ?? 1) * (d[2] ?? 1) > 1;
}

/** An index as the launch's dimensions need it: "(3)", "(3,1)" or "(3,1,0)". */
export function idxText(idx: number[], dims: number[]): string {
  return dims[2] > 1 ? `(${idx[0]},${idx[1]},${idx[2]})` : dims[1] > 1 ? `(${idx[0]},${idx[1]})` : `(${idx[0]})`;
}

/** The grid of clusters (clusters in each dimension). */
export function clusterGrid(m: Model): number[] {
  const g = m.loaded?.grid ?? [1, 1, 1], d = m.loaded?.cluster ?? [1, 1, 1];
  return [0, 1, 2].map((i) => Math.max(1, Math.floor((g[i] ?? 1) / Math.max(1, d[i] ?? 1))));
}

/** "cluster (0) · rank 1": a CTA's place in its cluster, or "" without clusters. */
export function clusterText(m: Model, c: CtaState | undefined): string {
  if (!c || !clustered(m) || !c.clusterIdx) return "";
  return `cluster ${idxText(c.clusterIdx, clusterGrid(m))} · rank ${c.rank}`;
}

/** A cluster's heading: "cluster (0) · 2 CTAs" (its resident CTAs). */
export function clusterTitle(m: Model, ctas: CtaState[]): string {
  const c0 = ctas[0];
  if (!c0) return "";
  const n = ctas.length;
  return `cluster ${idxText(c0.clusterIdx ?? [c0.clusterLinear, 0, 0], clusterGrid(m))} · ${n} CTA${n === 1 ? "" : "s"}`;
}

/** The cluster barrier while warps of the cluster wait at it: how many of
 * the cluster's threads arrived (the engine's count, which the waiting
 * warps carry) and who waits; "" when no warp waits at it. */
export function clusterBarText(ctas: CtaState[]): string {
  let arrived = -1, expected = 0;
  const waiting: string[] = [];
  for (const c of ctas) {
    for (const w of c.warps) {
      if (w.state !== "waiting" || w.wait?.kind !== "cluster-barrier") continue;
      arrived = w.wait.arrived ?? 0;
      expected = w.wait.expected ?? 0;
      waiting.push(`rank ${c.rank} w${w.warp}`);
    }
  }
  return arrived < 0 ? "" : `cluster barrier: ${arrived} of ${expected} threads arrived · waiting: ${waiting.join(", ")}`;
}

/** The resident CTAs of the selected warp's cluster, by rank (none
 * without clusters of several CTAs): whose shared memory the Memory tab
 * can show. */
export function clusterPeers(m: Model): CtaState[] {
  if (!clustered(m)) return [];
  const own = m.ctas.get(m.sel.cta);
  if (!own) return [];
  return m.sortedCtas().filter((c) => c.clusterLinear === own.clusterLinear).sort((a, b) => a.rank - b.rank);
}
