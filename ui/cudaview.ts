// The CUDA ↔ PTX marks of the CUDA mode: the colour-matched lines and the
// hover link, breakpoints on CUDA lines, the warps' CUDA lines (and the
// fault's), the divergence shading and the memory badges carried from
// their PTX lines to the CUDA line they were compiled from.

import type { Loaded } from "./proto";
import type { Change } from "./model";
import type { App } from "./app";
import type { CudaMode } from "./cudamode";
import { cudaToPtx, linkColourMaps } from "./linkmarks";
import type { LaneShading, WarpMarks } from "./editormarks";
import type { MemBadges } from "./membadges";
import { isDirty } from "./editing";

import { mask32 } from "./format";

export class CudaView {
  /** PTX line i+1 → CUDA line (of the PTX shown). */
  private map: readonly number[] = [];
  private back = new Map<number, number[]>();
  /** The CUDA lines with instructions in the loaded program. */
  codeLines = new Set<number>();
  private revealed = "";

  constructor(private readonly app: App, private readonly mode: CudaMode) {
    app.model.subscribe((c) => this.render(c));
  }

  private get ed() {
    return this.mode.on ? this.mode.editor : null;
  }

  /** The CUDA line of PTX line l (0: none). */
  cudaLineOf(l: number): number {
    return this.map[l - 1] ?? 0;
  }

  clear(): void {
    this.map = [];
    this.back = new Map();
    this.codeLines = new Set();
    this.mode.editor?.setLinkColours(new Map());
    this.mode.editor?.setCodeLines(new Set());
    this.app.editor.setLinkColours(new Map());
  }

  /** A compile's PTX is shown: colour both sides. */
  mapChanged(): void {
    const m = this.mode.shown;
    if (!m || !this.ed) return;
    this.map = m.ptxToCuda;
    this.back = cudaToPtx(m.ptxToCuda);
    const c = linkColourMaps(m.ptxToCuda);
    this.ed.setLinkColours(c.cuda);
    this.app.editor.setLinkColours(c.ptx);
  }

  loaded(m: Loaded): void {
    if (!this.ed) return;
    this.codeLines = new Set((m.cuda?.lines ?? []).map((l) => l.line));
    this.ed.setCodeLines(this.codeLines);
    // The breakpoints on CUDA lines carry over to the program just loaded.
    const keep = this.ed.breakpointLines().filter((l) => this.codeLines.has(l));
    this.ed.setBreakpoints(keep);
    for (const l of keep) this.app.session.conn.send({ type: "breakpoint", cudaLine: l, on: true });
  }

  toggleBreakpoint(line: number, on: boolean): void {
    if (!this.app.session.isOpen || !this.app.model.loaded?.cuda) return;
    if (on && !this.codeLines.has(line)) {
      this.ed?.setBreakpoints(this.ed.breakpointLines().filter((l) => l !== line));
      this.app.notify(`kernel.cu line ${line} has no instructions: put the breakpoint on a line with code.`, "info");
      return;
    }
    this.app.session.conn.send({ type: "breakpoint", cudaLine: line, on });
    this.app.saveDraft();
  }

  /** A lesson hint's kernel.cu line: marked there, its first PTX line too. */
  showCudaLine(l: number): void {
    if (!this.ed) return;
    this.ed.showHintLine(l);
    const p = this.back.get(l);
    if (p?.length) this.app.editor.showHintLine(p[0]);
    this.hoverCuda(l);
  }

  /** The pointer is on CUDA line l (0: off the editor). */
  hoverCuda(l: number): void {
    if (!this.ed) return;
    this.ed.setLinkHot(l ? new Set([l]) : new Set());
    this.app.editor.setLinkHot(new Set(this.back.get(l) ?? []));
  }

  /** The pointer is on PTX line l. */
  hoverPtx(l: number): void {
    if (!this.ed) return;
    const c = this.cudaLineOf(l);
    this.ed.setLinkHot(c ? new Set([c]) : new Set());
    this.app.editor.setLinkHot(c ? new Set(this.back.get(c)) : l ? new Set([l]) : new Set());
  }

  private render(c: Set<Change>): void {
    const ed = this.ed;
    if (!ed) return;
    const m = this.app.model;
    if (c.has("breakpoints")) ed.setBreakpoints([...m.cudaBreakpoints]);
    const clean = !!m.loaded?.cuda && !isDirty(this.app);
    if (c.has("warps") || c.has("selection") || c.has("fault") || c.has("loaded") || c.has("source")) {
      const marks: WarpMarks = { lines: new Map(), selectedLine: null, faultLine: clean ? m.fault?.cudaLine ?? null : null };
      if (clean) {
        const multi = m.ctas.size > 1;
        for (const cta of m.sortedCtas()) {
          for (const w of cta.warps) {
            const line = w.cudaLine ?? 0;
            if (line <= 0 || !(mask32(w.valid) & ~mask32(w.exited))) continue;
            let e = marks.lines.get(line);
            if (!e) marks.lines.set(line, (e = { warps: [], selected: false, next: false }));
            e.warps.push(multi ? `CTA ${cta.linear} w${w.warp}` : `w${w.warp}`);
            if (m.sel.cta === cta.cta && m.sel.warp === w.warp) {
              e.selected = true;
              marks.selectedLine = line;
            }
            if (m.next && m.next.cta === cta.cta && m.next.warp === w.warp) e.next = true;
          }
        }
      }
      ed.setWarpMarks(marks);
      const key = `${m.sel.cta}:${m.sel.warp}:${marks.selectedLine}`;
      if (marks.selectedLine && key !== this.revealed && m.step > 0) ed.reveal(marks.selectedLine);
      this.revealed = key;
    }
    if (c.has("divergence") || c.has("loaded") || c.has("source")) {
      const s: LaneShading = new Map();
      if (clean && m.divergence) {
        for (const l of m.divergence.lines) {
          const cl = this.cudaLineOf(l.line);
          if (!cl) continue;
          const had = s.get(cl);
          // A CUDA line shows its least-populated PTX line: divergence inside it shows.
          if (!had || l.lanes < had.lanes) s.set(cl, { lanes: l.lanes, warps: l.warps });
        }
      }
      ed.setLaneShading(s);
    }
    if (c.has("lineMemory") || c.has("loaded") || c.has("source")) {
      window.setTimeout(() => this.badges());
    }
  }

  /** The PTX lines' memory badges, gathered on the CUDA line each came from. */
  badges(): void {
    const ed = this.ed;
    if (!ed) return;
    const b: MemBadges = new Map();
    for (const [line, badge] of this.app.badges) {
      const cl = this.cudaLineOf(line);
      if (!cl) continue;
      const had = b.get(cl);
      b.set(cl, had ? { line: cl, findings: [...had.findings, ...badge.findings], title: `${had.title}\n\n${badge.title}` } : { ...badge, line: cl });
    }
    ed.setMemBadges(b);
  }
}
