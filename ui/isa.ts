// Opcode and special-register documentation from /api/isa, for hover
// tooltips and completion in the editor.

import type { IsaDoc, IsaOpcode, IsaSpecial } from "./api_gen";

/** An opcode's documentation: /api/isa's entry (generated from web's isaOpcode). */
export type OpDoc = IsaOpcode;
/** A special register's documentation: /api/isa's entry. */
export type SpecialDoc = IsaSpecial;

export interface IsaDocs {
  ops: Map<string, OpDoc>;
  specials: Map<string, SpecialDoc>;
}

let pending: Promise<IsaDocs> | null = null;
let loaded: IsaDocs | null = null;

/** Indexes the /api/isa answer by name (an empty set when there is none). */
function normalise(data: IsaDoc | null): IsaDocs {
  const docs: IsaDocs = { ops: new Map(), specials: new Map() };
  for (const o of data?.opcodes ?? []) docs.ops.set(o.name, o);
  for (const s of data?.specials ?? []) docs.specials.set(s.name, s);
  return docs;
}

/** The ISA docs (fetched once; an empty set if the server has none). */
export function isaDocs(): Promise<IsaDocs> {
  if (!pending) {
    pending = fetch("/api/isa", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? (r.json() as Promise<IsaDoc>) : null))
      .catch(() => null)
      .then((d) => (loaded = normalise(d)));
  }
  return pending;
}

/** The docs if they have arrived. */
export function isaDocsNow(): IsaDocs | null {
  return loaded;
}

/** The opcode of an instruction word ("ld.global.v4.f32" -> the longest known dotted prefix). */
export function opcodeOf(word: string, docs: IsaDocs): OpDoc | undefined {
  const parts = word.split(".");
  for (let n = parts.length; n >= 1; n--) {
    const d = docs.ops.get(parts.slice(0, n).join("."));
    if (d) return d;
  }
  return undefined;
}

/** The special register named by a word ("%tid.x", or "%tid" for the vector). */
export function specialOf(word: string, docs: IsaDocs): SpecialDoc | undefined {
  return docs.specials.get(word) ?? docs.specials.get(word.replace(/\.[xyz]$/, ".x")) ?? docs.specials.get(word.replace(/\.[xyz]$/, ""));
}
