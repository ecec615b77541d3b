// Panels around the editor and the inspectors, each a view of the model:
// the problems list, the fault panel, the events list, and the "source
// changed" banner.

import type { Model } from "./model";
import type { CtaState, EventInfo, Fault, Spec, WarningInfo } from "./proto";
import { h, setChildren, setText, toggle } from "./dom";
import { mask32, maskText, popc } from "./format";
import { sameIdx } from "./warps";
import { diagIdTag, diagNotesList } from "./diagview";
import { lineName, lineTitle } from "./srcline";

// ---- problems ----

export class ProblemsView {
  private list = document.getElementById("pg-problems")!;
  private summary = document.getElementById("pg-diag-summary")!;

  constructor(
    private readonly model: Model,
    private readonly goto: (line: number, col: number) => void,
    private readonly fixLaunch: (spec: Spec) => void,
  ) {
    model.subscribe((c) => {
      if (c.has("diagnostics") || c.has("loaded") || c.has("source")) this.render();
    });
  }

  render(): void {
    const m = this.model;
    const list = m.diagnostics;
    const errors = list.filter((d) => d.severity === "error").length + (m.loadError ? 1 : 0);
    const warnings = list.filter((d) => d.severity === "warning").length +
      (m.loaded?.launch && !m.loaded.launch.applied ? m.loaded.launch.mismatches.length : 0);
    const items = list.map((d) => h("li", { class: `diag diag-${d.severity}`, "data-id": d.id || null },
      h("button.diag-loc", { type: "button", onclick: () => this.goto(d.line, d.col), title: "Go to the line" }, `${d.line}:${d.col}`),
      h("span.diag-sev", d.severity),
      h("div.diag-body", h("span.diag-msg", d.message), " ", diagIdTag(d.id), diagNotesList(d.notes, this.goto))));
    if (m.loadError) {
      items.unshift(h("li.diag.diag-error", h("span.diag-loc", "launch"), h("span.diag-sev", "error"), h("span.diag-msg", m.loadError)));
    }
    // How the launch fits the kernel: adapted (said once), or a warning with its fix.
    const fit = m.loaded?.launch;
    if (fit && m.edit !== "changed") {
      const notes = (fit.notes ?? []).map((n) => n.text);
      if (fit.applied) {
        const why = fit.inferred
          ? `The launch is inferred from kernel ${m.loaded!.entry} (nothing of the launch of another kernel is kept).`
          : `The launch now follows kernel ${m.loaded!.entry}: ${(fit.mismatches ?? []).map((x) => x.message).join("; ")}.`;
        items.unshift(h("li.diag.diag-note.launch-fit",
          h("span.diag-loc", "launch"), h("span.diag-sev", fit.inferred ? "inferred" : "adapted"),
          h("span.diag-msg", why,
            notes.length ? h("ul.fit-notes", notes.map((n) => h("li", n))) : null)));
      } else {
        for (const x of fit.mismatches ?? []) {
          items.unshift(h("li.diag.diag-warning.launch-fit",
            h("span.diag-loc", "launch"), h("span.diag-sev", "warning"), h("span.diag-msg", x.message), diagIdTag(x.id),
            fit.spec ? h("button.btn-small.fix-launch", {
              type: "button", title: `Use the launch inferred from the kernel${notes.length ? ":\n" + notes.join("\n") : ""}`,
              onclick: () => this.fixLaunch(fit.spec as unknown as Spec),
            }, "Fix launch") : null));
        }
      }
    }
    setChildren(this.list, items.length ? h("ul.diag-list", items) : null);
    this.list.hidden = !items.length;
    const parts: string[] = [];
    if (errors) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
    if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
    setText(this.summary, parts.length ? parts.join(", ") : m.compiled ? "✓ compiled" : "");
    this.summary.dataset.kind = errors ? "error" : warnings ? "warning" : "ok";
  }
}

// ---- the fault ----

export interface FaultHooks {
  goto(line: number, col: number): void;
  selectFault(f: Fault): void;
}

/** The resident CTA a fault names, if it is resident. */
export function faultCta(m: Model, f: Fault): CtaState | undefined {
  return [...m.ctas.values()].find((c) => sameIdx(c.idx, f.cta));
}

export class FaultView {
  private el = document.getElementById("pg-fault")!;

  constructor(private readonly model: Model, private readonly hooks: FaultHooks) {
    model.subscribe((c) => {
      if (c.has("fault") || c.has("loaded")) this.render();
    });
  }

