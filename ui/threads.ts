// Independent thread scheduling, shown: the selected warp's thread groups
// (each path's pc, lanes and state, the group the scheduler picked last and
// why), a 32-lane strip whose lanes say why they are or are not issuing
// (hover, or tap on a phone), and the scheduling bar: which model the launch
// runs, a switch that re-runs it under the other one, and the note that
// says how the two models' results differ (docs/protocol.md, "threads" and
// compare-scheduling).

import { h } from "./dom";
import { mask32, popc } from "./format";
import { lineName, lineShort, lineTitle } from "./srcline";
import type { Model } from "./model";
import type { CompareRun, LaneWait, SchedulingCompare, ThreadGroup, WarpThreads } from "./proto";

/** The words for a scheduling model. */
export function modelName(s: string): string {
  return s === "simt-stack" ? "the SIMT stack" : s === "independent" ? "independent scheduling" : s;
}

/** The button label of a model: "SIMT stack" / "independent". */
export function modelLabel(s: string): string {
  return s === "simt-stack" ? "SIMT stack" : "independent";
}

/** "lanes 0, 2, 4 … 30 (16)" or "lane 5": a mask in words. */
export function lanesText(mask: number): string {
  const ls: number[] = [];
  for (let l = 0; l < 32; l++) if (mask & (1 << l)) ls.push(l);
  if (!ls.length) return "no lanes";
  if (ls.length === 1) return `lane ${ls[0]}`;
  // Runs: 0–15; a stride: 0, 2, 4 … 30.
  const stride = ls[1] - ls[0];
  if (ls.every((l, i) => l === ls[0] + i * stride)) {
    if (stride === 1) return `lanes ${ls[0]}–${ls[ls.length - 1]}`;
    if (ls.length > 4) return `lanes ${ls[0]}, ${ls[1]}, ${ls[2]} … ${ls[ls.length - 1]} (every ${ordinal(stride)})`;
  }
  if (ls.length <= 6) return `lanes ${ls.join(", ")}`;
  // A few runs: "lanes 1–15, 17–31".
  const runs: string[] = [];
  for (let i = 0; i < ls.length;) {
    let j = i;
    while (j + 1 < ls.length && ls[j + 1] === ls[j] + 1) j++;
    runs.push(j === i ? String(ls[i]) : j === i + 1 ? `${ls[i]}, ${ls[j]}` : `${ls[i]}–${ls[j]}`);
    i = j + 1;
  }
  if (runs.length <= 3) return `lanes ${runs.join(", ")}`;
  return `lanes ${ls.slice(0, 4).join(", ")} … ${ls[ls.length - 1]} (${ls.length})`;
}

function ordinal(n: number): string {
  return n === 2 ? "other" : `${n}th`;
}

function lowest(mask: number): number {
  for (let l = 0; l < 32; l++) if (mask & (1 << l)) return l;
  return -1;
}

/** A place in words: "kernel.cu:7 (PTX line 31)" for a CUDA program (srcline.ts), "line 31", or the pc. */
function lineText(line: number, pc: number, cudaLine?: number | null): string {
  if (pc < 0) return "the kernel's exit";
  return line > 0 ? lineName(line, cudaLine) : `pc ${pc}`;
}

const stateWords: Record<string, string> = {
  "runnable": "runnable",
  "waiting": "waiting to reconverge",
  "sync-wait": "waiting at a warp-synchronous instruction",
  "barrier-wait": "waiting at a barrier for the rest of the warp",
  "in-call": "in a call",
  "suspended": "suspended (below the top of the stack)",
};

/** What the lanes of a waiting warp wait for, by the wait's kind. */
const waitWords: Record<string, string> = {
  "barrier": "waiting at the CTA barrier",
  "cluster-barrier": "waiting at the cluster barrier",
  "async-group": "waiting for its cp.async copies",
  "wgmma-group": "waiting for its wgmma groups",
  "mbarrier": "waiting for an mbarrier phase",
  "warp-sync": "waiting for the lanes of its membermask",
};

/** The state of a group in words; th (the warp's threads) names what a
 * group at the warp's wait waits for. */
export function groupState(g: ThreadGroup, th?: WarpThreads): string {
  if (g.state === "at-wait") {
    const lo = lowest(mask32(g.lanes));
    const why = th?.lanes.find((lw) => lw.lane === lo)?.reason;
    return (why && waitWords[why]) ?? "waiting";
  }
  return stateWords[g.state] ?? g.state;
}

