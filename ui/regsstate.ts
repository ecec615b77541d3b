// The register table's format choice (what a register of a type is shown
// as) and its share-link state (viewstate.ts): the format choice,
// per-register formats, the watched register and the filter, parsed from
// untrusted JSON.

import { allFormats, decimalFmt, defaultRegFmt, formatsFor } from "./format";
import type { Fmt } from "./format";

/** The format menu: "auto" picks by each register's type, "decimal" shows
 * integers in decimal (signed for signed types) and floats as floats. */
export type FmtChoice = Fmt | "auto" | "decimal";

/** What a share link keeps of the register table (viewstate.ts); the rows' orientation is the reader's. */
export interface RegsViewState {
  /** The format of every register (auto: by its type). */
  format?: string;
  /** Registers given their own format, by name. */
  formats?: Record<string, string>;
  /** The register in the warp watch. */
  watch?: string;
  filter?: string;
  /** Only the registers the last step changed. */
  changed?: boolean;
}

/** The format of a register of a type and width under the menu's choice
 * (for a register not given its own format in its menu). */
export function regFormat(global: FmtChoice, type: string, bits: number): Fmt {
  if (global === "auto") return defaultRegFmt(type);
  if (global === "decimal") return decimalFmt(type);
  const ok = formatsFor(bits);
  if (ok.includes(global)) return global;
  if (bits === 16 && (global === "f16x2" || global === "f32")) return "f16";
  if (bits === 16 && global === "bf16x2") return "bf16";
  return "hex";
}

export const isFmtChoice = (x: unknown): x is FmtChoice => typeof x === "string" && (x === "decimal" || (allFormats as string[]).includes(x));

/** The most registers a link gives their own format. */
const MAX_REG_FORMATS = 256;

/** The register table's part of a share link, from untrusted JSON. */
export function parseRegsView(v: unknown): RegsViewState | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const out: RegsViewState = {};
  if (isFmtChoice(o.format) && o.format !== "auto") out.format = o.format;
  if (o.formats && typeof o.formats === "object" && !Array.isArray(o.formats)) {
    const f: Record<string, string> = {};
    let n = 0;
    for (const [name, fmt] of Object.entries(o.formats as Record<string, unknown>)) {
      if (n >= MAX_REG_FORMATS) break;
      if (name.length > 0 && name.length <= 64 && typeof fmt === "string" && (allFormats as string[]).includes(fmt)) {
        f[name] = fmt;
        n++;
      }
    }
    if (n) out.formats = f;
  }
  if (typeof o.watch === "string" && o.watch.length > 0 && o.watch.length <= 64) out.watch = o.watch;
  if (typeof o.filter === "string" && o.filter.trim() && o.filter.length <= 64) out.filter = o.filter;
  if (o.changed === true) out.changed = true;
  return Object.keys(out).length ? out : undefined;
}
