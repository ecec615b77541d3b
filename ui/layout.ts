// Layout and rendering: the inspector's tabs, the splitter, the hint,
// the editor's marks, lane shading and memory badges, the file name, the
// lesson strip, the launch summary and the toast. Functions of the App
// (app.ts).

import type { Change } from "./model";
import type { WarpMarks } from "./editor";
import { laneLegend, nextWarpTitle } from "./warps";
import { badgesOf } from "./membadges";
import type { MemBadges } from "./membadges";
import { setTabNames } from "./keys";
import { h, byId, setChildren, setText, toggle, stored } from "./dom";
import { mask32 } from "./format";
import { parseLesson } from "./lesson";
import { cudaLesson } from "./cudalesson";
import { presenterOn } from "./presenter";

import type { App, Tab } from "./app";
import { tabs } from "./app";
import { isDirty } from "./editing";

export function bindTabs(app: App): void {
  setTabNames([...document.querySelectorAll<HTMLElement>("[data-tab]")].map((b) => b.textContent?.trim() ?? ""));
  const saved = stored("ptxplay.tab") as Tab | null;
  if (saved && tabs.includes(saved)) app.tab = saved;
  for (const b of document.querySelectorAll<HTMLElement>("[data-tab]")) {
    b.addEventListener("click", () => showTab(app, b.dataset.tab as Tab));
    b.addEventListener("keydown", (e) => {
      if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
      const tabs = [...document.querySelectorAll<HTMLElement>("[data-tab]")];
      const i = tabs.indexOf(b);
      const next = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      showTab(app, next.dataset.tab as Tab);
      next.focus();
      e.preventDefault();
    });
  }
  showTab(app, app.tab);
}

export function showTab(app: App, t: Tab): void {
  app.tab = t;
  stored("ptxplay.tab", t);
  for (const b of document.querySelectorAll<HTMLElement>("[data-tab]")) {
    const on = b.dataset.tab === t;
    b.setAttribute("aria-selected", on ? "true" : "false");
    b.tabIndex = on ? 0 : -1;
    toggle(b, "on", on);
  }
  for (const id of tabs) {
    const p = document.getElementById(`pg-tab-${id}`);
    if (p) p.hidden = id !== t;
  }
  const view = { regs: app.regs, memory: app.mem, events: app.events, fragments: app.fragments, divergence: app.divergence, swizzle: app.swizzle, tma: app.tma, console: app.console, launch: null }[t];
  view?.shown();
  app.warps?.tabShown();
}

/** The splitters: between the editor and the machine state (columns)
 * and, where they stack, between the editor and the inspectors (rows).
 * Each is dragged or moved with the arrow keys, and remembered for
 * normal and for presenter mode apart (each has its own layout). */
export function bindSplitter(app: App): void {
  const work = document.getElementById("pg-work");
  if (!work) return;
  const bind = (id: string, axis: "x" | "y", name: string, prop: string, min: number, max: number, def: number) => {
    const split = document.getElementById(id);
    if (!split) return;
    const key = () => `ptxplay.${name}${presenterOn() ? ".presenter" : ""}`;
    const cssVar = () => `--${prop}${presenterOn() ? "-p" : ""}`;
    const set = (pct: number, save: boolean) => {
      pct = Math.max(min, Math.min(max, pct));
      work.style.setProperty(cssVar(), `${pct}%`);
      split.setAttribute("aria-valuenow", String(Math.round(pct)));
      if (save) stored(key(), String(pct));
      return pct;
    };
    // Both modes' remembered positions apply at once (each has its own variable).
    for (const p of [false, true]) {
      const v = Number(stored(`ptxplay.${name}${p ? ".presenter" : ""}`));
      if (v) work.style.setProperty(`--${prop}${p ? "-p" : ""}`, `${Math.max(min, Math.min(max, v))}%`);
    }
    const current = () => {
      const v = parseFloat(work.style.getPropertyValue(cssVar()));
      if (v) return v;
      // Not set yet: what the layout shows.
      const r = work.getBoundingClientRect();
      const s = split.getBoundingClientRect();
      return axis === "x" ? ((s.left - r.left) / r.width) * 100 : ((s.top - r.top) / r.height) * 100 || def;
    };
    split.setAttribute("aria-valuenow", String(Math.round(current())));
    const cls = axis === "x" ? "dragging" : "dragging-rows";
    split.addEventListener("pointerdown", (e) => {
      split.setPointerCapture(e.pointerId);
      document.body.classList.add(cls);
      const move = (ev: PointerEvent) => {
        const r = work.getBoundingClientRect();
        set(axis === "x" ? ((ev.clientX - r.left) / r.width) * 100 : ((ev.clientY - r.top) / r.height) * 100, true);
        app.editor.view.requestMeasure();
      };
      const up = () => {
        split.removeEventListener("pointermove", move);
        split.removeEventListener("pointerup", up);
        document.body.classList.remove(cls);
      };
      split.addEventListener("pointermove", move);
      split.addEventListener("pointerup", up);
    });
    split.addEventListener("keydown", (e) => {
      const less = axis === "x" ? "ArrowLeft" : "ArrowUp";
      const more = axis === "x" ? "ArrowRight" : "ArrowDown";
      if (e.key !== less && e.key !== more) return;
      set(current() + (e.key === more ? 2 : -2), true);
      app.editor.view.requestMeasure();
      e.preventDefault();
    });
  };
  bind("pg-split", "x", "split", "left", 25, 75, 46);
  bind("pg-hsplit", "y", "hsplit", "top", 20, 85, 50);
}