/** Why the scheduler issued the warp's last group, in words. */
export function pickText(th: WarpThreads): string {
  const last = th.last;
  if (!last) return "The warp has not issued an instruction yet.";
  const lanes = mask32(last.lanes);
  const who = `${lanesText(lanes)} at ${lineText(last.line, last.pc, last.cudaLine)}`;
  switch (last.reason) {
    case "only":
      return `Last issue: ${who} — the only runnable group of the warp.`;
    case "stack":
      return `Last issue: ${who} — SIMT stack: the top entry of the reconvergence stack issues until its lanes reach their reconvergence point.`;
    case "round-robin": {
      // Groups that waited for each other at a warp-synchronous instruction
      // (or a barrier) execute it together: the issue spans several groups.
      const spanned = th.groups.filter((g) => { const gm = mask32(g.lanes); return gm !== 0 && ((gm & lanes) >>> 0) === gm; }).length;
      if (spanned >= 2 && th.groups.every((g) => mask32(g.lanes) !== lanes)) {
        return `Last issue: ${who} — the groups that waited for each other there executed it together, as one instruction of the warp.`;
      }
      // The groups take turns by lowest lane: the engine says which lane the pick followed
      // (after) and what issued before (prev); the group after this one's lowest lane goes next.
      const lo = lowest(lanes);
      const runnable = th.groups.filter((g) => g.state === "runnable").map((g) => lowest(mask32(g.lanes))).filter((l) => l >= 0).sort((a, b) => a - b);
      const others = runnable.filter((l) => l !== lo);
      const next = others.find((l) => l > lo) ?? others[0];
      let why = `round-robin: the runnable groups take turns by lowest lane`;
      if (last.after !== undefined && last.after !== lo) {
        why += `; lane ${lo}'s group follows lane ${last.after}'s`;
        if (last.prev) why += ` (which issued before it at ${lineText(last.prev.line, last.prev.pc, last.prev.cudaLine)})`;
      }
      if (next !== undefined) why += `, and lane ${next}'s group goes next`;
      return `Last issue: ${who} — ${why}.`;
    }
  }
  return `Last issue: ${who} (${last.reason}).`;
}

/** Why a lane of the warp is or is not issuing, in words. */
export function laneWhy(th: WarpThreads, lw: LaneWait): string {
  const g = lw.group >= 0 ? th.groups[lw.group] : undefined;
  const at = lineText(lw.line, lw.pc, lw.cudaLine);
  const mates = g ? popc(mask32(g.lanes)) : 0;
  const withWhom = g && mates > 1 ? ` with ${lanesText(mask32(g.lanes) & ~(1 << lw.lane))}` : "";
  switch (lw.reason) {
    case "running":
      return `Lane ${lw.lane} is running: its group${withWhom} issued the warp's last instruction; next it executes ${at}.`;
    case "turn":
      return `Lane ${lw.lane} waits for its turn: its group${withWhom} is runnable at ${at} and issues when the round-robin comes to it.`;
    case "reconvergence": {
      const left = lw.waitLeft ?? 0;
      return `Lane ${lw.lane} is waiting to reconverge at ${at}${withWhom} for the other lanes of its branch (${left.toLocaleString("en-US")} instruction${left === 1 ? "" : "s"} of the warp left before it goes on alone).`;
    }
    case "sync": {
      const aw = mask32(lw.awaits);
      return `Lane ${lw.lane} is waiting at the warp-synchronous instruction at ${at}` + (aw ? ` for ${lanesText(aw)} of its membermask, which are elsewhere.` : ` for the lanes of its membermask.`);
    }
    case "barrier":
      return g?.state === "barrier-wait"
        ? `Lane ${lw.lane} is waiting at the barrier at ${at} for the other live lanes of its warp to reach a barrier.`
        : `Lane ${lw.lane} is waiting at the barrier at ${at} for the other threads of its CTA.`;
    case "call":
      return `Lane ${lw.lane} is in a call: its caller's group continues at ${at} when the call returns.`;
    case "suspended":
      return `Lane ${lw.lane} is suspended on the SIMT stack: its path runs at ${at} once the paths above it reach their reconvergence point.`;
    case "exited":
      return `Lane ${lw.lane} has exited.`;
    case "async-group":
      return `Lane ${lw.lane} is waiting at ${at} for its cp.async copies to land.`;
    case "wgmma-group":
      return `Lane ${lw.lane} is waiting at ${at} for its warp's wgmma.mma_async results to land.`;
    case "mbarrier":
      return `Lane ${lw.lane} is waiting at ${at} for an mbarrier phase to complete.`;
    case "warp-sync":
      return `Lane ${lw.lane} is waiting at ${at} for the other lanes of its membermask.`;
    case "cluster-barrier":
      return `Lane ${lw.lane} is waiting at the cluster barrier at ${at} for the other threads of its cluster.`;
  }
  return `Lane ${lw.lane}: ${lw.reason} at ${at}.`;
}

