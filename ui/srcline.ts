// Where an instruction is, in words. Every panel that names a line of the
// state (faults, the checker's warnings, events, printf output, the warp
// rows) goes through here, so a CUDA program's places are named by their
// kernel.cu line first: "kernel.cu:7 (PTX line 31)". Instructions without
// a CUDA line (and PTX programs) keep "line 31".

/** The CUDA file's name in these labels. */
export const cudaFile = "kernel.cu";

/** "kernel.cu:7 (PTX line 31)", or "line 31"; col adds ":col" to the PTX line. */
export function lineName(line: number, cudaLine?: number | null, col?: number): string {
  const ptx = `${line}${col ? `:${col}` : ""}`;
  return cudaLine && cudaLine > 0 ? `${cudaFile}:${cudaLine} (PTX line ${ptx})` : `line ${ptx}`;
}

/** The short form, for tight rows: "kernel.cu:7", or "L31". */
export function lineShort(line: number, cudaLine?: number | null): string {
  return cudaLine && cudaLine > 0 ? `${cudaFile}:${cudaLine}` : `L${line}`;
}

/** The title of a button that selects PTX line `line` in the editor. */
export function lineTitle(line: number, cudaLine?: number | null): string {
  return cudaLine && cudaLine > 0 ? `${cudaFile} line ${cudaLine}: select its PTX (line ${line}) in the editor` : `Select line ${line} in the editor`;
}

function cudaSpan(a?: number | null, b?: number | null): [number, number] | null {
  const ls = [a ?? 0, b ?? 0].filter((l) => l > 0);
  return ls.length ? [Math.min(...ls), Math.max(...ls)] : null;
}

function ptxSpan(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}

/** PTX lines first..last (a basic block): "kernel.cu:4–5 (PTX lines 30–33)", or "lines 30–33" ("line 30"). */
export function rangeName(first: number, last: number, cudaFirst?: number | null, cudaLast?: number | null): string {
  const c = cudaSpan(cudaFirst, cudaLast);
  const ptx = ptxSpan(first, last);
  return c ? `${cudaFile}:${c[0] === c[1] ? c[0] : `${c[0]}–${c[1]}`} (PTX ${ptx})` : ptx;
}

/** The short form of rangeName: "kernel.cu:4–5", or "lines 30–33" ("line 30"). */
export function rangeShort(first: number, last: number, cudaFirst?: number | null, cudaLast?: number | null): string {
  const c = cudaSpan(cudaFirst, cudaLast);
  return c ? `${cudaFile}:${c[0] === c[1] ? c[0] : `${c[0]}–${c[1]}`}` : ptxSpan(first, last);
}

/** Several places: "kernel.cu:9 (PTX line 61), kernel.cu:12 (PTX line 70)", or "lines 61, 70" ("line 61"). cudaLines[i] is lines[i]'s. */
export function linesName(lines: number[], cudaLines?: (number | null | undefined)[] | null): string {
  if (!cudaLines?.some((c) => c && c > 0)) return `line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}`;
  return lines.map((l, i) => lineName(l, cudaLines[i])).join(", ");
}
