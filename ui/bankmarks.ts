// The bank grid's marks: which lanes of the last step's shared accesses
// touched which words, with their wavefront and conflict mark, drawn as
// lane badges, and the model's verdict of an access as a line of text.

import type { Access } from "./proto";
import { h } from "./dom";

/** The banks of shared memory, and the bytes of a bank word. */
export const BANKS = 32;
export const WORD = 4;

/** One lane's mark on a word. */
export interface Mark {
  lane: number;
  wave: number;
  conflict: boolean;
  kind: Access["kind"];
}

/** The colour of a wavefront: well-separated hues, so lanes of one wavefront match. */
export function waveColour(w: number): string {
  return `hsl(${(w * 137.5 + 210) % 360}, 62%, ${w % 2 ? 36 : 44}%)`;
}

/** Lane numbers as ranges: "0–3, 8, 12–15". */
export function laneRanges(lanes: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lanes.length; ) {
    let j = i;
    while (j + 1 < lanes.length && lanes[j + 1] === lanes[j] + 1) j++;
    out.push(j > i ? `${lanes[i]}–${lanes[j]}` : `${lanes[i]}`);
    i = j + 1;
  }
  return out.join(", ");
}

function maskLanes(hex: string): number[] {
  const m = parseInt(hex || "0", 16) >>> 0;
  const out: number[] = [];
  for (let l = 0; l < 32; l++) if (m & (1 << l)) out.push(l);
  return out;
}

/** The verdict of one shared access as a line of text:
 * "ld.shared.f32 · 32 lanes · 32 wavefronts (ideal 1): 32-way bank conflict". */
/** The conflict degree, wavefronts per ideal wavefront ("8" for 32
 * wavefronts of a 16-byte load whose ideal is 4; "1.5" when uneven). */
export function conflictWays(wavefronts: number, ideal: number): string {
  const d = wavefronts / Math.max(1, ideal);
  return Number.isInteger(d) ? String(d) : d.toFixed(1);
}

export function bankSummary(op: string, a: Access): string {
  const v = a.shared;
  const n = a.offsets.filter((o) => o !== null).length;
  const head = `${op || a.kind} · ${n} lane${n === 1 ? "" : "s"}`;
  if (!v) return head;
  const verdict = (() => {
    const same = maskLanes(v.broadcast).length > 0;
    const sameWord = a.kind === "load" ? "broadcast" : a.kind === "store" ? "same-word writes" : "";
    if (v.wavefronts > v.ideal) {
      return `${conflictWays(v.wavefronts, v.ideal)}-way bank conflict` + (same && sameWord ? ` · ${sameWord}` : "");
    }
    return same && sameWord ? sameWord : "conflict-free";
  })();
  return `${head} · ${v.wavefronts} wavefront${v.wavefronts === 1 ? "" : "s"} (ideal ${v.ideal}): ${verdict}`;
}

/** The lanes of accesses on the words they touched (every word of each
 * lane's bytes), with their wavefront and conflict mark. */
export function markWords(accesses: Access[]): Map<number, Mark[]> {
  const out = new Map<number, Mark[]>();
  for (const a of accesses) {
    const v = a.shared;
    const conflict = parseInt(v?.conflict || "0", 16) >>> 0;
    a.offsets.forEach((o, lane) => {
      if (o === null) return;
      for (let w = Math.floor(o / WORD); w <= Math.floor((o + Math.max(1, a.size) - 1) / WORD); w++) {
        let ms = out.get(w);
        if (!ms) out.set(w, (ms = []));
        if (!ms.some((m) => m.lane === lane)) ms.push({ lane, wave: v?.waves[lane] ?? 0, conflict: (conflict & (1 << lane)) !== 0, kind: a.kind });
      }
    });
  }
  return out;
}

/** A word's lanes as badges: consecutive lanes of one wavefront share one
 * ("0–31" for a broadcast), so a crowded word stays readable. */
export function laneBadges(marks: Mark[]): HTMLElement[] {
  const sorted = [...marks].sort((a, b) => a.lane - b.lane);
  const out: HTMLElement[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1].lane === sorted[j].lane + 1 && sorted[j + 1].wave === sorted[i].wave && sorted[j + 1].conflict === sorted[i].conflict) j++;
    const m = sorted[i];
    const text = j > i ? `${m.lane}–${sorted[j].lane}` : String(m.lane);
    out.push(h(m.conflict ? "b.bl.bl-x" : "b.bl", { style: `--wc: ${waveColour(m.wave)}`, "data-lane": m.lane, "data-wave": m.wave }, text));
    i = j + 1;
  }
  return out;
}