/** The lane class of a scheduling reason (the strip's colours). */
function laneClass(reason: string): string {
  switch (reason) {
    case "running": return "ln-active";
    case "turn": return "ln-turn";
    case "reconvergence": case "sync": case "call": case "suspended": return "ln-wait";
    case "async-group": case "wgmma-group": case "mbarrier": case "warp-sync": return "ln-wait";
    case "barrier": case "cluster-barrier": return "ln-barrier";
    case "exited": return "ln-exited";
  }
  return "ln-none";
}

/** The lane whose reason was shown last: it stays shown as the machine moves. */
let shownLane = -1;

/** One lane of the "why each lane waits" strip. */
export interface LaneNote {
  lane: number;
  /** A LaneWait reason: "running", "turn", "reconvergence", "sync", "call", "suspended", "exited" or a wait kind ("barrier", "async-group", …). */
  reason: string;
  text: string;
  /** The strip's colour class; by default the reason's. */
  cls?: string;
}

/** The strip of 32 lanes whose hover (or tap, or focus) says why each lane waits, and the line that says it. */
export function laneStrip(notes: LaneNote[]): HTMLElement[] {
  const why = h("p.tg-why", { role: "status", "aria-live": "polite" }, "Hover or tap a lane to see why it is waiting.");
  const strip = h("div.tg-strip", { role: "group", "aria-label": "Why each lane is or is not issuing" });
  const byLane = new Map(notes.map((n) => [n.lane, n]));
  for (let l = 0; l < 32; l++) {
    const n = byLane.get(l);
    const text = n ? n.text : `Lane ${l} holds no thread (the block's last warp is partial).`;
    if (l % 8 === 0 && l) strip.appendChild(h("span.ln-gap"));
    const cell = h("button", { type: "button", class: `tg-lane ln ${n ? n.cls ?? laneClass(n.reason) : "ln-none"}`, "data-lane": l, "data-reason": n?.reason ?? "none", title: text, "aria-label": text });
    const show = () => {
      why.textContent = text;
      for (const c of strip.querySelectorAll(".tg-lane.sel")) c.classList.remove("sel");
      cell.classList.add("sel");
      shownLane = l;
    };
    cell.addEventListener("click", show);
    cell.addEventListener("mouseenter", show);
    cell.addEventListener("focus", show);
    strip.appendChild(cell);
    if (l === shownLane) show();
  }
  return [h("div.tg-lanes", h("span.tg-lanes-label", "why each lane waits:"), strip), why];
}

/** The selected warp's thread groups: a table, the last issue in words and a lane strip whose lanes explain themselves. */
export function threadsView(th: WarpThreads, who: string, goto: (line: number) => void, withStrip = true): HTMLElement {
  const link = (line: number, pc: number, cudaLine?: number) =>
    pc < 0 ? h("span.muted", "exit") : line > 0 ? h("button.linklike", { type: "button", onclick: () => goto(line), title: `${lineTitle(line, cudaLine)} (pc ${pc})` },
      cudaLine ? lineShort(line, cudaLine) : `line ${line}`) : h("span", `pc ${pc}`);
  // Before the warp's first instruction no group has been picked yet.
  const issued = !!th.last;
  const rows = th.groups.map((g, i) => {
    const mk = mask32(g.lanes);
    const picked = issued && g.picked;
    const cells = h("span.lanes.lanes-mini", { "aria-hidden": "true" });
    for (let l = 0; l < 32; l++) {
      if (l % 8 === 0 && l) cells.appendChild(h("span.ln-gap"));
      cells.appendChild(h("span", { class: "ln " + (mk & (1 << l) ? (g.picked ? "ln-active" : g.state === "runnable" ? "ln-turn" : g.state === "barrier-wait" || g.state === "at-wait" ? "ln-barrier" : "ln-wait") : "ln-off") }));
    }
    let state = groupState(g, th);
    if (g.state === "waiting" && g.waitLeft) state += ` · ${g.waitLeft} left`;
    if (g.state === "sync-wait" && g.awaits) state += ` for ${lanesText(mask32(g.awaits))}`;
    return h("tr", { class: `tg-row tg-${g.state}${picked ? " picked" : ""}`, "data-group": i, "data-lanes": g.lanes, "data-state": g.state },
      h("td.tg-pick", picked ? h("span.tg-picked", { title: "the group the warp issued its last instruction from" }, "▶ picked") : ""),
      h("td", link(g.line, g.pc, g.cudaLine)),
      h("td.tg-cells", cells),
      h("td.num", String(popc(mk))),
      h("td.tg-state", state),
      h("td", g.reconv >= 0 ? link(g.reconvLine, g.reconv, g.reconvCudaLine) : h("span.muted", "exit")));
  });
  return h("div.tg-box", { "data-scheduling": "independent" },
    h("div.stack-head", h("span.stack-title", `Thread groups of ${who}`),
      h("span.muted", ` · ${th.groups.length} group${th.groups.length === 1 ? "" : "s"}` + (th.groupsOmitted ? ` (+${th.groupsOmitted} not listed)` : ""))),
    h("p.tg-last", pickText(th)),
    th.groups.length ? h("div.tg-table-box", h("table.stack-table.tg-table",
      h("thead", h("tr", h("th", ""), h("th", "pc"), h("th.tg-cells", "lanes"), h("th", "#"), h("th", "state"), h("th", "reconverges"))),
      h("tbody", rows))) : h("p.muted", "No groups: every lane has exited."),
    withStrip ? laneStrip(th.lanes.map((lw) => ({ lane: lw.lane, reason: lw.reason, text: laneWhy(th, lw) }))) : null);
}

