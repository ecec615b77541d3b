// Typed formatting of raw register and memory bits. Values travel as
// lowercase hex strings of the raw bits (docs/protocol.md); a register of
// an N-bit type holds the N-bit pattern zero-extended.

/** Formats; "auto" shows small integers in decimal and everything else (addresses, bit patterns) in hex. */
export type Fmt = "auto" | "hex" | "unsigned" | "signed" | "f16" | "bf16" | "f32" | "f64" | "f16x2" | "bf16x2";

export const allFormats: Fmt[] = ["auto", "hex", "unsigned", "signed", "f32", "f64", "f16", "bf16", "f16x2", "bf16x2"];

export const fmtLabels: Record<Fmt, string> = {
  auto: "int/hex",
  hex: "hex", unsigned: "unsigned", signed: "signed", f16: "f16", bf16: "bf16",
  f32: "f32", f64: "f64", f16x2: "f16x2", bf16x2: "bf16x2",
};

/** The width in bits of a register or element type name (u32, f16x2, b64, pred…). */
export function typeBits(t: string): number {
  if (t === "pred") return 1;
  if (t.endsWith("x2")) return 32;
  const m = /(\d+)$/.exec(t);
  return m ? Number(m[1]) : 32;
}

/** The natural format of a type: how its values read best. */
export function defaultFmt(t: string): Fmt {
  switch (t) {
    case "f16": return "f16";
    case "bf16": return "bf16";
    case "f32": return "f32";
    case "f64": return "f64";
    case "f16x2": return "f16x2";
    case "bf16x2": return "bf16x2";
  }
  if (t.startsWith("s")) return "signed";
  if (t.startsWith("u")) return "unsigned";
  return "auto";
}

/** How a register of PTX type t reads best: as defaultFmt, except that
 * 64-bit integer registers (which mostly hold addresses, offsets and
 * counts) show small values in decimal, known addresses as `buffer+offset`
 * and the rest in hex. */
export function defaultRegFmt(t: string): Fmt {
  if (/^[bus]64$/.test(t)) return "auto";
  return defaultFmt(t);
}

/** The "decimal" choice for a register of type t: floats as floats,
 * signed types signed, everything else unsigned. */
export function decimalFmt(t: string): Fmt {
  if (t.startsWith("f") || t.startsWith("bf")) return defaultFmt(t);
  return t.startsWith("s") ? "signed" : "unsigned";
}

// ---- symbolic addresses ----

/** Generic-address windows of the emulated GPU (docs/emulator.md). */
const WINDOW = 0x1_0000_0000n;
const windows: [string, bigint, string][] = [
  ["shared", 0x1000_0000_0000n, "the generic window of the CTA's shared memory"],
  ["local", 0x2000_0000_0000n, "the generic window of the thread's local memory"],
  ["const", 0x3000_0000_0000n, "the generic window of the constant bank"],
  ["param", 0x4000_0000_0000n, "the generic window of the kernel parameters"],
];

/** A named address range: a global buffer or a generic window. */
export interface AddrRange {
  name: string;
  base: bigint;
  /** Bytes; an address up to base+size (one past the end) is named. */
  size: bigint;
  /** Element size in bytes (buffers), 0 for windows. */
  elem: number;
  count: number;
  note: string;
}

/** The address ranges a `loaded` message describes: its buffers (name,
 * type, count, base address) and the generic windows of shared, local,
 * const and param memory (4 GiB each; the note of shared gives the
 * launch's shared bytes). */
export function addressRanges(loaded: { buffers?: { name: string; type: string; count: number; addr: string }[] | null; sharedBytes?: number } | null): AddrRange[] {
  const out: AddrRange[] = [];
  if (!loaded) return out;
  for (const b of loaded.buffers ?? []) {
    if (!/^[0-9a-f]+$/i.test(b.addr)) continue;
    const elem = Math.max(1, typeBits(b.type) / 8);
    out.push({ name: b.name, base: BigInt("0x" + b.addr), size: BigInt(b.count * elem), elem, count: b.count, note: `buffer ${b.name} (.${b.type} × ${b.count})` });
  }
  for (const [name, base, note] of windows) {
    const shared = name === "shared" && loaded.sharedBytes !== undefined;
    out.push({ name, base, size: WINDOW, elem: 0, count: 0, note: shared ? `${note} (${loaded.sharedBytes} bytes)` : note });
  }
  return out;
}

