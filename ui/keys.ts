// Keyboard shortcuts: one table drives both the handler and the `?` overlay.

import { h, typingTarget } from "./dom";

export type Action =
  | "compile" | "stepWarp" | "stepRound" | "stepBarrier" | "back" | "run" | "pause" | "reset"
  | "first" | "last" | "earlier" | "later" | "nextWarp" | "prevWarp" | "gotoWarp"
  | "tabRegs" | "tabMemory" | "tabLaunch" | "tabEvents" | "tabFragments" | "tabDivergence" | "help" | "focusEditor" | "presenter";

export interface Shortcut {
  keys: string[];
  action: Action;
  desc: string;
  /** Works while typing in the editor or a field (function keys, Ctrl+Enter). */
  global?: boolean;
}

export const shortcuts: { group: string; items: Shortcut[] }[] = [
  {
    group: "Run",
    items: [
      { keys: ["Ctrl+Enter"], action: "compile", desc: "Compile and load the kernel (replays to the current step when there is a run)", global: true },
      { keys: ["F10", "n"], action: "stepWarp", desc: "Forward one warp-instruction (the scheduler's next warp)", global: true },
      { keys: ["F11", "r"], action: "stepRound", desc: "Forward one round: until the scheduler has visited every ready warp", global: true },
      { keys: ["b"], action: "stepBarrier", desc: "Forward until a barrier releases" },
      { keys: ["Shift+F10", "p"], action: "back", desc: "Back one unit of the last step (warp-instruction, round or barrier)", global: true },
      { keys: ["F5", "c"], action: "run", desc: "Run / continue to a breakpoint, a fault or the end", global: true },
      { keys: ["Esc", "Space"], action: "pause", desc: "Pause a run" },
      { keys: ["Shift+R"], action: "reset", desc: "Reset the launch (clears the history)" },
    ],
  },
  {
    group: "Timeline",
    items: [
      { keys: ["[", "]"], action: "earlier", desc: "One warp-instruction earlier / later in the history" },
      { keys: ["Home", "End"], action: "first", desc: "First / last step of the history" },
    ],
  },
  {
    group: "Inspect",
    items: [
      { keys: ["j", "k"], action: "nextWarp", desc: "Select the next / previous warp" },
      { keys: ["g"], action: "gotoWarp", desc: "Show the selected warp's line in the editor" },
      { keys: ["1", "2", "3", "4", "5", "6"], action: "tabRegs", desc: "Registers, Memory, Launch, Events, Fragments, Divergence tab" },
      { keys: ["e"], action: "focusEditor", desc: "Focus the editor (Esc, then Tab leaves it)" },
      { keys: ["z"], action: "presenter", desc: "Presenter mode: larger type, stronger contrast" },
      { keys: ["?"], action: "help", desc: "Show or hide this help" },
    ],
  },
];

/** The action of a key event, or null. */
export function actionFor(e: KeyboardEvent): Action | null {
  const typing = typingTarget(e.target);
  const k = e.key;
  const mod = e.ctrlKey || e.metaKey;
  if (mod && k === "Enter") return "compile";
  if (e.altKey || (mod && !e.shiftKey)) return null;
  switch (k) {
    case "F10":
      return e.shiftKey ? "back" : "stepWarp";
    case "F11":
      return "stepRound";
    case "F5":
      return mod ? null : "run";
  }
  if (typing || mod) return null;
  switch (k) {
    case "n": return "stepWarp";
    case "r": return "stepRound";
    case "R": return e.shiftKey ? "reset" : null;
    case "b": return "stepBarrier";
    case "p": return "back";
    case "c": return "run";
    case "Escape": return "pause";
    case " ": {
      const t = e.target as HTMLElement | null;
      if (t && t.closest("button, a, summary, [role=tab], [role=option]")) return null;
      return "pause";
    }
    case "[": return "earlier";
    case "]": return "later";
    case "Home": return "first";
    case "End": return "last";
    case "j": return "nextWarp";
    case "k": return "prevWarp";
    case "g": return "gotoWarp";
    case "1": return "tabRegs";
    case "2": return "tabMemory";
    case "3": return "tabLaunch";
    case "4": return "tabEvents";
    case "5": return "tabFragments";
    case "6": return "tabDivergence";
    case "e": return "focusEditor";
    case "z": return "presenter";
    case "?": return "help";
  }
  return null;
}

function keyCaps(k: string): HTMLElement {
  return h("span.keys", k.split("+").map((p, i) => [i ? "+" : null, h("kbd", p)]));
}

/** The help overlay's content. */
export function helpContent(close: () => void): HTMLElement {
  return h("div.help-card", { role: "document" },
    h("div.help-head",
      h("h2#pg-help-title", "Keyboard shortcuts"),
      h("button.icon", { type: "button", "aria-label": "Close", title: "Close (Esc)", onclick: close }, "×")),
    h("div.help-cols",
      shortcuts.map((g) => h("section.help-group",
        h("h3", g.group),
        h("table", h("tbody", g.items.map((s) => h("tr",
          h("td.help-keys", s.keys.map((k, i) => [i ? h("span.or", " ") : null, keyCaps(k)])),
          h("td", s.desc)))))))),
    h("div.help-foot",
      h("p", "Letter keys work when the editor does not have focus; function keys and Ctrl+Enter work everywhere. Click a line number to set a breakpoint; click a warp to inspect its registers."),
      h("p", "Some browsers keep F11 for full screen: use ", h("kbd", "r"), " to step a round.")));
}
