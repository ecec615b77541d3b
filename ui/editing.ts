// Editing: what an edit of the kernel or its launch does to the run (a
// live recompile, a replay, nothing thrown away silently), compiling,
// reverting, the draft kept in the browser, and loading a gallery example.
// Functions of the App (app.ts).

import type { Change } from "./model";
import { wireSpec, canonical } from "./launch";
import type { CudaSource, Spec } from "./proto";
import { writeDraft } from "./draft";

import type { App, ExampleData } from "./app";
import { specOf } from "./app";
import { toast, updateFileName, updateLaunchSummary, updateMarks } from "./layout";
import { updateForkButton } from "./lifecycle";

/** What the editor holds, as the session's sentSource records it: the
 * PTX, or in CUDA mode the CUDA with its options. */
export function editorSource(app: App): string {
  return app.cuda?.on ? `cuda:${JSON.stringify(app.cuda.source())}` : app.editor.text;
}

/** Loads what the editor and the launch panel hold, saying which kernel the launch was made for. */
export function loadEditor(app: App, at = 0, why: "edit" | "reconnect" | "restore" | "share" = "edit", infer = false): boolean {
  const cuda = app.cuda?.on ? app.cuda.source() : undefined;
  const id = app.session.load(editorSource(app), wireSpec(app.launch.spec), at, why, { kernel: app.launchFor || undefined, infer }, cuda);
  if (id && cuda) app.cuda.loading(id);
  return id > 0;
}

/** The Launch tab's "Infer launch": the launch inferred from the kernel the editor holds (what `ptxplay init` writes). */
export function inferLaunch(app: App): void {
  window.clearTimeout(app.liveTimer);
  app.session.whenLive(() => {
    if (loadEditor(app, 0, "edit", true)) updateDirty(app);
  });
}

export function fixLaunch(app: App, spec: Spec): void {
  app.launch.set(canonical(spec));
  updateLaunchSummary(app);
  compile(app);
}

// ---- edits ----

export function isDirty(app: App): boolean {
  const s = app.session;
  return s.sentSource !== null && (s.sentSource !== editorSource(app) || s.sentSpec !== JSON.stringify(wireSpec(app.launch.spec)));
}

/** Whether a load would throw away a run the user has made. */
export function hasRun(app: App): boolean {
  return app.model.compiled && !!app.model.loaded && app.model.step > 0;
}

export function onEdit(app: App): void {
  updateDirty(app);
  updateFileName(app);
  app.saveDraft();
  scheduleLive(app);
}

export function onSpecEdit(app: App): void {
  updateDirty(app);
  updateLaunchSummary(app);
  app.saveDraft();
  scheduleLive(app);
}

export function updateDirty(app: App): void {
  const m = app.model;
  const dirty = isDirty(app);
  const edit = !dirty ? "clean" : m.edit === "changed" ? "changed" : "pending";
  const s = app.session;
  const what = !dirty ? "" : s.sentSource !== editorSource(app)
    ? (s.sentSpec !== JSON.stringify(wireSpec(app.launch.spec)) ? "both" : "source") : "launch";
  if (!dirty || what === "launch") m.otherKernel = false;
  if (what !== m.editWhat) {
    m.editWhat = what;
    m.emit(new Set<Change>(["source"]));
  }
  if (edit !== m.edit) {
    m.edit = edit;
    if (!dirty) m.editErrors = false;
    m.emit(new Set<Change>(["source"]));
    window.setTimeout(() => updateMarks(app));
  }
}

export function scheduleLive(app: App): void {
  window.clearTimeout(app.liveTimer);
  if (!app.live) return;
  app.liveTimer = window.setTimeout(() => liveEdit(app), 650);
}

/** Live mode: keep diagnostics current; load only when no run is lost. */
export function liveEdit(app: App): void {
  if (!isDirty(app) || !app.session.isOpen) return;
  if (!hasRun(app)) {
    loadEditor(app);
    return;
  }
  if (app.session.sentSource !== editorSource(app) && !app.cuda?.on) {
    app.session.check(app.editor.text); // onChecked decides
    return;
  }
  app.model.edit = "changed";
  app.model.emit(new Set<Change>(["source"]));
}