/** A 64-bit value as `name+offset` when it points into a known range. */
export function symbolicAddr(hex: string, ranges: readonly AddrRange[] | null | undefined): { text: string; detail: string } | null {
  if (!ranges?.length || !hex || hex.length > 16) return null;
  const v = big(hex, 64);
  // Inside a range first; else one past the end of one.
  const r = ranges.find((x) => v >= x.base && v < x.base + x.size) ?? ranges.find((x) => v === x.base + x.size);
  if (r) {
    const off = v - r.base;
    const text = `${r.name}+${off}`;
    let detail = `${r.name} + ${off} bytes: ${r.note}`;
    if (r.elem) {
      const e = Number(off) / r.elem;
      if (off === r.size) detail += ", one past the end";
      else if (Number.isInteger(e)) detail += `, &${r.name}[${e}]`;
      else detail += `, inside ${r.name}[${Math.floor(e)}]`;
    }
    return { text, detail };
  }
  return null;
}

/** The formats that make sense for a value of `bits` bits. */
export function formatsFor(bits: number): Fmt[] {
  if (bits >= 64) return ["auto", "hex", "unsigned", "signed", "f64", "f32", "f16x2", "bf16x2"];
  if (bits >= 32) return ["auto", "hex", "unsigned", "signed", "f32", "f16x2", "bf16x2"];
  if (bits >= 16) return ["auto", "hex", "unsigned", "signed", "f16", "bf16"];
  return ["auto", "hex", "unsigned", "signed"];
}

/** The low `bits` bits of a hex string, as a number (bits <= 32). */
function low(hex: string, bits: number): number {
  const digits = Math.ceil(bits / 4);
  const s = hex.length > digits ? hex.slice(hex.length - digits) : hex;
  const v = s === "" ? 0 : parseInt(s, 16);
  return bits >= 32 ? v >>> 0 : v & ((1 << bits) - 1);
}

function big(hex: string, bits: number): bigint {
  const v = hex === "" ? 0n : BigInt("0x" + hex);
  return BigInt.asUintN(bits, v);
}

/** Decodes IEEE binary16 bits. */
export function f16Value(h: number): number {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Decodes bfloat16 bits. */
export function bf16Value(h: number): number {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setUint32(0, (h & 0xffff) << 16);
  return buf.getFloat32(0);
}

function f32Value(u: number): number {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setUint32(0, u >>> 0);
  return buf.getFloat32(0);
}

function f64Value(hex: string): number {
  const v = big(hex, 64);
  const buf = new DataView(new ArrayBuffer(8));
  buf.setBigUint64(0, v);
  return buf.getFloat64(0);
}

function special(v: number): string | null {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  return null;
}

/** The shortest decimal that maps back to v in a binary format with `mant`
 * stored mantissa bits and exponent bias `bias`. */
function shortest(v: number, mant: number, bias: number, maxDigits: number): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const a = Math.abs(v);
  const e = Math.max(Math.floor(Math.log2(a)), 1 - bias);
  const half = 2 ** (e - mant) / 2; // half an ulp: the rounding interval
  for (let p = 1; p < maxDigits; p++) {
    const s = v.toPrecision(p);
    if (Math.abs(Number(s) - v) < half) return tidy(Number(s));
  }
  return tidy(Number(v.toPrecision(maxDigits)));
}

function tidy(x: number): string {
  const s = String(x);
  return s.replace("e+", "e");
}

function f32Text(u: number): string {
  const v = f32Value(u);
  const sp = special(v);
  if (sp !== null) return sp;
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return tidy(Number(s));
  }
  return tidy(v);
}

/** Formats raw bits (hex string) of a `bits`-wide value in format f; in
 * "auto", a 64-bit value inside one of `ranges` reads `name+offset`. */
export function formatValue(hex: string, bits: number, f: Fmt, ranges?: readonly AddrRange[] | null): string {
  switch (f) {
    case "auto": {
      // Integers that look like counts and indices in decimal, known
      // addresses by name, the rest in hex.
      if (bits <= 32) {
        const u = low(hex, bits);
        const v = bits === 32 ? u | 0 : u >= 2 ** (bits - 1) ? u - 2 ** bits : u;
        return Math.abs(v) < 1 << 24 ? String(v) : "0x" + u.toString(16);
      }
      const v = BigInt.asIntN(64, big(hex, 64));
      if (v > -(1n << 31n) && v < 1n << 32n) return v.toString();
      const sym = symbolicAddr(hex, ranges);
      if (sym) return sym.text;
      return "0x" + big(hex, bits).toString(16);
    }
    case "hex": {
      const digits = Math.max(1, Math.ceil(bits / 4));
      let s = hex.length > digits ? hex.slice(hex.length - digits) : hex;
      s = s.padStart(digits, "0");
      return "0x" + s;
    }
    case "unsigned":
      if (bits <= 32) return String(low(hex, bits));
      return big(hex, bits).toString();
    case "signed":
      if (bits <= 32) {
        const u = low(hex, bits);
        return String(bits === 32 ? u | 0 : u >= 2 ** (bits - 1) ? u - 2 ** bits : u);
      }
      return BigInt.asIntN(bits, big(hex, bits)).toString();
    case "f16":
      return shortest(f16Value(low(hex, 16)), 10, 15, 6);
    case "bf16":
      return shortest(bf16Value(low(hex, 16)), 7, 127, 4);
    case "f32":
      return f32Text(low(hex, 32));
    case "f64": {
      const v = f64Value(hex);
      return special(v) ?? tidy(v);
    }
    case "f16x2": {
      const u = low(hex, 32);
      return shortest(f16Value(u & 0xffff), 10, 15, 6) + " " + shortest(f16Value(u >>> 16), 10, 15, 6);
    }
    case "bf16x2": {
      const u = low(hex, 32);
      return shortest(bf16Value(u & 0xffff), 7, 127, 4) + " " + shortest(bf16Value(u >>> 16), 7, 127, 4);
    }
  }
}

