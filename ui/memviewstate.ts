// What a share link keeps of the memory view, and the element types the
// view reads memory as.

import type { SymbolInfo } from "./proto";
import { elemTypes } from "./proto";

/** What a share link keeps of the memory view (viewstate.ts). */
export interface MemoryViewState {
  /** The region's tab: "shared" or "global:NAME". */
  region: string;
  /** The element type it is read as, when not its own. */
  type?: string;
  hex?: boolean;
  /** Shared memory as its 32 banks (else as a table). */
  banks?: boolean;
  /** The table's page (0: the first). */
  page?: number;
}

/** Element types the view reads memory as (not the untyped b8…b64). */
export const viewTypes: readonly string[] = elemTypes.filter((x) => !x.startsWith("b"));

/** The memory view's part of a share link, from untrusted JSON. */
export function parseMemoryView(v: unknown): MemoryViewState | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.region !== "string" || o.region.length > 300) return undefined;
  const out: MemoryViewState = { region: o.region };
  if (typeof o.type === "string" && viewTypes.includes(o.type)) out.type = o.type;
  if (o.hex === true) out.hex = true;
  if (o.banks === true) out.banks = true;
  if (Number.isSafeInteger(o.page) && (o.page as number) > 0) out.page = o.page as number;
  return out;
}

/** The element type of the kernel's first shared variable (the natural
 * way to read shared memory), or u32. */
export function sharedType(symbols: SymbolInfo[] | undefined): string {
  const t = symbols?.find((x) => x.space === "shared")?.type ?? "u32";
  if (t.startsWith("b")) return "u" + t.slice(1);
  return elemTypes.includes(t as (typeof elemTypes)[number]) ? t : "u32";
}
