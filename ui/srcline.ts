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
