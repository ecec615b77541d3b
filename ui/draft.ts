// The draft: what the user has in the playground (source, launch,
// breakpoints, position), saved in the browser as it changes, so that a
// reload, a closed tab or a server restart loses nothing.

import type { CudaSource, Spec } from "./proto";

/** The most breakpoints a link or a draft keeps, per editor (the server's share.MaxBreakpoints). */
export const MAX_BREAKPOINTS = 1000;

/** Breakpoint lines from untrusted JSON: positive integers, at most MAX_BREAKPOINTS (undefined: not a list). */
export function parseLines(x: unknown): number[] | undefined {
  return Array.isArray(x) ? x.filter((l): l is number => Number.isSafeInteger(l) && l > 0).slice(0, MAX_BREAKPOINTS) : undefined;
}

/** The CUDA of a draft or a link, read from untrusted JSON (null: none or malformed). */
export function parseCuda(v: unknown): CudaSource | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  if (typeof o.source !== "string") return null;
  return {
    source: o.source,
    arch: typeof o.arch === "string" && /^sm_\d{2,3}a?$/.test(o.arch) ? o.arch : undefined,
    opt: Number.isInteger(o.opt) && (o.opt as number) >= 0 && (o.opt as number) <= 3 ? (o.opt as number) : undefined,
    fastMath: o.fastMath === true ? true : undefined,
  };
}

export interface Draft {
  v: 1;
  source: string;
  spec: Spec;
  /** The gallery example the draft started from, if any. */
  example?: string;
  /** The share link the draft started from, if any. */
  share?: string;
  fileName?: string | null;
  /** The kernel (a loaded kernelSig) the spec was made for. */
  kernel?: string;
  breakpoints: number[];
  /** The breakpoints on kernel.cu lines (CUDA mode). */
  cudaBreakpoints?: number[];
  /** The CUDA the PTX was compiled from (CUDA mode), if any. */
  cuda?: CudaSource;
  /** The position (warp-instructions) the user was at. */
  step: number;
  saved: number;
}

const KEY = "ptxplay.draft";

/** The saved draft, or null. */
export function readDraft(): Draft | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const d = JSON.parse(raw) as Partial<Draft>;
    if (d.v !== 1 || typeof d.source !== "string" || !d.spec || typeof d.spec !== "object") return null;
    return {
      v: 1, source: d.source, spec: d.spec, example: typeof d.example === "string" ? d.example : undefined,
      share: typeof d.share === "string" ? d.share : undefined,
      fileName: typeof d.fileName === "string" ? d.fileName : null,
      kernel: typeof d.kernel === "string" && d.kernel.length <= 4096 ? d.kernel : undefined,
      breakpoints: parseLines(d.breakpoints) ?? [],
      cudaBreakpoints: parseLines(d.cudaBreakpoints),
      cuda: parseCuda(d.cuda) ?? undefined,
      step: Number.isSafeInteger(d.step) && (d.step as number) > 0 ? (d.step as number) : 0,
      saved: Number(d.saved) || 0,
    };
  } catch {
    return null;
  }
}

/** Saves the draft (quietly does nothing when storage is unavailable or full). */
export function writeDraft(d: Omit<Draft, "v" | "saved">): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ v: 1, ...d, saved: Date.now() }));
  } catch {
    // Private mode or a full quota: the draft is not kept.
  }
}

export function clearDraft(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // ignore
  }
}

/** Calls fn at most once per wait, after the last of a burst of calls. */
export function debounce(fn: () => void, wait: number): { (): void; flush(): void } {
  let t = 0;
  const f = () => {
    window.clearTimeout(t);
    t = window.setTimeout(fn, wait);
  };
  f.flush = () => {
    window.clearTimeout(t);
    fn();
  };
  return f;
}
