// The view a share link carries: one declared table of fields. Capturing a
// link walks it (captureView), opening one walks it (restoreView), and
// reading one from untrusted JSON walks it (parseView): a view choice is in
// the link exactly when it has a row here, and the row says how it is read,
// taken and put back. TypeScript checks that every field of ShareView has
// its row. The link format is in docs/protocol.md ("Share links").
//
// What belongs to the shared moment: what the author was looking at (the
// tab, the selected CTA, warp and lane, each tab's own settings, the
// breakpoints, the file's name). What does not: the reader's preferences
// (theme, presenter mode, live edits, the memory badges, the splitter, the
// register table's orientation, the step count).

import type { Granularity, Model } from "./model";
import type { SwizzleViewState } from "./swizzle";
import type { MemoryViewState } from "./memory";
import type { RegsViewState } from "./regs";
import { parseMemoryView } from "./memory";
import { parseRegsView } from "./regs";
import { parseLines } from "./draft";

/** The view state a link restores. Every field is optional. */
export interface ShareView {
  /** The name of the file the kernel was imported from (else the example or the kernel names it). */
  file?: string;
  tab?: string;
  breakpoints?: number[];
  /** The breakpoints on kernel.cu lines (a CUDA program). */
  cudaBreakpoints?: number[];
  gran?: string;
  cta?: number;
  warp?: number;
  /** The memory view: region, element type, hex, Table or Banks, page. */
  memory?: MemoryViewState;
  /** The register table: formats, the watched register, the filter. */
  regs?: RegsViewState;
  /** The fragment explorer: the form, the kernel's instruction shown live (pc). */
  fragment?: string;
  fragmentPC?: number;
  /** The selected lane (the fragment explorer's highlight; the registers show its column). */
  lane?: number;
  /** The swizzle explorer: pattern, tile, access checks, live. */
  swizzle?: SwizzleViewState;
}

/** What the fields capture from and restore onto: the app's views. */
export interface ViewHost {
  readonly model: Model;
  fileName(): string | null;
  setFileName(name: string): void;
  tab(): string;
  /** Shows tab t when it is one of the page's tabs. */
  showTab(t: string): void;
  breakpoints(): number[];
  setBreakpoints(lines: number[]): void;
  /** The kernel.cu lines with a breakpoint (none outside CUDA mode). */
  cudaBreakpoints(): number[];
  /** Puts breakpoints on kernel.cu lines (CUDA mode; they reach the server with the CUDA program's load). */
  setCudaBreakpoints(lines: number[]): void;
  setGran(g: Granularity): void;
  /** Selects a warp when the launch has it. */
  select(cta: number, warp: number): void;
  readonly memory: { viewState(): MemoryViewState | undefined; restoreView(v: MemoryViewState): void };
  readonly regs: { viewState(): RegsViewState | undefined; restoreView(v: RegsViewState): void; revealLane(lane: number): void };
  readonly fragments: {
    viewState(): { fragment?: string; fragmentPC?: number; lane?: number };
    restoreView(v: { fragment?: string; fragmentPC?: number; lane?: number }): void;
  };
  readonly swizzle: { viewState(): SwizzleViewState | undefined; restoreView(v: SwizzleViewState): void };
}

/**
 * One field of the view. when: "start" restores as soon as the page opens
 * (nothing of the program needed); "program" once the link's program is
 * loaded and at the link's step (the warps, regions and instructions exist).
 */
interface Field<K extends keyof ShareView> {
  when: "start" | "program";
  /** The value from untrusted JSON (undefined: absent or not valid). */
  parse(v: unknown): ShareView[K] | undefined;
  /** The page's value (undefined: nothing to keep). */
  capture(h: ViewHost): ShareView[K] | undefined;
  /** Puts v back (all: the whole view, for fields restored together). */
  restore(h: ViewHost, v: NonNullable<ShareView[K]>, all: ShareView): void;
}

type Fields = { [K in keyof ShareView]-?: Field<K> };

const int = (x: unknown): number | undefined => (Number.isSafeInteger(x) && (x as number) >= 0 ? (x as number) : undefined);
const str = (max: number) => (x: unknown): string | undefined => (typeof x === "string" && x.length > 0 && x.length <= max ? x : undefined);

/** Bidirectional formatting and control characters, path separators: never part of a file's name shown or downloaded. */
const BAD_NAME = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c/\\]/g;

/** A file name from untrusted input, or undefined. */
export function parseFileName(x: unknown): string | undefined {
  if (typeof x !== "string") return undefined;
  const n = x.replace(BAD_NAME, "").trim();
  return n && n.length <= 200 ? n : undefined;
}

/**
 * The table. Its order is the order of restoring: the selection before the
 * views that show the selected warp, the fragment form before the kernel's
 * instruction before the lane (showing an instruction clears the lane).
 */