  render(): void {
    const f = this.model.fault;
    const el = this.el;
    if (!f) {
      el.hidden = true;
      setChildren(el);
      return;
    }
    el.hidden = false;
    const cta = faultCta(this.model, f);
    const dims = (v: number[] | undefined, d: number[] | undefined) => {
      if (!v) return "";
      const n = !d ? 3 : d[2] > 1 ? 3 : d[1] > 1 ? 2 : 1;
      return `(${v.slice(0, n).join(", ")})`;
    };
    const loaded = this.model.loaded;
    const thread = dims(f.thread, loaded?.block);
    const row = (k: string, v: HTMLElement | string | null) => (v === null || v === "" ? null : h("div.fault-kv", h("span.k", k), h("span.v", v)));
    setChildren(el,
      h("div.fault-head", h("span.fault-icon", { "aria-hidden": "true" }, "!"), h("span.fault-kind", f.kind || "fault"),
        h("span.fault-msg", f.message)),
      h("div.fault-grid",
        row(f.cudaLine ? "where" : "line", f.line ? h("button.linklike", { type: "button", onclick: () => this.hooks.goto(f.line, f.col || 1), title: lineTitle(f.line, f.cudaLine) },
          f.cudaLine ? lineName(f.line, f.cudaLine, f.col) : `${f.line}${f.col ? `:${f.col}` : ""}`) : null),
        row("CTA", f.cta ? `${dims(f.cta, loaded?.grid)}${cta ? ` · #${cta.linear}` : ""}` : null),
        row("thread", thread),
        row("warp / lane", h("button.linklike", { type: "button", onclick: () => this.hooks.selectFault(f), title: "Select the faulting warp" }, `warp ${f.warp}, lane ${f.lane}`)),
        row("address", f.address ? h("code", `0x${f.address}`) : null),
        row("stuck at", stuckAt(f, (line) => this.hooks.goto(line, 1)))),
      h("p.fault-hint", "Back steps one instruction at a time to see how it got here."));
  }
}

/** A barrier deadlock's stuck warps by the line they wait at: "w0 w1 at kernel.cu:7 (PTX line 31)". */
function stuckAt(f: Fault, goto: (line: number) => void): HTMLElement | null {
  const at = new Map<number, { cuda?: number; warps: string[] }>();
  for (const w of f.waiting ?? []) {
    if (!w.line) continue;
    const e = at.get(w.line) ?? { cuda: w.cudaLine, warps: [] };
    if (e.warps.length < 8) e.warps.push(`w${w.warp}`);
    else if (e.warps.length === 8) e.warps.push("…");
    at.set(w.line, e);
  }
  if (!at.size) return null;
  return h("span.fault-stuck", [...at].sort((a, b) => a[0] - b[0]).slice(0, 4).map(([line, e]) =>
    h("span", `${e.warps.join(" ")} at `, h("button.linklike", { type: "button", onclick: () => goto(line), title: lineTitle(line, e.cuda) }, lineName(line, e.cuda)), " ")));
}

// ---- events ----

const eventText: Record<string, string> = {
  diverge: "split at a branch", reconverge: "reconverged", "barrier-arrive": "arrived at a barrier",
  "barrier-release": "barrier released", exit: "lanes exited", call: "called a function", return: "returned",
  "cluster-arrive": "arrived at the cluster barrier", "cluster-wait": "went on at once (phase already complete)",
  "cluster-release": "cluster barrier phase complete",
  "mbarrier-init": "initialised an mbarrier", "mbarrier-inval": "invalidated an mbarrier",
  "mbarrier-arrive": "arrived at an mbarrier", "mbarrier-complete-tx": "completed transaction bytes",
  "mbarrier-complete": "mbarrier phase complete", "mbarrier-wait": "waited on an mbarrier",
  "proxy-fence": "fenced the async proxy",
};

export class EventsView {
  constructor(
    private readonly el: HTMLElement,
    private readonly model: Model,
    private readonly visible: () => boolean,
    private readonly goto: (line: number) => void,
    private readonly seek: (step: number) => void = () => {},
  ) {
    model.subscribe((c) => {
      if (c.has("events") || c.has("loaded")) {
        this.renderCount();
        if (this.visible()) this.render();
      } else if (c.has("status") && !model.running && this.visible()) {
        this.render(); // the step moved: which event is current, which steps a seek reaches
      }
    });
  }

  /** The tab was shown. */
  shown(): void {
    this.render();
  }

  /** Shows the number of warnings on the tab's button. */
  private renderCount(): void {
    const btn = document.getElementById("pg-tabbtn-events");
    if (!btn) return;
    const n = this.model.warnings.length;
    let badge = btn.querySelector<HTMLElement>(".tab-count");
    if (!n) {
      badge?.remove();
      btn.removeAttribute("title");
      return;
    }
    if (!badge) {
      badge = h("span.tab-count");
      btn.append(badge);
    }
    setText(badge, `${n}${this.model.warningsDropped ? "+" : ""}`);
    btn.title = `${n} warning${n === 1 ? "" : "s"} from the race and memory checker`;
  }

