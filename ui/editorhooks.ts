// The PTX editor's hooks: breakpoints, edits, Ctrl+Enter, and what a
// hover adds (a register's values, a line's memory findings, "Show
// fragments" on a tensor-core instruction). Functions of the App (app.ts).

import type { EditorHooks } from "./editor";
import { h } from "./dom";
import type { App } from "./app";
import { toggleBreakpoint } from "./commands";
import { compile, onEdit } from "./editing";
import { showTab } from "./layout";

export function ptxEditorHooks(app: App): EditorHooks {
  return {
    toggleBreakpoint: (line, on) => toggleBreakpoint(app, line, on),
    changed: () => onEdit(app),
    compile: () => compile(app),
    registerHover: (name) => app.regs.hover(name),
    instructionHover: (line) => {
      const op = app.model.edit === "clean" ? app.model.loaded?.tensorOps?.find((o) => o.line === line) : undefined;
      const badge = app.badges.get(line);
      const mem = badge ? h("div.hover-mem", badge.title.split("\n\n").map((p) => h("p.mem-tip-p", p))) : null;
      const frag = op ? h("button.btn-small.hover-action", {
        type: "button", title: "Open the Fragments tab on this instruction, with the selected warp's values",
        onclick: () => {
          showTab(app, "fragments");
          app.fragments.showLive(op.pc);
        },
      }, "Show fragments") : null;
      if (!mem && !frag) return null;
      return h("div", mem, frag);
    },
  };
}