// ---- the SIMT stack: why each lane waits, read from the reconvergence stack ----

/** Why each existing lane of a warp run under the SIMT stack is or is not
 * issuing, in words: the engine's reasons (the selected warp's threads,
 * emu.Warp.LaneWaits) say it: the lanes of the top entry run (or wait, at
 * a barrier); a lane at its reconvergence point waits for the lanes above
 * it that have not arrived; any other lane is suspended below the top
 * until the paths above it reach its reconvergence point. */
export function stackLaneNotes(th: WarpThreads): LaneNote[] {
  return th.lanes.map((lw): LaneNote => {
    const l = lw.lane;
    const at = lineText(lw.line, lw.pc, lw.cudaLine);
    const mates = mask32(lw.with);
    const withWhom = mates ? ` with ${lanesText(mates)}` : "";
    switch (lw.reason) {
      case "exited":
        return { lane: l, reason: "exited", text: `Lane ${l} has exited.` };
      case "running":
        return { lane: l, reason: "running", text: `Lane ${l} is active: its path${withWhom} is the top entry of the SIMT stack and executes ${at} next.` };
      case "barrier":
        return { lane: l, reason: "barrier", text: `Lane ${l} is waiting at the barrier at ${at}${withWhom} for the other threads of its CTA.` };
      case "reconvergence":
        return { lane: l, reason: "reconvergence", cls: "ln-wait",
          text: `Lane ${l} has reached its reconvergence point ${at}${withWhom} and waits there for ${lanesText(mask32(lw.awaits))}, whose paths run above it on the SIMT stack: it cannot go on before they arrive, however long they take.` };
      case "suspended": {
        const rpc = lw.reconv ?? -1;
        return { lane: l, reason: "suspended", cls: "ln-inactive",
          text: `Lane ${l} is suspended below the top of the SIMT stack: its path${withWhom} continues at ${at} once ${lanesText(mask32(lw.above))} above it ${rpc >= 0 ? `reach ${lineText(lw.reconvLine ?? 0, rpc, lw.reconvCudaLine)}` : "exit"}.` };
      }
    }
    return { lane: l, reason: lw.reason, text: laneWhy(th, lw) };
  });
}

// ---- the scheduling bar and the comparison note ----

function outcomeText(r: CompareRun, budget: number): string {
  const wi = r.warpInstructions.toLocaleString("en-US");
  switch (r.outcome) {
    case "done": return `completes (${wi} warp-instructions)`;
    case "budget": return `does not finish (budget spent at ${budget.toLocaleString("en-US")} warp-instructions)`;
    case "deadlock": return `deadlocks at a barrier${r.fault?.line ? ` (line ${r.fault.line})` : ""}`;
    case "fault": return `faults${r.fault ? ` with ${r.fault.kind}${r.fault.line ? ` at line ${r.fault.line}` : ""}` : ""}`;
    case "interrupted": return `was stopped at the time limit after ${wi} warp-instructions`;
  }
  return r.outcome;
}

