// The app's session lifecycle: what happens when the session opens, parks,
// loads a kernel, sends a state or finishes; the view state a share link
// restores; share links and forks; rerunning under the other scheduling
// model. Functions of the App (app.ts), which holds the state they share.

import type { Change } from "./model";
import { wireSpec, canonical } from "./launch";
import { grouped } from "./dom";
import type { Loaded, Spec, State } from "./proto";
import type { ShareData } from "./share";
import { captureView, restoreView } from "./viewstate";
import type { ViewHost } from "./viewstate";

import type { App, ExampleData, Tab } from "./app";
import { tabs, sentence } from "./app";
import { resendBreakpoints, select, selectFault, setGran } from "./commands";
import { keepDraft, loadEditor, updateDirty } from "./editing";
import { followsExample, showTab, toast, updateFileName, updateLaunchSummary } from "./layout";

// ---- the session ----

/** A fresh session: load what the editor holds, at the position the user was at. */
export function onOpen(app: App, again: boolean): void {
  const at = app.restore?.step ?? (again && app.model.compiled ? app.model.step : 0);
  const why = app.restore ? "restore" : "reconnect";
  app.restore = null;
  if (again && at === 0) toast(app, "Reconnected to a new session.", "info");
  const share = why === "restore" && !!app.shared && app.restoreIsLink;
  if (!loadEditor(app, at, share ? "share" : why)) return;
  updateDirty(app);
}

/** The server ended the session (reclaimed for another client, or expired): keep everything, say so, connect again on the next action. */
export function onParked(app: App, code: string, message: string): void {
  app.saveDraft.flush();
  const kept = code === "expired" ? " Your kernel and position are kept in this page: reconnect to go on." : "";
  app.sleepNote = `${sentence(message || (code === "reclaimed" ? "The server gave this session's place to a new client" : "The session expired"))}${kept}`;
  app.sleepAction = "Reconnect";
  app.model.emit(new Set<Change>(["conn", "status"]));
}

export function onLoaded(app: App, m: Loaded): void {
  app.launchFor = m.kernelSig ?? "";
  app.editor.setCodeLines(app.model.codeLines);
  resendBreakpoints(app);
  app.cuda.onLoaded(m);
  app.launch.setKernels((m.kernels ?? []).map((k) => k.name));
  app.launch.setSchedulingDefault(m.defaultScheduling, m.targetSM);
  const fit = m.launch;
  if (fit?.applied && fit.spec) {
    // The spec did not fit the kernel: the session runs the launch
    // inferred from it, and the panel shows what runs.
    app.launch.set(canonical(fit.spec as unknown as Spec));
    app.session.sentSpec = JSON.stringify(wireSpec(app.launch.spec));
    updateDirty(app);
    updateLaunchSummary(app);
    app.saveDraft();
    toast(app, fit.inferred
      ? `Launch inferred from kernel ${m.entry}: ${app.launch.summary()} (the Launch tab edits it).`
      : `The launch now follows kernel ${m.entry} (see the note below the editor).`, "info");
  }
  updateFileName(app);
  applyPendingView(app);
}

/** Restores the program fields of a share link's view, once its
 * program is loaded and at the link's step (after the replay). */
export function applyPendingView(app: App): void {
  const v = app.pendingView;
  const m = app.model;
  if (!v || !m.loaded || m.ctas.size === 0 || app.session.replaying) return;
  app.pendingView = null;
  restoreView(viewHost(app), v, "program");
}

/** What the view fields of a share link capture from and restore onto (viewstate.ts). */
export function viewHost(app: App): ViewHost {
  return {
    model: app.model,
    fileName: () => app.fileName,
    setFileName: (n) => { app.fileName = n; },
    tab: () => app.tab,
    showTab: (t) => {
      if ((tabs as readonly string[]).includes(t)) showTab(app, t as Tab);
    },
    breakpoints: () => app.editor.breakpointLines(),
    setBreakpoints: (lines) => app.editor.setBreakpoints(lines),
    cudaBreakpoints: () => (app.cuda?.on ? app.cuda.editor?.breakpointLines() ?? [] : []),
    setCudaBreakpoints: (lines) => {
      if (app.cuda?.on) app.cuda.editor?.setBreakpoints(lines);
    },
    setGran: (g) => setGran(app, g),
    select: (cta, warp) => {
      if (app.model.ctas.get(cta)?.warps.some((w) => w.warp === warp)) select(app, cta, warp);
    },
    memory: app.mem,
    regs: app.regs,
    fragments: app.fragments,
    swizzle: app.swizzle,
  };
}

