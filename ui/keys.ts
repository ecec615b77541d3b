// Keyboard shortcuts: one table drives the handler, the `?` overlay and
// the tab keys. A key is written as the overlay shows it ("n", "Shift+R",
// "Ctrl+Enter", "F10", "Esc", "Space"); actionFor matches events against
// the same strings, so the help cannot say something the keys do not do.

import { h, typingTarget } from "./dom";

export type Action =
  | "compile" | "stepWarp" | "stepRound" | "stepBarrier" | "stepLine" | "back" | "backRound" | "backBarrier" | "backLine" | "run" | "pause" | "reset"
  | "first" | "last" | "earlier" | "later" | "nextWarp" | "prevWarp" | "gotoWarp"
  | `tab${number}` | "help" | "focusEditor" | "presenter";

export interface Shortcut {
  keys: string[];
  /** The action of each key (one action: every key does it). */
  action: Action | Action[];
  desc: string;
}

/** The inspector tabs as the page lists them (the number keys follow
 * this order): set by the page before the help is first shown. */
let tabNames: string[] = ["Registers", "Memory", "Launch", "Events", "Fragments", "Divergence", "Swizzle", "Console"];

export function setTabNames(names: string[]): void {
  if (names.length) tabNames = names.slice(0, 9);
}

export function shortcuts(): { group: string; items: Shortcut[] }[] {
  const n = tabNames.length;
  return [
    {
      group: "Run",
      items: [
        { keys: ["Ctrl+Enter"], action: "compile", desc: "Compile and load the kernel (replays to the current step when there is a run)" },
        { keys: ["F10", "n"], action: "stepWarp", desc: "Forward one warp-instruction (the scheduler's next warp, marked ◂)" },
        { keys: ["F11", "r"], action: "stepRound", desc: "Forward one round: until the scheduler has visited every ready warp" },
        { keys: ["b"], action: "stepBarrier", desc: "Forward until a barrier releases" },
        { keys: ["Shift+F10", "p"], action: "back", desc: "Back one unit of the last step (warp-instruction, round or barrier)" },
        { keys: ["Shift+F11", "u"], action: "backRound", desc: "Back one round" },
        { keys: ["Shift+B"], action: "backBarrier", desc: "Back one barrier" },
        { keys: ["l"], action: "stepLine", desc: "CUDA: forward until the selected warp's CUDA source line changes" },
        { keys: ["Shift+L"], action: "backLine", desc: "CUDA: back to where the selected warp entered its previous source line" },
        { keys: ["F5", "c"], action: "run", desc: "Run / continue to a breakpoint, a fault or the end" },
        { keys: ["Esc", "Space"], action: "pause", desc: "Pause a run" },
        { keys: ["Shift+R"], action: "reset", desc: "Reset the launch (clears the history)" },
      ],
    },
    {
      group: "Timeline",
      items: [
        { keys: ["[", "]"], action: ["earlier", "later"], desc: "One warp-instruction earlier / later in the history" },
        { keys: ["Home", "End"], action: ["first", "last"], desc: "First / last step of the history" },
      ],
    },
    {
      group: "Inspect",
      items: [
        { keys: ["j", "k"], action: ["nextWarp", "prevWarp"], desc: "Select the next / previous warp" },
        { keys: ["g"], action: "gotoWarp", desc: "Show the selected warp's line in the editor" },
        {
          keys: Array.from({ length: n }, (_, i) => String(i + 1)),
          action: Array.from({ length: n }, (_, i) => `tab${i + 1}` as Action),
          desc: `${tabNames.slice(0, -1).join(", ")}${n > 1 ? ", " : ""}${tabNames[n - 1] ?? ""} tab`,
        },
        { keys: ["e"], action: "focusEditor", desc: "Focus the editor (Esc, then Tab leaves it)" },
        { keys: ["z"], action: "presenter", desc: "Presenter mode: larger type, stronger contrast" },
        { keys: ["?"], action: "help", desc: "Show or hide this help" },
      ],
    },
  ];
}

interface KeySpec {
  key: string;
  ctrl: boolean;
  /** Shift must be down (named keys; a character's shift is in the character). */
  shift: boolean;
  /** Works while typing in the editor or a text field. */
  global: boolean;
}

const named: Record<string, string> = { Esc: "Escape", Space: " " };

/** Parses a key as the overlay writes it. */
export function parseKey(s: string): KeySpec {
  const parts = s.split("+");
  let key = parts.pop() || "+";
  const mods = new Set(parts);
  key = named[key] ?? key;
  const ctrl = mods.has("Ctrl");
  let shift = mods.has("Shift");
  if (key.length === 1 && shift) {
    // Shift+R is the character R.
    key = key.toUpperCase();
    shift = false;
  }
  return { key, ctrl, shift, global: ctrl || /^F\d+$/.test(key) };
}

function matches(k: KeySpec, e: KeyboardEvent): boolean {
  if (e.altKey || (e.ctrlKey || e.metaKey) !== k.ctrl) return false;
  if (e.key !== k.key) return false;
  // A named key says whether it wants Shift; a character carries it.
  return k.key.length === 1 || e.shiftKey === k.shift;
}

/** Whether a focused element is a control that a space key presses or opens. */
function pressable(t: EventTarget | null): boolean {
  return t instanceof Element && !!t.closest("button, a, summary, select, input, [role=tab], [role=option], [role=separator]");
}

/** The action of a key event, or null. Letter keys are ignored while
 * typing in the editor or a text field; every other control (a button,
 * a dropdown, a checkbox, the timeline) leaves them to the page. */
export function actionFor(e: KeyboardEvent): Action | null {
  const typing = typingTarget(e.target);
  for (const g of shortcuts()) {
    for (const s of g.items) {
      for (let i = 0; i < s.keys.length; i++) {
        const k = parseKey(s.keys[i]);
        if (!matches(k, e) || (typing && !k.global)) continue;
        if (k.key === " " && pressable(e.target)) return null;
        return Array.isArray(s.action) ? s.action[i] : s.action;
      }
    }
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
      shortcuts().map((g) => h("section.help-group",
        h("h3", g.group),
        h("table", h("tbody", g.items.map((s) => h("tr",
          h("td.help-keys", s.keys.map((k, i) => [i ? h("span.or", " ") : null, keyCaps(k)])),
          h("td", s.desc)))))))),
    h("div.help-foot",
      h("p", "Letter keys work everywhere except while typing in the editor or a text field (after choosing from a dropdown or pressing a button too); function keys and Ctrl+Enter work everywhere. A key never changes a dropdown: open it with Space or Alt+↓. ◂ after a warp's name marks the warp the scheduler issues next (what n steps). Click a line number to set a breakpoint; click a warp to inspect its registers."),
      h("p", "Some browsers keep F11 for full screen: use ", h("kbd", "r"), " to step a round and ", h("kbd", "u"), " to go back one.")));
}
