// The controls bar: step buttons (forward by a warp-instruction, a round
// or a barrier; the last one used is the unit Back steps by), Back, Run /
// Continue / Pause, Reset, the timeline over every recorded
// warp-instruction, the status badge, and the notice that says why a
// command stopped.

import type { Change, Granularity, Model } from "./model";
import { byId, grouped, h, setChildren, setText, toggle } from "./dom";

export interface ControlsHooks {
  /** Whether the session's connection is open. */
  isOpen(): boolean;
  /** The position the timeline is being dragged to (while a seek is under way). */
  seekTarget(): number | null;
  seek(step: number): void;
  /** Whether the page holds no session (it connects on the next action). */
  asleep(): boolean;
  /** What the page tells the user while asleep, and the label of the button that connects. */
  sleepNote(): string;
  sleepAction(): string;
  /** Connects (the button of the notice). */
  wake(): void;
}

const unitName: Record<Granularity, string> = { warp: "warp-instruction", round: "round", barrier: "barrier", "source-line": "source line" };

export class ControlsView {
  private status = byId("pg-status");
  private stepText = byId("pg-step");
  private timeline = byId<HTMLInputElement>("pg-timeline");
  private notice = byId("pg-notice");
  private stats = byId("pg-stats");
  private runBtn = document.querySelector<HTMLButtonElement>('[data-action="run"]');
  private backBtn = document.querySelector<HTMLButtonElement>('[data-action="back"]');

  constructor(private readonly model: Model, private readonly hooks: ControlsHooks) {
    this.timeline.addEventListener("input", () => hooks.seek(Number(this.timeline.value)));
    model.subscribe((c) => this.update(c));
  }

  private update(c: Set<Change>): void {
    if (c.has("status") || c.has("loaded") || c.has("conn") || c.has("diagnostics") || c.has("source") || c.has("fault")) this.render();
  }

  render(): void {
    const m = this.model;
    const open = this.hooks.isOpen();
    const asleep = this.hooks.asleep();
    const ready = m.compiled && !!m.loaded;
    // Asleep, the commands that need a session connect first: they stay enabled.
    const canStep = m.canStep() || (asleep && (!ready || (m.status !== "done" && m.status !== "fault" && m.status !== "limit")));
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-action]")) {
      const a = b.dataset.action;
      if (a === "step-warp" || a === "step-round" || a === "step-barrier" || a === "step-line") {
        b.disabled = !canStep;
        b.setAttribute("aria-pressed", a === `step-${m.gran}` ? "true" : "false");
      } else if (a === "back") b.disabled = !ready || m.running || m.step <= m.firstStep;
      else if (a === "reset" || a === "compile") b.disabled = !open && !asleep;
      else if (a === "run") b.disabled = !m.running && !canStep;
    }
    if (this.backBtn) {
      this.backBtn.title = `One ${unitName[m.gran]} back (Shift+F10 or p); the step buttons choose the unit`;
      const label = this.backBtn.querySelector(".label");
      if (label) setText(label, m.gran === "warp" ? "Back" : `Back ${m.gran}`);
    }
    if (this.runBtn) {
      const label = this.runBtn.querySelector(".label");
      const icon = this.runBtn.querySelector(".icon-glyph");
      if (label) setText(label, m.running ? "Pause" : m.step > 0 ? "Continue" : "Run");
      if (icon) setText(icon, m.running ? "❚❚" : "▶");
      this.runBtn.title = m.running ? "Pause (Esc or Space)" : "Run until a breakpoint, a fault or the end (F5 or c)";
      toggle(this.runBtn, "running", m.running);
    }
    const tl = this.timeline;
    const last = Math.max(m.firstStep, m.steps - 1);
    tl.disabled = !ready || m.steps <= 1;
    tl.min = String(m.firstStep);
    tl.max = String(last);
    const target = this.hooks.seekTarget();
    if (target === null) tl.value = String(m.step);
    tl.setAttribute("aria-valuetext", `warp-instruction ${m.step} of ${last}`);
    setText(this.stepText, ready ? `step ${m.step}/${last}` : "");
    this.stepText.title = ready ? `${grouped(m.step)} warp-instructions executed; the history reaches ${grouped(last)}${m.firstStep ? ` (from ${grouped(m.firstStep)})` : ""}` : "";

    const errors = m.diagnostics.some((d) => d.severity === "error");
    const st = asleep ? "asleep" : !open ? "offline" : !ready ? (errors || m.loadError ? "error" : "idle") : m.running ? "running" : m.status || "paused";
    this.status.dataset.status = st;
    const label: Record<string, string> = {
      asleep: ready ? "disconnected" : "not started", offline: "offline", idle: "not loaded", error: "compile errors", running: "running", paused: "paused", done: "done", fault: "fault", limit: "limit reached",
    };
    const whys: Record<string, string> = { breakpoint: " · breakpoint", budget: " · budget", interrupted: " · time limit", "no-barrier": " · no barrier ahead" };
    const why = !m.running && st === "paused" ? (whys[m.reason] ?? "") : m.running && m.reason === "throttled" ? " · throttled" : "";
    setText(this.status, (label[st] ?? st) + why);
    this.status.title = m.message || (st === "fault" && m.fault ? m.fault.message : "");

    setText(this.stats, ready ? `${m.finishedCTAs}/${m.totalCTAs} CTAs finished · ${grouped(m.stats.warpInstructions)} warp-instructions · ${grouped(m.stats.threadInstructions)} thread-instructions` : "");

    // Why the last command stopped, when it is more than "stepped".
    let notice = "";
    if (ready && !m.running) {
      if (m.reason === "budget") notice = `${m.message || "This command spent its warp-instruction budget."}`;
      else if (m.status === "limit") notice = `${m.message || "The launch spent its maxWarpInstructions."} Raise maxWarpInstructions in the Launch tab, or reset.`;
      else if (m.reason === "interrupted") notice = m.message ? sentence(m.message) : "This command ran the server's time limit for one command: Continue goes on from here.";
      else if (m.reason === "breakpoint" && m.message) notice = m.message;
      else if (m.reason === "no-barrier") notice = sentence(m.message || "no barrier ahead: nothing was run");
    } else if (ready && m.running && m.reason === "throttled") {
      notice = m.message || "This session used its share of the server's CPU for now: the run goes on when it comes back. You can pause meanwhile.";
    }
    if (asleep) {
      // No session: say why, and offer to connect (any command does too).
      const note = this.hooks.sleepNote();
      setChildren(this.notice, h("span", note), " ", h("button.btn-small.pg-wake", { type: "button", onclick: () => this.hooks.wake() }, this.hooks.sleepAction()));
      toggle(this.notice, "asleep", true);
      this.notice.hidden = !note;
      return;
    }
    toggle(this.notice, "asleep", false);
    setText(this.notice, notice);
    this.notice.hidden = !notice;
  }
}

/** s with a capital first letter and a closing full stop. */
function sentence(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : t + ".";
}
