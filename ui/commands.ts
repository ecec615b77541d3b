// Commands: stepping, running, going back and resetting, the warp
// selection, breakpoints, the toolbar's buttons and the keyboard (one
// handler that maps keys to actions, keys.ts). Functions of the App
// (app.ts).

import type { Change, Granularity } from "./model";
import { faultCta } from "./panels";
import { actionFor, helpContent } from "./keys";
import type { Action } from "./keys";
import { setChildren, download } from "./dom";
import type { Fault } from "./proto";
import { togglePresenter } from "./presenter";

import type { App, Tab } from "./app";
import { wakers } from "./app";
import { compile, isDirty, loadExample } from "./editing";
import { baseName, showTab, toast } from "./layout";
import { fork, openShare } from "./lifecycle";

// ---- commands ----

export function count(app: App): number {
  const n = Math.floor(Number(app.ui.count.value));
  return Number.isFinite(n) && n >= 1 ? Math.min(n, app.session.limits.maxStepCount ?? 10000) : 1;
}

export function step(app: App, g: Granularity): void {
  setGran(app, g);
  if (!app.model.canStep()) {
    explainBlocked(app);
    return;
  }
  app.countUnit = g;
  app.session.step(g, count(app));
}

export function setGran(app: App, g: Granularity): void {
  if (app.model.gran === g) return;
  // "× N" that counted steps of the old unit does not carry over to a
  // new one (a count typed for it just now does).
  if (app.countUnit !== null && app.countUnit !== g) app.ui.count.value = "1";
  app.model.gran = g;
  app.model.emit(new Set<Change>(["status"]));
}

export function explainBlocked(app: App): void {
  const m = app.model;
  if (!app.session.isOpen) toast(app, "Not connected to the server.", "error");
  else if (!m.compiled) toast(app, "Compile the kernel first (Ctrl+Enter); fix any errors.", "error");
  else if (m.running) toast(app, "Running — pause first (Esc).", "info");
  else if (m.status === "done") toast(app, "The launch has finished: step back, seek, or reset.", "info");
  else if (m.status === "fault") toast(app, "The launch faulted: step back to see how it got there, or reset.", "info");
  else if (m.status === "limit") toast(app, "The launch spent its maxWarpInstructions: raise it in the Launch tab, or reset.", "info");
}

export function back(app: App): void {
  const m = app.model;
  if (!m.loaded || m.step <= m.firstStep) return;
  if (m.running) app.session.pause();
  app.session.back(m.gran, count(app));
}

export function runOrPause(app: App): void {
  if (app.model.running) {
    app.session.pause();
    return;
  }
  if (!app.model.canStep()) {
    explainBlocked(app);
    return;
  }
  app.session.run();
}

export function reset(app: App): void {
  if (!app.model.compiled || isDirty(app)) {
    compile(app, false);
    return;
  }
  app.session.reset();
}

export function select(app: App, cta: number, warp: number): void {
  const m = app.model;
  m.sel = { cta, warp };
  app.session.select(cta, warp);
  m.emit(new Set<Change>(["selection", "regs", "warps", "memory"]));
}

export function selectRelative(app: App, d: number): void {
  const all: [number, number][] = [];
  for (const c of app.model.sortedCtas()) for (const w of c.warps) all.push([c.cta, w.warp]);
  if (!all.length) return;
  const i = all.findIndex(([c, w]) => c === app.model.sel.cta && w === app.model.sel.warp);
  const [c, w] = all[(Math.max(0, i) + d + all.length) % all.length];
  select(app, c, w);
  app.warps.revealSelected();
}

export function selectFault(app: App, f: Fault): void {
  const m = app.model;
  const c = faultCta(m, f);
  if (f.warp === undefined || !c) return;
  if (m.sel.cta !== c.cta || m.sel.warp !== f.warp) select(app, c.cta, f.warp);
}

export function toggleBreakpoint(app: App, line: number, on: boolean): void {
  const current = app.model.compiled && !isDirty(app);
  if (current && on && !app.model.codeLines.has(line)) {
    // Only instructions can stop the machine.
    app.editor.setBreakpoints(app.editor.breakpointLines().filter((l) => l !== line));
    toast(app, `Line ${line} holds no instruction: put the breakpoint on an instruction.`, "info");
    return;
  }
  if (current) app.session.breakpoint(line, on);
  app.saveDraft();
}

export function resendBreakpoints(app: App): void {
  const lines = app.editor.breakpointLines();
  const keep = lines.filter((l) => app.model.codeLines.has(l));
  if (keep.length !== lines.length) app.editor.setBreakpoints(keep);
  for (const line of keep) app.session.breakpoint(line, true);
}

// ---- controls ----