/** The diagnostics of the edited source are in: a comment-only edit keeps the run. */
export function onChecked(app: App, sameProgram: boolean, otherKernel: boolean): void {
  if (!isDirty(app)) return;
  app.model.otherKernel = otherKernel;
  const errors = app.model.diagnostics.some((d) => d.severity === "error");
  const specSame = app.session.sentSpec === JSON.stringify(wireSpec(app.launch.spec));
  if (sameProgram && specSame && !errors) {
    loadEditor(app); // the server remaps lines
    return;
  }
  app.model.edit = "changed";
  app.model.editErrors = errors;
  app.model.emit(new Set<Change>(["source"]));
  updateMarks(app);
}

/** Compiles what the editor holds: replaying to the current position when
 * there is a run to keep (or when asked), else from step 0. */
export function compile(app: App, replay = hasRun(app)): void {
  window.clearTimeout(app.liveTimer);
  // Another kernel cannot replay the run of the one loaded: it starts fresh.
  const at = replay && hasRun(app) && !app.model.otherKernel ? app.model.step : 0;
  if (loadEditor(app, at, "edit")) updateDirty(app);
}

/** Puts the editor and the launch back to what runs. */
export function revert(app: App): void {
  const s = app.session;
  if (s.sentSource === null) return;
  if (s.sentSource.startsWith("cuda:")) {
    const c = JSON.parse(s.sentSource.slice(5)) as CudaSource;
    app.cuda.enter(c.source, c);
    updateDirty(app);
    return;
  }
  const bps = app.editor.breakpointLines();
  app.editor.setText(s.sentSource);
  app.editor.setBreakpoints(bps.filter((l) => app.model.codeLines.has(l)));
  try {
    app.launch.set(canonical(JSON.parse(s.sentSpec) as Spec));
  } catch {
    // keep the panel as it is
  }
  app.model.edit = "clean";
  app.model.editErrors = false;
  app.session.check(s.sentSource); // the diagnostics of what runs
  updateDirty(app);
  updateLaunchSummary(app);
  app.model.emit(new Set<Change>(["source"]));
  updateMarks(app);
}

// ---- the draft ----

export function keepDraft(app: App): void {
  if (!app.editor || app.compact) return;
  writeDraft({
    source: app.editor.text, spec: wireSpec(app.launch.spec), example: app.example?.name,
    fileName: app.fileName, breakpoints: app.editor.breakpointLines(), step: app.model.compiled ? app.model.step : 0,
    share: app.shared?.id, kernel: app.launchFor || undefined, cuda: app.cuda?.on ? app.cuda.source() : undefined,
    cudaBreakpoints: app.cuda?.on ? app.cuda.editor?.breakpointLines() : undefined,
  });
}

export async function loadExample(app: App, name: string, push: boolean): Promise<void> {
  if (isEdited(app) && !window.confirm("Replace your edits with the example? (Your draft is replaced too.)")) {
    updateFileName(app);
    return;
  }
  let ex: ExampleData;
  try {
    const r = await fetch(`/api/examples/${encodeURIComponent(name)}`, { headers: { Accept: "application/json" } });
    if (!r.ok) throw new Error(r.status === 404 ? `There is no example named "${name}".` : `HTTP ${r.status}`);
    ex = (await r.json()) as ExampleData;
  } catch (e) {
    toast(app, `Could not load the example: ${(e as Error).message}`, "error");
    return;
  }
  app.example = ex;
  app.fileName = null;
  // "× N" belonged to the previous lesson.
  app.ui.count.value = "1";
  app.countUnit = null;
  // A position to restore belonged to what the editor held.
  app.restore = null;
  app.pendingView = null;
  if (app.shared) {
    // Leaving a share link for a gallery example.
    app.shared = null;
    updateForkButton(app);
    if (!push && location.pathname !== "/") history.replaceState(null, "", `/?example=${encodeURIComponent(ex.name)}`);
  }
  app.cuda?.forkPTX(); // an example opens in PTX (its lesson strip offers a CUDA version)
  app.editor.setText(ex.source);
  app.launch.set(specOf(ex.spec));
  app.model.breakpoints.clear();
  if (push) history.pushState(null, "", `?example=${encodeURIComponent(ex.name)}`);
  document.title = `${ex.title} · PTX Playground`;
  updateFileName(app);
  updateLaunchSummary(app);
  app.launchFor = "";
  loadEditor(app);
  keepDraft(app);
}

/** Whether the editor holds work that is not a gallery example as published. */
export function isEdited(app: App): boolean {
  return app.example ? app.editor.text !== app.example.source : app.editor.text.trim() !== "";
}
