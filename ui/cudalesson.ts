// The gallery's CUDA twins: an example whose entry carries "cuda" (its
// kernel.cu, launch, compile options and lesson) can be opened in CUDA
// mode from the lesson strip ("CUDA version"), and back ("PTX version").
// The CUDA lesson shows while kernel.cu holds the twin as published; its
// hints name kernel.cu lines and open them with their PTX lit.

import type { App } from "./app";
import { specOf } from "./app";
import type { Spec } from "./proto";
import { keepDraft, loadEditor } from "./editing";
import { updateFileName, updateLaunchSummary } from "./layout";
import { parseLesson, type LessonData, type LessonTwin } from "./lesson";

/** The twin's launch spec without the compile's options (the load carries those). */
export function cudaTwinSpec(spec: unknown): Spec {
  const s = { ...(spec && typeof spec === "object" ? (spec as Record<string, unknown>) : {}) };
  delete s.cudaOptions;
  delete s.cuda;
  return specOf(s as unknown as Spec);
}

/** Opens the example's CUDA version: kernel.cu, its launch and options, loaded. */
export function openCudaTwin(app: App): void {
  const c = app.example?.cuda;
  if (!c) return;
  app.launch.set(cudaTwinSpec(c.spec));
  app.launchFor = "";
  app.model.breakpoints.clear();
  updateLaunchSummary(app);
  app.cuda.enter(c.source, c.options ?? {});
  app.session.whenLive(() => {
    if (app.cuda.on) loadEditor(app);
  });
  keepDraft(app);
}

/** Back to the example's PTX version. */
export function openPtxTwin(app: App): void {
  const ex = app.example;
  if (!ex) return;
  app.cuda.forkPTX();
  app.editor.setText(ex.source);
  app.launch.set(specOf(ex.spec));
  app.launchFor = "";
  updateFileName(app);
  updateLaunchSummary(app);
  app.session.whenLive(() => loadEditor(app));
  keepDraft(app);
}

/** The CUDA lesson, while kernel.cu holds the example's twin as published. */
export function cudaLesson(app: App): LessonData | null {
  const c = app.example?.cuda;
  return c && app.cuda?.on && app.cuda.editor?.text === c.source ? parseLesson(c.lesson) : null;
}

/** The lesson strip's switch to the other language's version. */
export function lessonTwin(app: App): LessonTwin | null {
  if (!app.example?.cuda || app.compact) return null;
  return app.cuda?.on
    ? { label: "PTX version", title: "The same lesson written in PTX", open: () => openPtxTwin(app) }
    : { label: "CUDA version", title: "The same lesson written in CUDA C++ (compiled to PTX on the server), its hints on kernel.cu lines", open: () => openCudaTwin(app) };
}