export const VIEW_FIELDS: Fields = {
  file: {
    when: "start",
    parse: parseFileName,
    capture: (h) => h.fileName() ?? undefined,
    restore: (h, v) => h.setFileName(v),
  },
  tab: {
    when: "start",
    parse: str(32),
    capture: (h) => h.tab(),
    restore: (h, v) => h.showTab(v),
  },
  breakpoints: {
    when: "start",
    parse: parseLines,
    capture: (h) => {
      const b = h.breakpoints();
      return b.length ? b : undefined;
    },
    restore: (h, v) => h.setBreakpoints(v),
  },
  cudaBreakpoints: {
    when: "start",
    parse: parseLines,
    capture: (h) => {
      const b = h.cudaBreakpoints();
      return b.length ? b : undefined;
    },
    restore: (h, v) => h.setCudaBreakpoints(v),
  },
  gran: {
    when: "program",
    parse: (x) => (x === "warp" || x === "round" || x === "barrier" ? x : undefined),
    capture: (h) => h.model.gran,
    restore: (h, v) => h.setGran(v as Granularity),
  },
  cta: {
    when: "program",
    parse: int,
    capture: (h) => h.model.sel.cta,
    // With the warp: the warp's row selects both.
    restore: (h, v, all) => {
      if (all.warp === undefined) h.select(v, h.model.sel.warp);
    },
  },
  warp: {
    when: "program",
    parse: int,
    capture: (h) => h.model.sel.warp,
    restore: (h, v, all) => h.select(all.cta ?? h.model.sel.cta, v),
  },
  memory: {
    when: "program",
    parse: parseMemoryView,
    capture: (h) => h.memory.viewState(),
    restore: (h, v) => h.memory.restoreView(v),
  },
  regs: {
    when: "program",
    parse: parseRegsView,
    capture: (h) => h.regs.viewState(),
    restore: (h, v) => h.regs.restoreView(v),
  },
  fragment: {
    when: "program",
    parse: str(100),
    capture: (h) => h.fragments.viewState().fragment,
    restore: (h, v) => h.fragments.restoreView({ fragment: v }),
  },
  fragmentPC: {
    when: "program",
    parse: int,
    capture: (h) => h.fragments.viewState().fragmentPC,
    restore: (h, v) => h.fragments.restoreView({ fragmentPC: v }),
  },
  lane: {
    when: "program",
    parse: (x) => (int(x) !== undefined && (x as number) < 32 ? (x as number) : undefined),
    capture: (h) => h.fragments.viewState().lane,
    restore: (h, v) => {
      h.fragments.restoreView({ lane: v });
      window.setTimeout(() => h.regs.revealLane(v), 0);
    },
  },
  swizzle: {
    when: "program",
    parse: parseSwizzleView,
    capture: (h) => h.swizzle.viewState(),
    restore: (h, v) => h.swizzle.restoreView(v),
  },
};

const keys = Object.keys(VIEW_FIELDS) as (keyof ShareView)[];

/** The view from untrusted JSON: every field the table knows and finds valid; the rest is dropped. */
export function parseView(v: unknown): ShareView {
  const out: Record<string, unknown> = {};
  if (!v || typeof v !== "object" || Array.isArray(v)) return out;
  const o = v as Record<string, unknown>;
  for (const k of keys) {
    const x = (VIEW_FIELDS[k] as Field<typeof k>).parse(o[k]);
    if (x !== undefined) out[k] = x;
  }
  return out as ShareView;
}

/**
 * The view the page shows now. pending: a link's view not restored yet
 * (the page holds no program): its program fields are kept as they are.
 */
export function captureView(h: ViewHost, pending: ShareView | null = null): ShareView {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const f = VIEW_FIELDS[k] as Field<typeof k>;
    const x = pending && f.when === "program" ? pending[k] : f.capture(h);
    if (x !== undefined) out[k] = x;
  }
  return out as ShareView;
}

/** Restores the fields of v that belong to when. */
export function restoreView(h: ViewHost, v: ShareView, when: "start" | "program"): void {
  for (const k of keys) {
    const f = VIEW_FIELDS[k] as Field<typeof k>;
    const x = v[k];
    if (f.when === when && x !== undefined && x !== null) f.restore(h, x as never, v);
  }
}

/** The swizzle explorer's part of a view, from untrusted JSON (the server normalised it; this keeps only its shape). */
export function parseSwizzleView(v: unknown): SwizzleViewState | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.mode !== "string") return undefined;
  const out: SwizzleViewState = {
    mode: o.mode, rowBytes: int(o.rowBytes) ?? 128, rows: int(o.rows) ?? 8, base: int(o.base) ?? 0,
    row: int(o.row) ?? 0, col: int(o.col) ?? 0, chunk: int(o.chunk) ?? 0,
  };
  if (typeof o.atom === "string") out.atom = o.atom;
  for (const k of ["b", "m", "s"] as const) if (int(o[k]) !== undefined) out[k] = int(o[k]);
  if (o.focus === "row" || o.focus === "column" || o.focus === "ldmatrix") out.focus = o.focus;
  if (typeof o.live === "boolean") out.live = o.live;
  if (o.unit === 4 || o.unit === 8 || o.unit === 16) out.unit = o.unit;
  return out;
}