/** The comparison's note: the same, or how the results differ. */
export function compareNote(c: SchedulingCompare): string {
  const [a, b] = c.runs;
  if (!a || !b) return "";
  if (c.same) {
    const what = a.outcome === "done" ? "both complete" : a.outcome === "budget" ? "neither finishes within the budget" :
      a.outcome === "deadlock" ? "both deadlock at a barrier" : a.outcome === "fault" ? `both fault with ${a.fault?.kind ?? "the same fault"}` : "both were stopped";
    return `Same results under both models: ${what}, with the same buffers ` +
      `(${a.warpInstructions.toLocaleString("en-US")} warp-instructions with independent scheduling, ${b.warpInstructions.toLocaleString("en-US")} under the SIMT stack).`;
  }
  const parts: string[] = [];
  if (c.differences.includes("outcome") || c.differences.includes("fault")) {
    // The model that does worse first: "livelocks under the SIMT stack …; completes with independent scheduling".
    const bad = b.outcome !== "done" ? b : a;
    const good = bad === b ? a : b;
    let s = `${cap(outcomeText(bad, c.budget))} under ${modelName(bad.scheduling)}; ${outcomeText(good, c.budget)} with ${good.scheduling === "independent" ? "independent scheduling" : "the SIMT stack"}.`;
    if (bad.outcome === "budget" && good.outcome === "done" && bad.scheduling === "simt-stack") {
      s += " Likely a livelock: on the SIMT stack the lanes that spin run while the lanes they wait for are parked until the spinning ends.";
    }
    parts.push(s);
  } else {
    const counts = a.warpInstructions === b.warpInstructions ? "" :
      ` (${a.warpInstructions.toLocaleString("en-US")} warp-instructions with independent scheduling, ${b.warpInstructions.toLocaleString("en-US")} under the SIMT stack)`;
    parts.push(a.outcome === "done" && b.outcome === "done" ? `Both runs complete${counts || ` (${a.warpInstructions.toLocaleString("en-US")} warp-instructions)`}, with different buffers.`
      : `Both runs ${outcomeText(a, c.budget).replace(/^completes/, "complete")}, with different buffers.`);
  }
  for (const d of c.buffers) {
    const ex = d.samples.slice(0, 3).map((s) => `${d.name}[${s.index}] = ${s.values[0]} vs ${s.values[1]}`).join(", ");
    parts.push(`${d.name}: ${d.elements} element${d.elements === 1 ? " differs" : "s differ"} (independent vs SIMT stack: ${ex}${d.elements > 3 ? ", …" : ""}).`);
  }
  if (c.buffersOmitted) parts.push(`${c.buffersOmitted} more buffers differ.`);
  return "Results differ: " + parts.join(" ");
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export interface SchedHooks {
  /** Re-run the launch under the other model (and compare the two). */
  rerun(): void;
  /** Compare the two models without re-running. */
  compare(): void;
}

/** The scheduling bar: the launch's model, the switch and the comparison's note. */
export function schedBar(m: Model, hooks: SchedHooks): HTMLElement | null {
  const l = m.loaded;
  if (!l || !m.scheduling) return null;
  const cur = m.scheduling;
  const other = cur === "independent" ? "simt-stack" : "independent";
  const dflt = l.defaultScheduling === cur;
  const target = l.targetSM ? `sm_${l.targetSM}` : "no sm_ target";
  const c = m.compare;
  const note = m.comparing ? h("p.sched-note.pending", { role: "status" }, "Running the launch under both models to compare…")
    : c && !c.cancelled ? h("p", { class: `sched-note ${c.same ? "same" : "differ"}`, role: "status" }, compareNote(c)) : null;
  return h("div.sched-bar", { "data-scheduling": cur },
    h("div.sched-line",
      h("span.sched-model", { title: "How the divergent paths of a warp are scheduled (docs/emulator.md, Scheduling models)" },
        h("strong", cur === "independent" ? "Independent thread scheduling" : "SIMT stack"),
        h("span.muted", dflt ? ` (the default for ${target})` : ` (chosen in the launch; ${target} defaults to ${modelLabel(l.defaultScheduling)})`)),
      h("span.sched-actions",
        h("button.small.sched-rerun", { type: "button", onclick: () => hooks.rerun(), title: `Load the same source and launch with "scheduling": "${other}" and compare the results of both models` },
          `Re-run under ${other === "simt-stack" ? "the SIMT stack" : "independent scheduling"}`),
        h("button.small.sched-compare", { type: "button", onclick: () => hooks.compare(), disabled: m.comparing, title: "Run the launch to its end under both models and say whether the results differ (the run shown stays)" }, "Compare models"))),
    note);
}
