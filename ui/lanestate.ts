// A lane's and a warp's state as the warps view, the registers view and the
// legend read them: what a lane does (from the warp's masks, its wait and its
// thread groups), which lanes faulted, what a waiting warp waits for, and who
// a lane is (thread and CTA).

import type { Model } from "./model";
import type { CtaState, WarpState, Fault, WaitInfo } from "./proto";
import { mask32 } from "./format";
import { clusterText } from "./clusters";
import { wgmmaInFlight } from "./pending";

export type LaneState = "active" | "inactive" | "turn" | "wait" | "barrier" | "exited" | "fault" | "none";

export const laneLegend: [LaneState, string, string][] = [
  ["active", "active", "the lane executes the warp's next instruction"],
  ["inactive", "inactive", "inactive by divergence: parked until its path reconverges"],
  ["turn", "takes turns", "independent scheduling: the lane's own path is runnable and issues when its group's turn comes"],
  ["wait", "waiting", "waiting to reconverge, at a warp-synchronous instruction or in a call (hover a lane of the selected warp: it says why)"],
  ["barrier", "at barrier", "waiting at a barrier: the CTA's (bar.sync) or the cluster's (barrier.cluster.wait)"],
  ["exited", "exited", "the thread has exited"],
  ["fault", "faulted", "the thread faulted"],
  ["none", "no thread", "the block's last warp is partial: no thread in this lane"],
];

/** The legend's entry for the ◂ after a warp's name (web/playground.templ has the same). */
export const nextWarpTitle = "◂ after a warp's name: the warp the scheduler issues next (what n or F10 steps)";

/** The kind of a warp's state, read from its typed state and wait (the
 * engine says what a waiting warp waits for). */
export function warpKind(w: WarpState): "ready" | "barrier" | "waiting" | "exited" | "fault" {
  switch (w.state) {
    case "faulted": return "fault";
    case "exited": return "exited";
    case "waiting": return w.wait?.kind === "barrier" || w.wait?.kind === "cluster-barrier" ? "barrier" : "waiting";
    default: return "ready";
  }
}

/**
 * The words for what a waiting warp waits for, short enough for a warp's
 * row (the row's title has the engine's whole sentence). mbarName names an
 * mbarrier of the warp's CTA by its offset (hex), when known.
 */
export function waitLabel(w: WarpState, mbarName?: (offset: string) => string | undefined): string {
  if (w.wait?.kind === "wgmma-group") return `${waitWords(w.wait, w.barrier)} · ${wgmmaInFlight(w.wgmma)}`;
  return w.wait ? waitWords(w.wait, w.barrier, mbarName) : w.state;
}

/** waitLabel's words for one wait (a warp's, or one of its thread groups'). */
export function waitWords(t: WaitInfo, barrier: number | undefined, mbarName?: (offset: string) => string | undefined): string {
  if (t.kind === "barrier") return `at barrier ${t.barrier ?? barrier ?? ""}`.trimEnd();
  if (t.kind === "cluster-barrier") return t.expected ? `at cluster barrier · ${t.arrived ?? 0}/${t.expected}` : "at cluster barrier";
  if (t.kind === "wgmma-group") return `at wgmma.wait_group ${t.groups ?? ""}`.trimEnd();
  if (t.kind === "mbarrier") {
    const name = t.addr !== undefined ? mbarName?.(t.addr) : undefined;
    return `at mbarrier ${name ?? (t.addr !== undefined ? `@0x${t.addr}` : "")}${t.parity !== undefined ? ` · phase ${t.parity}` : ""}`;
  }
  return `waiting for ${t.text}`;
}

export function laneState(w: WarpState, lane: number, faultLanes: number): LaneState {
  const bit = 1 << lane;
  if (!(mask32(w.valid) & bit)) return "none";
  if (faultLanes & bit) return "fault";
  if (mask32(w.exited) & bit) return "exited";
  if (mask32(w.active) & bit) {
    const k = warpKind(w);
    return k === "barrier" ? "barrier" : k === "waiting" ? "wait" : "active";
  }
  if (w.groups?.length) {
    // Independent scheduling: the innermost group holding the lane says what it does.
    for (let i = w.groups.length - 1; i >= 0; i--) {
      const g = w.groups[i];
      if (!(mask32(g.lanes) & bit)) continue;
      if (g.state === "runnable") return "turn";
      if (g.state === "barrier-wait") return "barrier";
      return "wait";
    }
  }
  return "inactive";
}

/** The faulting lanes of a warp (a mask): the fault's lanes on its warp,
 * and for a barrier deadlock every lane stuck at a barrier. */
export function faultLanesOf(f: Fault | null, c: CtaState | undefined, warp: number): number {
  if (!f || !c) return 0;
  let m = 0;
  for (const bw of f.waiting ?? []) if (bw.cta === c.cta && bw.warp === warp) m |= mask32(bw.lanes);
  if (f.warp === warp && (!f.cta || sameIdx(f.cta, c.idx))) m |= f.lanes ? mask32(f.lanes) : f.lane >= 0 ? 1 << f.lane : 0;
  return m >>> 0;
}

export function sameIdx(a: number[] | undefined, b: number[] | undefined): boolean {
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return false;
  return true;
}

/** The thread index (x, y, z) in its block of a warp's lane, or null when
 * the lane holds no thread (the block's last warp is partial). */
export function threadIdx(block: number[] | undefined, warp: number, lane: number): [number, number, number] | null {
  const bx = Math.max(1, block?.[0] ?? 1), by = Math.max(1, block?.[1] ?? 1), bz = Math.max(1, block?.[2] ?? 1);
  const t = warp * 32 + lane;
  if (t >= bx * by * bz) return null;
  return [t % bx, Math.floor(t / bx) % by, Math.floor(t / (bx * by))];
}

/** "lane 5 · thread (5, 0, 0) · CTA (1, 0, 0)": who a lane of a warp of a
 * resident CTA (by its slot) is, for hover titles. */
export function laneTitle(m: Model, cta: number, warp: number, lane: number): string {
  const c = m.ctas.get(cta);
  const idx = c?.idx ?? [c?.linear ?? cta, 0, 0];
  const t = threadIdx(m.loaded?.block, warp, lane);
  const ctaText = `CTA (${idx[0] ?? 0}, ${idx[1] ?? 0}, ${idx[2] ?? 0})` + (m.totalCTAs > 1 && c ? ` #${c.linear}` : "");
  const cl = clusterText(m, c);
  return `lane ${lane} · ${t ? `thread (${t[0]}, ${t[1]}, ${t[2]})` : "no thread"} · ${ctaText}` + (cl ? ` · ${cl}` : "");
}