  render(): void {
    const evs = this.model.events;
    const el = this.el;
    if (!this.model.loaded) {
      setChildren(el, h("p.empty", "Divergence, reconvergence, barriers and exits appear here as you step."));
      return;
    }
    const warns = this.warningsList();
    if (!evs.length) {
      setChildren(el, warns, h("p.empty", "No events yet: step to see divergence, reconvergence, barriers and exits."));
      return;
    }
    const multi = this.model.totalCTAs > 1;
    const m = this.model;
    const rows = evs.slice(-300).map((e) => eventRow(e.ev, multi, this.goto, e.step, {
      at: e.step === m.step, reachable: e.step >= m.firstStep && e.step < m.steps && !m.running, seek: this.seek,
    }));
    setChildren(el, warns, h("ol.event-list", rows));
    el.scrollTop = warns ? 0 : el.scrollHeight;
  }

  /** The checker's warnings, compact, or null when there are none. */
  private warningsList(): HTMLElement | null {
    const ws = this.model.warnings;
    if (!ws.length) return null;
    const multi = this.model.totalCTAs > 1;
    const items = ws.map((w) => warningRow(w, multi, this.goto));
    return h("section.warn-box", { "aria-label": "Warnings" },
      h("h3.warn-title", `${ws.length}${this.model.warningsDropped ? "+" : ""} warning${ws.length === 1 && !this.model.warningsDropped ? "" : "s"}`,
        h("span.muted", " · race and memory checker, up to this step")),
      h("ol.warn-list", items));
  }
}

function threadText(cta: number[], t: number[], multi: boolean): string {
  const d = (v: number[]) => (v[1] || v[2] ? `(${v.join(",")})` : `${v[0]}`);
  return `t${d(t)}${multi || cta[0] || cta[1] || cta[2] ? ` CTA ${d(cta)}` : ""}`;
}

export function warningRow(w: WarningInfo, multi: boolean, goto: (line: number) => void): HTMLElement {
  const where = w.space === "global" ? `0x${w.offset.toString(16)}` : w.space === "reg" ? "registers" : `shared +${w.offset}`;
  const count = w.count > 1 || w.capped ? `×${w.count}${w.capped ? "+" : ""}` : "";
  const line = (n: number, cuda: number | undefined) =>
    n ? h("button.linklike", { type: "button", onclick: () => goto(n), title: lineTitle(n, cuda) }, lineName(n, cuda)) : null;
  const prev = w.prevPc >= 0;
  return h("li", { class: `warn warn-${w.kind}`, "data-line": String(w.line) },
    h("span.warn-kind", w.kind),
    h("span.warn-what", w.text),
    h("span.warn-lines",
      prev ? line(w.prevLine, w.prevCudaLine) : null,
      prev ? h("span.muted", ` ${threadText(w.prevCta, w.prevThread, multi)} → `) : null,
      line(w.line, w.cudaLine),
      h("span.muted", ` ${threadText(w.cta, w.thread, multi)}`)),
    h("span.warn-where", where),
    count ? h("span.warn-count", { title: "occurrences (lane accesses) up to this step" }, count) : null);
}

/** An event row's step button: where the event is, and whether a seek can go there. */
export interface EventSeek {
  at: boolean;
  reachable: boolean;
  seek: (step: number) => void;
}

export function eventRow(e: EventInfo, multi: boolean, goto: (line: number) => void, step?: number, sk?: EventSeek): HTMLElement {
  const who = `${multi ? `CTA ${e.cta} ` : ""}w${e.warp}`;
  const mask = e.mask ? mask32(e.mask) : null;
  const other = e.other ? mask32(e.other) : null;
  const k = step ?? e.step;
  return h("li", { class: `ev ev-${e.kind}${sk?.at ? " ev-at" : ""}`, "data-step": k },
    k !== undefined ? h("button.linklike.ev-step", {
      type: "button", disabled: sk ? !sk.reachable : true,
      title: sk?.reachable ? `Seek to step ${k.toLocaleString("en-US")}, right after the instruction that caused it` : "This step is not in the history any more",
      onclick: () => sk?.seek(k),
    }, `step ${k.toLocaleString("en-US")}`) : null,
    h("span.ev-kind", e.kind),
    h("span.ev-who", who),
    h("span.ev-what", eventText[e.kind] ?? ""),
    e.line ? h("button.linklike", { type: "button", onclick: () => goto(e.line), title: lineTitle(e.line, e.cudaLine) }, lineName(e.line, e.cudaLine)) : null,
    mask !== null && (mask !== 0 || (e.kind !== "barrier-release" && e.kind !== "cluster-release")) ? h("span.ev-mask", { title: maskText(mask) }, `${popc(mask)} lane${popc(mask) === 1 ? "" : "s"}`) : null,
    e.warps?.length ? h("span.ev-mask", { title: e.warps.map((w) => `w${w.warp}: ${maskText(mask32(w.lanes))}${w.line ? ` at ${lineName(w.line, w.cudaLine)}` : ""}`).join("\n") }, `${e.warps.length} warp${e.warps.length === 1 ? "" : "s"} released`) : null,
    other !== null ? h("span.ev-mask", { title: maskText(other) }, `/ ${popc(other)} other`) : null,
    e.addr !== undefined ? h("span.ev-mask", `mbarrier @0x${e.addr}${e.relaxed ? " · relaxed" : ""}`) : null,
    e.id !== undefined ? h("span.ev-mask", `${e.kind.startsWith("cluster-") ? "phase" : "barrier"} ${e.id}${e.count !== undefined ? ` · ${e.count}/${e.expected} threads` : ""}${e.relaxed ? " · relaxed (releases nothing)" : ""}`) : null);
}

// ---- the source-changed banner ----

export interface ChangeHooks {
  /** Recompile and replay to the current position. */
  replay(): void;
  /** Recompile and start from step 0. */
  fresh(): void;
  /** Put the editor back to what runs. */
  revert(): void;
}

/** Says that the editor or the launch differs from what runs, with the
 * actions that apply the edit; the run is never thrown away silently. */
export class ChangeBanner {
  private el = document.getElementById("pg-changed")!;
  private dirty = document.getElementById("pg-dirty")!;

