// Asynchronous work in flight, as the warps and memory views show it: a
// warp's cp.async copies that have not landed (the state's per-warp
// "async" report), summarised in words and as the shared-memory bytes they
// will write.

import type { AsyncWork, WgmmaWork } from "./proto";
import type { Model } from "./model";
import { linesName } from "./srcline";

/** "1 KiB" / "48 B". */
export function byteText(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : `${n} B`;
}

/** "2 groups in flight (3 copies, 48 B)", "1 open group, not committed (…)"; "" when nothing is in flight. */
export function asyncSummary(a: AsyncWork | undefined): string {
  if (!a || !a.copies) return "";
  const groups = a.groups.length;
  const what = `(${a.copies} cop${a.copies === 1 ? "y" : "ies"}, ${byteText(a.bytes)})`;
  if (!a.open) return `${groups} group${groups === 1 ? "" : "s"} in flight ${what}`;
  // Copies issued since the lane's last commit: no wait_group covers them yet.
  if (!a.committed) return `${groups} open group${groups === 1 ? "" : "s"}, not committed ${what}`;
  return `${groups} groups in flight, ${a.open} open ${what}`;
}

/** One line per group: "group 0 · committed · 32 copies, 512 B · lanes ffffffff · line 57". */
export function asyncGroupLines(a: AsyncWork | undefined): string[] {
  if (!a) return [];
  return a.groups.map((g) => `group ${g.group} · ${g.committed ? "committed: a wait_group can land it" : "open: not committed yet"} · ` +
    `${g.copies} cop${g.copies === 1 ? "y" : "ies"}, ${byteText(g.bytes)} · lanes ${g.lanes} · ${linesName(g.lines, g.cudaLines)}`);
}

const groupsText = (n: number) => `${n} group${n === 1 ? "" : "s"}`;

/** A warp's wgmma.mma_async results in flight: "wgmma: 1 group in flight (1 mma_async)",
 * "wgmma: 1 open group, not committed (2 mma_async)"; "" when none. */
export function wgmmaSummary(g: WgmmaWork | null | undefined): string {
  if (!g || !g.ops) return "";
  const ops = `(${g.ops} mma_async)`;
  if (!g.committed) return `wgmma: ${g.open} open group${g.open === 1 ? "" : "s"}, not committed ${ops}`;
  return `wgmma: ${groupsText(g.committed)} in flight${g.open ? `, ${g.open} open` : ""} ${ops}`;
}

/** The groups a wgmma.wait_group waits on, for a waiting warp's label: "1 group in flight". */
export function wgmmaInFlight(g: WgmmaWork | null | undefined): string {
  const n = (g?.committed ?? 0) + (g?.open ?? 0);
  return `${groupsText(n)} in flight`;
}

/** One line per wgmma-group: "group 0 · committed: a wait_group can land it · 1 mma_async · line 36". */
export function wgmmaGroupLines(g: WgmmaWork | null | undefined): string[] {
  if (!g) return [];
  return g.groups.map((x) => `group ${x.group} · ${x.committed ? "committed: a wgmma.wait_group can land it" : "open: not committed yet"} · ` +
    `${x.ops} mma_async · line${x.lines.length > 1 ? "s" : ""} ${x.lines.join(", ")}`).concat(g.groupsMore ? [`${g.groupsMore} newer groups not listed`] : []);
}

/** A shared-memory range a copy in flight will write. */
export interface PendingRange {
  offset: number;
  bytes: number;
  warp: number;
  lane: number;
  line: number;
  cudaLine?: number;
  committed: boolean;
}

/** The shared-memory bytes the copies in flight of one CTA (by linear index) will write. */
export function pendingRanges(m: Model, linear: number): PendingRange[] {
  const out: PendingRange[] = [];
  for (const c of m.ctas.values()) {
    if (c.linear !== linear) continue;
    for (const w of c.warps) {
      for (const it of w.async?.items ?? []) {
        out.push({ offset: it.dst, bytes: it.size, warp: w.warp, lane: it.lane, line: it.line, cudaLine: it.cudaLine, committed: it.committed });
      }
    }
  }
  return out;
}

/** The hover text of a memory cell [off, off+size) that copies in flight will write, or "". */
export function pendingText(ranges: PendingRange[], off: number, size: number): string {
  const hits = ranges.filter((r) => r.offset < off + size && off < r.offset + r.bytes);
  if (!hits.length) return "";
  const at = new Map(hits.map((r) => [r.line, r.cudaLine]));
  const lines = [...at.keys()].sort((a, b) => a - b);
  const who = hits.length === 1 ? `warp ${hits[0].warp} lane ${hits[0].lane}` : `${hits.length} copies`;
  return `pending cp.async from ${linesName(lines, lines.map((l) => at.get(l)))} (${who}): lands at the thread's cp.async.wait_group/wait_all or exit`;
}