// ---- rendering what the views do not own ----
// (the views subscribe to the model themselves; here: the hint they show,
// the connection badge and the editor's diagnostics, breakpoints and marks)

export function updateHint(app: App): void {
  const m = app.model;
  const errors = m.diagnostics.some((d) => d.severity === "error");
  m.hint = app.session.asleep ? app.sleepNote || "Step, Run or Compile connects to the server."
    : !app.session.isOpen ? "Connecting to the server…"
    : errors ? "Fix the errors marked in the editor to run the kernel."
    : m.loadError ? "The launch spec has a problem (see below the editor): fix it in the Launch tab."
    : "Compile the kernel (Ctrl+Enter) to see its warps.";
}

export function render(app: App, c: Set<Change>): void {
  updateHint(app);
  const conn = byId("pg-conn");
  if (c.has("conn")) {
    conn.dataset.state = app.model.conn;
    setText(conn, app.model.conn === "open" ? "connected" : app.model.connDetail);
    conn.title = app.model.conn === "open" ? "Connected to the session" : app.model.connDetail;
  }
  if (c.has("loaded")) app.editor.setCodeLines(app.model.codeLines);
  if (c.has("diagnostics")) app.editor.setDiagnostics(app.model.diagnostics);
  if (c.has("breakpoints")) app.editor.setBreakpoints([...app.model.breakpoints]);
  if (c.has("warps") || c.has("selection") || c.has("fault") || c.has("loaded") || c.has("source")) updateMarks(app);
  if (c.has("divergence") || c.has("loaded") || c.has("source")) updateShading(app);
  if (c.has("lineMemory") || c.has("loaded") || c.has("source")) updateBadges(app);
}

/** Shows the per-line memory findings (bank conflicts, coalescing) as gutter badges. */
export function updateBadges(app: App): void {
  const m = app.model;
  const doc = app.editor.view.state.doc;
  const b: MemBadges = app.showBadges && m.loaded && !isDirty(app)
    ? badgesOf(m.lineMemory, (l) => (l >= 1 && l <= doc.lines ? doc.line(l).text : ""))
    : new Map();
  if (b.size === 0 && app.badges.size === 0) return;
  app.badges = b;
  app.editor.setMemBadges(b);
}

/** Shades the editor's lines by the lanes that executed them (while the divergence data comes). */
export function updateShading(app: App): void {
  const d = app.model.divergence;
  const lines = new Map<number, { lanes: number; warps: number }>();
  if (d && !isDirty(app)) for (const l of d.lines) lines.set(l.line, { lanes: l.lanes, warps: l.warps });
  app.editor.setLaneShading(lines);
}

export function updateMarks(app: App): void {
  const m = app.model;
  const marks: WarpMarks = { lines: new Map(), selectedLine: null, faultLine: m.fault?.line ?? null };
  if (!isDirty(app)) {
    const multi = m.ctas.size > 1;
    for (const c of m.sortedCtas()) {
      for (const w of c.warps) {
        if (w.line <= 0 || !(mask32(w.valid) & ~mask32(w.exited))) continue;
        let e = marks.lines.get(w.line);
        if (!e) marks.lines.set(w.line, (e = { warps: [], selected: false, next: false }));
        e.warps.push(multi ? `CTA ${c.linear} w${w.warp}` : `w${w.warp}`);
        if (m.sel.cta === c.cta && m.sel.warp === w.warp) {
          e.selected = true;
          marks.selectedLine = w.line;
        }
        if (m.next && m.next.cta === c.cta && m.next.warp === w.warp) e.next = true;
      }
    }
  } else marks.faultLine = null;
  app.editor.setWarpMarks(marks);
  // Follow the selected warp in the editor as it moves.
  const key = `${m.sel.cta}:${m.sel.warp}:${marks.selectedLine}`;
  if (marks.selectedLine && key !== app.lastRevealed && m.step > 0) app.editor.reveal(marks.selectedLine);
  app.lastRevealed = key;
}

