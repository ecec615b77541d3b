// The per-line memory findings shown as editor gutter badges: bank
// conflicts of shared-memory accesses ("4-way conflict") and the
// coalescing of global ones ("50% coalesced"), from the state's
// lineMemory (the sums up to the step shown; docs/protocol.md).

import type { LineMemory } from "./proto";

/** One finding of a line: the badge text, a shorter form for narrow editors, and the explanation. */
export interface MemFinding {
  /** "conflict" (shared, wavefronts above the ideal), "uncoalesced" (global, efficiency below 100%), "clean". */
  kind: "conflict" | "uncoalesced" | "clean";
  /** Badge text, e.g. "4-way conflict", "50% coalesced", "✓". */
  text: string;
  /** The number part alone, e.g. "4-way", "50%" (narrow editors). */
  short: string;
  /** How bad: 0 mild, 1 severe. */
  severity: 0 | 1;
  /** The hover text: what the numbers mean. */
  explain: string;
}

/** A line's findings (at most one per state space) and the summary of all of them. */
export interface MemBadge {
  line: number;
  findings: MemFinding[];
  /** Every finding's explanation, one paragraph each (the badge's title). */
  title: string;
}

export type MemBadges = Map<number, MemBadge>;

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");

/** A number with at most one decimal, without a trailing ".0". */
function fmt1(n: number): string {
  const r = Math.round(n * 10) / 10;
  return Number.isInteger(r) ? fmtInt(r) : r.toFixed(1);
}

/** The conflict degree for a badge: whole numbers when close, one decimal otherwise, never "1" above the ideal. */
export function degreeText(wavefronts: number, ideal: number): string {
  const d = wavefronts / ideal;
  if (d >= 10 || Math.abs(d - Math.round(d)) < 0.05) {
    const r = Math.round(d);
    return r <= 1 ? "1.1" : String(r);
  }
  return d.toFixed(1);
}

/** The efficiency in percent for a badge: one decimal at most, never "100" below it. */
export function percentText(requested: number, moved: number): string {
  const p = (requested / moved) * 100;
  const r = Math.floor(p * 10) / 10;
  return Number.isInteger(r) ? String(r) : r.toFixed(1);
}

/** The instruction of a source line: its first token after a label and a guard ("ld.shared.f32"). */
export function opOf(text: string): string {
  let s = text.replace(/\/\/.*$/, "").trim();
  s = s.replace(/^[\w$.]+:\s*/, "");
  s = s.replace(/^@!?%?[\w$]+\s+/, "");
  const m = /^[\w.:]+/.exec(s);
  return m ? m[0] : "this instruction";
}

const times = (n: number) => `${fmtInt(n)}×`;

/** The findings of one line; lineText is the source line (for the instruction's name). */
export function badgeOf(l: LineMemory, lineText: string): MemBadge | null {
  if (l.executions <= 0) return null;
  const op = opOf(lineText);
  const n = l.executions;
  const findings: MemFinding[] = [];
  if (l.shared && l.idealWavefronts > 0) {
    const w = l.wavefronts, ideal = l.idealWavefronts;
    if (w > ideal) {
      const deg = degreeText(w, ideal);
      findings.push({
        kind: "conflict", text: `${deg}-way conflict`, short: `${deg}-way`, severity: w >= 4 * ideal ? 1 : 0,
        explain: `${op} executed ${times(n)}: ${fmtInt(w)} wavefronts for an ideal ${fmtInt(ideal)} — on average a ${deg}-way bank conflict: ` +
          `lanes of one warp hit the same bank at different words, so the access is split into ${deg} serial wavefronts.`,
      });
    } else {
      findings.push({
        kind: "clean", text: "✓", short: "✓", severity: 0,
        explain: `${op} executed ${times(n)}: ${fmtInt(w)} wavefront${w === 1 ? "" : "s"}, the ideal — no bank conflict ` +
          `(the lanes' words lie in different banks, or lanes share a word).`,
      });
    }
  }
  if (l.global && l.sectors > 0) {
    const moved = l.sectors * 32;
    const req = l.bytesRequested;
    const perSec = fmt1(l.sectors / n), perReq = fmt1(req / n), perLine = fmt1(l.lines / n);
    const what = `${op}: ${perSec} sector${perSec === "1" ? "" : "s"} of 32 B (${perLine} line${perLine === "1" ? "" : "s"} of 128 B) ` +
      `for ${perReq} requested bytes per warp access (${times(n)})`;
    if (req < moved) {
      const pct = percentText(req, moved);
      findings.push({
        kind: "uncoalesced", text: `${pct}% coalesced`, short: `${pct}%`, severity: req * 4 <= moved ? 1 : 0,
        explain: `${what}: ${pct}% of the moved bytes were used. The lanes' addresses are spread over more 32-byte sectors than the data needs; ` +
          `neighbouring lanes reading neighbouring addresses would need fewer.`,
      });
    } else {
      findings.push({
        kind: "clean", text: "✓", short: "✓", severity: 0,
        explain: `${what}: fully coalesced, every moved byte was used.`,
      });
    }
  }
  if (!findings.length) return null;
  // One neutral mark for a line with no finding at all.
  const bad = findings.filter((f) => f.kind !== "clean");
  const shown = bad.length ? bad : [findings[0]];
  return { line: l.line, findings: shown, title: findings.map((f) => f.explain).join("\n\n") };
}

/** The badges of every line; textOf gives a line's source text. */
export function badgesOf(lines: LineMemory[], textOf: (line: number) => string): MemBadges {
  const out: MemBadges = new Map();
  for (const l of lines) {
    const b = badgeOf(l, textOf(l.line));
    if (b) out.set(l.line, b);
  }
  return out;
}