/** The gallery example a link was made from, as the link holds it (its
 * kernel may be an older version): the page names the file after it and
 * the example menu shows it while the editor holds its kernel. None when
 * this gallery has no such example. */
export function exampleOfLink(app: App, sh: ShareData): ExampleData | null {
  if (!sh.example) return null;
  const sel = app.ui.exampleSelect;
  const opt = sel ? [...sel.options].find((o) => o.value === sh.example) : undefined;
  if (sel && !opt) return null;
  return { name: sh.example, title: opt?.textContent ?? sh.title ?? sh.example, description: sh.description ?? "", source: sh.source, spec: sh.spec, lesson: sh.lesson };
}

// ---- sharing ----

/** The snapshot a share link takes of the playground. */
export function snapshot(app: App): ShareData {
  const m = app.model;
  return {
    source: app.editor.text,
    spec: wireSpec(app.launch.spec),
    step: m.compiled && m.step > 0 ? m.step : undefined,
    example: app.example && followsExample(app) ? app.example.name : app.shared?.example,
    view: captureView(viewHost(app), app.pendingView),
    cuda: app.cuda?.on ? app.cuda.source() : undefined,
  };
}

export function openShare(app: App): void {
  const title = app.shared?.title ?? (app.example && followsExample(app) ? app.example.title : "");
  app.shareDialog?.show(true, title);
}

/** Forking a shared kernel makes it the user's own: the URL no longer names the link. */
export function fork(app: App): void {
  if (!app.shared) return;
  const title = app.shared.title;
  app.shared = null;
  history.replaceState(null, "", "/");
  document.title = "PTX Playground";
  updateForkButton(app);
  updateFileName(app);
  keepDraft(app);
  toast(app, `Forked${title ? ` "${title}"` : ""}: this copy is yours to edit; Share makes a new link.`, "info");
}

export function updateForkButton(app: App): void {
  const b = document.querySelector<HTMLElement>('[data-action="fork"]');
  if (b) b.hidden = !app.shared || app.compact;
}

/** Applies the launch inferred from the kernel (the problems list's fix). */
/** The budget of a comparison of the scheduling models: the launch's own
 * limit, else a million warp-instructions per model (enough for the
 * examples; a livelock shows in a fraction of a second). */
export function compareBudget(app: App): number {
  return app.launch.spec.maxWarpInstructions ? 0 : 1_000_000;
}

/** Re-launches the same source and spec under the other scheduling model and compares the two. */
export function rerunOtherModel(app: App): void {
  const cur = app.model.scheduling;
  if (!cur) return;
  const other = cur === "independent" ? "simt-stack" : "independent";
  app.launch.set({ ...app.launch.spec, scheduling: other });
  updateLaunchSummary(app);
  // A notice about the run under the other model no longer applies.
  window.clearTimeout(app.toastTimer);
  app.ui.toast.hidden = true;
  window.clearTimeout(app.liveTimer);
  if (!loadEditor(app)) return;
  updateDirty(app);
  app.saveDraft();
  app.session.compareScheduling(compareBudget(app));
}

export function onState(app: App, m: State, ch: Set<Change>): void {
  const model = app.model;
  const newFault = ch.has("fault") && model.fault;
  if (newFault) {
    selectFault(app, model.fault!);
    app.warps.revealSelected();
    if (model.fault!.lane !== undefined) app.regs.revealLane(model.fault!.lane);
    if (model.fault!.line) app.editor.reveal(model.fault!.line);
  }
  if (!m.running) app.saveDraft();
  if (app.pendingView && !m.running) applyPendingView(app);
}

export function onDone(app: App, result: Record<string, unknown>): void {
  const status = String(result.status ?? app.model.status);
  if (status === "ok" || status === "done") {
    const stats = (result.stats ?? {}) as Record<string, unknown>;
    const wi = Number(stats.warpInstructions ?? app.model.stats.warpInstructions);
    toast(app, `Finished: every thread exited after ${grouped(wi)} warp-instructions.`, "info");
  } else if (status === "limit") {
    toast(app, "Stopped: the launch spent its maxWarpInstructions (see the notice above the editor).", "error");
  }
}
