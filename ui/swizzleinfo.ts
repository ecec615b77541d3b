// The swizzle explorer's reading of the engine's numbers: where a byte
// address lies in the tile, where a live access's lanes are, the colours of
// banks and bank groups, and the live report in words.

import { conflictWays } from "./bankmarks";
import type { LiveSwizzle } from "./proto";
import type { SwizzleDoc } from "./api_gen";

/** The explorer's pattern value ("128B/32B", "xor", …) of a detected swizzle. */
export function patternOf(sw: { mode: string; atom?: string }): string {
  return sw.atom ? `${sw.mode}/${sw.atom}` : sw.mode;
}

/** The lanes of a live access by place: "row,chunk" → lanes. */
export function lanePlaces(doc: SwizzleDoc, sw: LiveSwizzle, logical: boolean): Map<string, number[]> {
  const out = new Map<string, number[]>();
  sw.lanes.forEach((lane, i) => {
    const p = physicalPlace(doc, logical ? sw.logical[i] : sw.offsets[i]);
    if (p.row < 0 || p.row >= doc.rows) return;
    const k = `${p.row},${p.chunk}`;
    const l = out.get(k);
    if (l) l.push(lane);
    else out.set(k, [lane]);
  });
  return out;
}

/** "0–3" for consecutive lanes, else "0,8,16". */
export function lanesText(lanes: number[]): string {
  if (lanes.length > 1 && lanes.every((l, i) => i === 0 || l === lanes[i - 1] + 1)) return `${lanes[0]}–${lanes[lanes.length - 1]}`;
  return lanes.join(",");
}

/** The colour of a bank group: the 8 positions of a 16-byte chunk in a 128-byte line. */
export function chunkColour(pos: number): string {
  return `hsl(${(pos * 45 + 200) % 360}, 60%, 88%)`;
}

/** The colour of one bank (a stripe inside a cell). */
export function bankColour(bank: number): string {
  return `hsl(${(Math.floor(bank / 4) * 45 + 200) % 360}, 55%, ${bank % 2 ? 45 : 58}%)`;
}

/** Where a physical byte address lies in the tile: row and cell (of doc.unit bytes; row may fall outside). */
export function physicalPlace(doc: SwizzleDoc, addr: number): { row: number; chunk: number } {
  const off = addr - doc.base;
  return { row: Math.floor(off / doc.rowBytes), chunk: Math.floor((((off % doc.rowBytes) + doc.rowBytes) % doc.rowBytes) / (doc.unit || 16)) };
}

/** What a cell is, in words: "4-byte word", "8-byte half", "16-byte chunk". */
export function unitName(unit: number): string {
  return unit === 4 ? "4-byte word" : unit === 8 ? "8-byte half-chunk" : "16-byte chunk";
}

/** What an affine stride means for a warp's access of size bytes a lane. */
export function strideText(stride: number, size: number): string {
  if (stride === 0) return "one address for every lane: a broadcast";
  if (stride === size) return "consecutive: a row";
  if (stride % 128 === 0) return `rows of ${stride} bytes: every lane in the same bank`;
  if (stride > size && stride % 4 === 0) return `a column of a tile with ${stride}-byte rows (${stride / 4} words, padded off the 32-word bank width)`;
  return `a step of ${stride} bytes from lane to lane`;
}

/** The live report of an access in parts: what it follows (head), the
 * banks' verdict, where its lanes are (layout) and, for a swizzle whose
 * offsets are affine too, the padded tile's reading of them. */
export interface LiveParts {
  head: string;
  banks: string;
  layout: string;
  padded?: string;
}

export function liveParts(sw: LiveSwizzle): LiveParts {
  const n = sw.lanes.length;
  const what = `the ${sw.kind} of ${n} lane${n === 1 ? "" : "s"}`;
  const verdict = sw.wavefronts <= sw.ideal ? `${sw.wavefronts} wavefront${sw.wavefronts === 1 ? "" : "s"}, no conflict` : `${sw.wavefronts} wavefronts (ideal ${sw.ideal}): a ${conflictWays(sw.wavefronts, sw.ideal)}-way bank conflict`;
  const a = sw.affine;
  if (sw.mode !== "none") {
    return {
      head: `${what} follows ${sw.name}`,
      banks: `Banks: ${verdict}; without the swizzle ${sw.logicalWavefronts}.`,
      layout: `Un-swizzled, lane l is at byte ${sw.base} + ${sw.stride}·l.`,
      padded: a ? `The same offsets are affine too, lane l at byte ${a.base} + ${a.stride}·l: ${strideText(a.stride, sw.size)}. A padded tile would put them there as well, so this warp alone cannot tell the two apart; the banks are the same either way.` : undefined,
    };
  }
  if (a) return { head: `${what} is affine, no swizzle`, banks: `Banks: ${verdict}.`, layout: `Lane l is at byte ${a.base} + ${a.stride}·l, ${strideText(a.stride, sw.size)}.` };
  return { head: `${what} is irregular (a gather)`, banks: `Banks: ${verdict}.`, layout: "No swizzle pattern makes its offsets regular." };
}