  constructor(private readonly model: Model, private readonly hooks: ChangeHooks, private readonly live: () => boolean) {
    model.subscribe((c) => {
      if (c.has("source") || c.has("status") || c.has("diagnostics")) this.render();
    });
  }

  render(): void {
    const m = this.model;
    const pending = m.edit !== "clean";
    toggle(this.dirty, "on", pending);
    const what = m.otherKernel ? "another kernel" : m.editWhat === "launch" ? "launch changed" : m.editWhat === "both" ? "source and launch changed" : "source changed";
    setText(this.dirty, !pending ? "" : m.edit === "pending" ? (this.live() ? "edited — checking…" : "edited — Ctrl+Enter to apply") : what);
    toggle(document.body, "pg-stale", pending);
    const show = m.edit === "changed" && m.compiled && !!m.loaded;
    this.el.hidden = !show;
    if (!show) {
      setChildren(this.el);
      return;
    }
    const at = m.step;
    const step = at.toLocaleString("en-US");
    const entry = m.loaded?.entry ?? "";
    const other = m.otherKernel && !m.editErrors;
    const launchOnly = m.editWhat === "launch";
    const msg = m.editErrors ? "The edited source has errors; the run shows the program as loaded."
      : other ? `The editor holds another kernel than ${entry}: it cannot replay this run; it starts fresh with a launch of its own. The run still shows ${entry}, at step ${step}.`
      : launchOnly ? `The launch changed; the run still shows the launch as loaded, at step ${step}.`
      : m.editWhat === "both" ? `The source and the launch changed; the run still shows them as loaded, at step ${step}.`
      : `The source changed; the run still shows the program as loaded, at step ${step}.`;
    const apply = launchOnly ? "Relaunch" : "Recompile";
    const replay = other ? null : h("button.btn-small.primary", {
      type: "button", "data-change": "replay", disabled: m.editErrors, onclick: () => this.hooks.replay(),
      title: launchOnly ? "Launch with the edited launch and replay to the same step (Ctrl+Enter)" : "Compile the edited source and replay it to the same step (Ctrl+Enter)",
    }, at > 0 ? `${apply} & replay to step ${step}` : apply);
    const fresh = other || at > 0 ? h(other ? "button.btn-small.primary" : "button.btn-small", {
      type: "button", "data-change": "fresh", disabled: m.editErrors, onclick: () => this.hooks.fresh(),
      title: other ? "Compile the new kernel and start it at step 0 (Ctrl+Enter)" : launchOnly ? "Launch with the edited launch and start at step 0" : "Compile the edited source and start at step 0",
    }, "Start fresh") : null;
    setChildren(this.el,
      h("span.changed-msg", msg),
      h("span.changed-actions", replay, fresh,
        h("button.btn-small", { type: "button", "data-change": "revert", onclick: () => this.hooks.revert(), title: launchOnly ? "Undo the edits: back to the launch that runs" : "Undo the edits: back to the source and launch that run" }, "Revert")));
  }
}