export function renderLegend(): void {
  const el = document.getElementById("pg-legend");
  if (!el || el.childElementCount) return;
  setChildren(el, laneLegend.map(([st, label, title]) => h("span.legend-item", { title }, h("span", { class: `ln ln-${st}` }), label)),
    h("span.legend-item.legend-next", { title: nextWarpTitle }, h("span.next-mark", { "aria-hidden": "true" }, "◂"), "issues next"));
}

/** The name of what the editor holds: an imported file, the example as
 * published (or edited), or the kernel's own entry. */
export function baseName(app: App): string {
  if (app.fileName) return app.fileName.replace(/\.\w+$/, "");
  if (app.example && followsExample(app)) return app.example.name;
  const entry = /\.entry\s+([A-Za-z_$][\w$]*)/.exec(app.editor.text)?.[1];
  return entry ?? app.model.loaded?.entry ?? "kernel";
}

/** Whether the editor still holds the example (as published, or edited but with the same kernel). */
export function followsExample(app: App): boolean {
  const ex = app.example;
  if (!ex) return false;
  if (app.editor.text === ex.source) return true;
  const entry = /\.entry\s+([A-Za-z_$][\w$]*)/.exec(ex.source)?.[1];
  return !!entry && new RegExp(`\\.entry\\s+${entry.replace(/\$/g, "\\$")}\\b`).test(app.editor.text);
}

export function updateFileName(app: App): void {
  const follows = followsExample(app);
  updateLesson(app, follows);
  const edited = follows && app.example && app.editor.text !== app.example.source;
  setText(app.ui.file, `${baseName(app)}.ptx`);
  app.ui.file.title = app.fileName ? "Imported file" : follows ? `The gallery example "${app.example!.title}"${edited ? ", edited" : ""}` : "Your kernel";
  toggle(app.ui.file, "edited", !!edited);
  if (app.cuda?.on) {
    // The PTX shown is clang's of kernel.cu, not the example's file.
    setText(app.ui.file, "kernel.ptx");
    app.ui.file.title = "The PTX clang compiled kernel.cu to";
    toggle(app.ui.file, "edited", false);
  }
  const sel = app.ui.exampleSelect;
  if (!sel) return;
  let mine = sel.querySelector<HTMLOptionElement>('option[value=""]');
  if (!follows) {
    if (!mine) {
      mine = h("option", { value: "" }, "Your kernel");
      sel.prepend(mine);
    }
    sel.value = "";
  } else {
    mine?.remove();
    sel.value = app.example!.name;
  }
}

/** The lesson strip shows while the editor holds a lesson's kernel as published. */
export function updateLesson(app: App, follows: boolean): void {
  if (!app.lesson) return;
  const sh = app.shared;
  if (sh?.lesson && app.editor.text === sh.source) {
    // The strip is the lesson's: its title is the lesson's (the
    // example's), the link's title is the page's and its notice's.
    app.lesson.set(parseLesson(sh.lesson), app.example?.title ?? sh.title ?? "", sh.title && sh.title !== app.example?.title ? sh.title : "");
    return;
  }
  const ex = app.example;
  if (app.cuda?.on) {
    app.lesson.set(cudaLesson(app), ex?.title ?? "");
    return;
  }
  const lesson = ex && follows && app.editor.text === ex.source ? parseLesson(ex.lesson) : null;
  app.lesson.set(lesson, ex?.title ?? "");
}

export function updateLaunchSummary(app: App): void {
  setText(app.ui.launchSummary, app.launch.summary());
}

export function toast(app: App, msg: string, kind: "error" | "info" = "info"): void {
  const el = app.ui.toast;
  el.dataset.kind = kind;
  setText(el, msg);
  el.hidden = false;
  window.clearTimeout(app.toastTimer);
  app.toastTimer = window.setTimeout(() => { el.hidden = true; }, kind === "error" ? 6000 : 4500);
}