export function bindControls(app: App): void {
  document.addEventListener("click", (e) => {
    const b = (e.target as HTMLElement).closest<HTMLElement>("[data-action]");
    if (!b || (b as HTMLButtonElement).disabled) return;
    const a = b.dataset.action;
    const map: Record<string, Action> = {
      compile: "compile", "step-warp": "stepWarp", "step-round": "stepRound", "step-barrier": "stepBarrier", "step-line": "stepLine",
      back: "back", run: "run", reset: "reset", help: "help", presenter: "presenter",
    };
    if (a === "theme") {
      app.toggleTheme();
      return;
    }
    if (a === "download-ptx") {
      download(`${baseName(app)}.ptx`, app.editor.text, "text/plain");
      return;
    }
    if (a === "open-launch") {
      showTab(app, "launch");
      return;
    }
    if (a === "share") {
      openShare(app);
      return;
    }
    if (a === "fork") {
      fork(app);
      return;
    }
    if (a && map[a]) perform(app, map[a]);
  });
  app.ui.exampleSelect?.addEventListener("change", () => {
    const name = app.ui.exampleSelect!.value;
    if (name) void loadExample(app, name, true);
  });
  app.ui.help.addEventListener("click", (e) => {
    if (e.target === app.ui.help) showHelp(app, false);
  });
}

export function perform(app: App, a: Action): void {
  const m = app.model;
  if (app.session.asleep && wakers.has(a)) {
    // No session yet (or any more): connect, land where the page is,
    // then do it (compiling is what landing does).
    app.session.whenLive(a === "compile" ? () => {} : () => perform(app, a));
    return;
  }
  switch (a) {
    case "compile": compile(app); break;
    case "stepWarp": step(app, "warp"); break;
    case "stepRound": step(app, "round"); break;
    case "stepBarrier": step(app, "barrier"); break;
    case "back": back(app); break;
    case "backRound": setGran(app, "round"); back(app); break;
    case "backBarrier": setGran(app, "barrier"); back(app); break;
    case "stepLine": if (app.model.loaded?.cuda) step(app, "source-line"); else toast(app, "Source-line steps need a kernel written in CUDA (the CUDA button above the editor).", "info"); break;
    case "backLine": if (app.model.loaded?.cuda) { setGran(app, "source-line"); back(app); } break;
    case "run": runOrPause(app); break;
    case "pause": app.session.pause(); break;
    case "reset": reset(app); break;
    case "earlier": app.session.seek(m.step - 1); break;
    case "later": app.session.seek(m.step + 1); break;
    case "first": app.session.seek(m.firstStep); break;
    case "last": app.session.seek(m.steps - 1); break;
    case "nextWarp": selectRelative(app, 1); break;
    case "prevWarp": selectRelative(app, -1); break;
    case "gotoWarp": {
      const w = m.selectedWarp();
      if (w && w.line > 0) app.editor.goto(w.line, 1, false);
      break;
    }
    case "focusEditor": app.editor.view.focus(); break;
    case "help": showHelp(app, app.ui.help.hidden === true); break;
    case "presenter": togglePresenter(); app.editor.view.requestMeasure(); break;
    default: {
      // tabN: the inspector tabs in the order the page shows them.
      const b = document.querySelectorAll<HTMLElement>("[data-tab]")[Number(a.slice(3)) - 1];
      if (b) showTab(app, b.dataset.tab as Tab);
    }
  }
}

export function onKey(app: App, e: KeyboardEvent): void {
  if (e.defaultPrevented || app.shareDialog?.open) return;
  if (!app.ui.help.hidden && (e.key === "Escape" || e.key === "?")) {
    e.preventDefault();
    showHelp(app, false);
    return;
  }
  const a = actionFor(e);
  if (!a) {
    // A closed dropdown never changes by a key (type-ahead would switch
    // lessons): Space or Alt+↓ opens it, and the choice is made there.
    if (e.target instanceof HTMLSelectElement && !e.altKey && !e.ctrlKey && !e.metaKey &&
      ((e.key.length === 1 && e.key !== " ") || /^(Arrow(Up|Down|Left|Right)|Home|End|Page(Up|Down))$/.test(e.key))) e.preventDefault();
    return;
  }
  if (a === "pause" && !app.model.running) {
    if (e.key === "Escape") return; // Let Escape close menus and panels.
  }
  e.preventDefault();
  perform(app, a);
}

export function showHelp(app: App, on: boolean): void {
  const el = app.ui.help;
  if (on) {
    setChildren(el, helpContent(() => showHelp(app, false)));
    el.hidden = false;
    el.querySelector<HTMLElement>("button")?.focus();
  } else {
    el.hidden = true;
  }
}
