// Opcode and special-register documentation from /api/isa, for hover
// tooltips and completion in the editor.

export interface OpDoc {
  name: string;
  family?: string;
  status?: string;
  syntax?: string;
  doc?: string;
}

export interface SpecialDoc {
  name: string;
  bits?: number;
  doc?: string;
}

export interface IsaDocs {
  ops: Map<string, OpDoc>;
  specials: Map<string, SpecialDoc>;
}

let pending: Promise<IsaDocs> | null = null;
let loaded: IsaDocs | null = null;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

function normalise(data: unknown): IsaDocs {
  const docs: IsaDocs = { ops: new Map(), specials: new Map() };
  const obj = (data ?? {}) as Record<string, unknown>;
  const opsList = Array.isArray(data) ? data : (obj.opcodes ?? obj.ops ?? obj.instructions ?? []);
  const spList = obj.specials ?? obj.specialRegisters ?? obj.sregs ?? [];
  const each = (list: unknown, f: (o: Record<string, unknown>, key?: string) => void) => {
    if (Array.isArray(list)) for (const o of list) f((o ?? {}) as Record<string, unknown>);
    else if (list && typeof list === "object")
      for (const [k, o] of Object.entries(list as Record<string, unknown>)) f((o ?? {}) as Record<string, unknown>, k);
  };
  each(opsList, (o, key) => {
    const name = str(o.name) ?? key;
    if (!name) return;
    docs.ops.set(name, {
      name, family: str(o.family), status: str(o.status), syntax: str(o.syntax), doc: str(o.doc ?? o.description),
    });
  });
  each(spList, (o, key) => {
    const name = str(o.name) ?? key;
    if (!name) return;
    const bits = Number(o.bits);
    docs.specials.set(name, { name, bits: Number.isFinite(bits) && bits > 0 ? bits : undefined, doc: str(o.doc ?? o.description) });
  });
  return docs;
}

/** The ISA docs (fetched once; an empty set if the server has none). */
export function isaDocs(): Promise<IsaDocs> {
  if (!pending) {
    pending = fetch("/api/isa", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
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