/** A multi-line description of a value in every format that fits its width, for tooltips. */
export function describeValue(hex: string, bits: number, ranges?: readonly AddrRange[] | null): string {
  const lines = formatsFor(bits).filter((f) => f !== "auto").map((f) => `${fmtLabels[f].padEnd(8)} ${formatValue(hex, bits, f)}`);
  const sym = bits >= 64 ? symbolicAddr(hex, ranges) : null;
  if (sym) lines.unshift(`${"address".padEnd(8)} ${sym.detail}`);
  return lines.join("\n");
}

/** Hex without the leading zeros (compact table cells). */
export function shortHex(hex: string, bits: number): string {
  const digits = Math.max(1, Math.ceil(bits / 4));
  let s = hex.length > digits ? hex.slice(hex.length - digits) : hex;
  s = s.replace(/^0+(?=.)/, "");
  return "0x" + (s || "0");
}

/** Parses a 32-bit mask in hex. */
export function mask32(hex: string | undefined | null): number {
  if (!hex) return 0;
  return parseInt(hex.length > 8 ? hex.slice(-8) : hex, 16) >>> 0;
}

/** The number of set bits of a 32-bit mask. */
export function popc(m: number): number {
  m = m - ((m >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** "0x0000ffff" for a mask. */
export function maskText(m: number): string {
  return "0x" + (m >>> 0).toString(16).padStart(8, "0");
}

/** Little-endian bytes to a hex string of the value they hold. */
export function leHex(bytes: Uint8Array, off: number, size: number): string {
  let s = "";
  for (let i = size - 1; i >= 0; i--) s += (bytes[off + i] ?? 0).toString(16).padStart(2, "0");
  return s;
}

/** Decodes a hex string into bytes (memory order). */
export function hexBytes(hex: string): Uint8Array {
  const n = hex.length >> 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The most characters formatValue gives a `bits`-wide value in format f,
 * where that is bounded: hex and the integer formats (in "auto" without
 * address names). Floats have no useful bound (String(1e20) is 21
 * characters); their budget is what fitValue rounds to. */
export function maxChars(bits: number, f: Fmt): number {
  const digits = (b: number) => (2n ** BigInt(b) - 1n).toString().length;
  switch (f) {
    case "hex": return 2 + Math.max(1, Math.ceil(bits / 4));
    case "unsigned": return digits(bits);
    case "signed": return (2n ** BigInt(bits - 1)).toString().length + 1;
    case "auto": return bits <= 32 ? Math.max(9, 2 + Math.ceil(bits / 4)) : Math.max(11, 2 + Math.ceil(bits / 4));
    case "f16": return 9;
    case "bf16": return 8;
    case "f32": return 11;
    case "f64": return 13;
    case "f16x2": return 19;
    case "bf16x2": return 17;
  }
}

/** formatValue limited to maxChars(bits, f) characters: hex and integers
 * always fit whole; a float whose shortest exact text is longer is
 * rounded to as many significant digits as fit (approx: true; the exact
 * value is describeValue's). */
export function fitValue(hex: string, bits: number, f: Fmt): { text: string; approx: boolean } {
  const text = formatValue(hex, bits, f);
  const max = maxChars(bits, f);
  if (text.length <= max) return { text, approx: false };
  if (f === "f16x2" || f === "bf16x2") {
    const one: Fmt = f === "f16x2" ? "f16" : "bf16";
    const u = low(hex, 32);
    const lo = fitValue((u & 0xffff).toString(16), 16, one), hi = fitValue((u >>> 16).toString(16), 16, one);
    return { text: `${lo.text} ${hi.text}`, approx: lo.approx || hi.approx };
  }
  const v = Number(text);
  if (!Number.isFinite(v)) return { text: text.slice(0, max), approx: true };
  for (let p = 8; p >= 1; p--) {
    const fixed = tidy(Number(v.toPrecision(p)));
    if (fixed.length <= max) return { text: fixed, approx: true };
    const exp = v.toExponential(p - 1).replace("e+", "e");
    if (exp.length <= max) return { text: exp, approx: true };
  }
  return { text: v.toExponential(0).replace("e+", "e"), approx: true };
}
