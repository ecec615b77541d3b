// How a diagnostic's ID and notes are shown, in the problems list and in
// the editor's lint tooltip alike: the ID as a tag after the message, each
// note (a related place: "label L is first defined here") as a line of its
// own whose line:col is a button that goes there.

import type { DiagNote, Message } from "./proto";
import { h } from "./dom";

/** The ID tag of a diagnostic (null when it has none). */
export function diagIdTag(id: string | undefined): HTMLElement | null {
  if (!id) return null;
  return h("code.diag-id", { title: `Diagnostic ID ${id} (listed in docs/diagnostics.md)` }, id);
}

/** The notes of a diagnostic as a list, each going to its line when clicked. */
export function diagNotesList(notes: DiagNote[] | undefined, goto: (line: number, col: number) => void): HTMLElement | null {
  if (!notes?.length) return null;
  return h("ul.diag-notes", notes.map((n) => h("li.diag-note",
    h("button.diag-note-loc", {
      type: "button", title: `Go to line ${n.line}`,
      onmousedown: (e: Event) => e.preventDefault(), // keep the editor's tooltip until the click
      onclick: () => goto(n.line, n.col),
    }, `${n.line}:${n.col}`),
    h("span.diag-note-sev", "note"),
    h("span.diag-note-msg", n.message))));
}

/** The plain text of a diagnostic with its ID and notes (screen readers, copies). */
export function diagText(m: Message): string {
  let s = m.message + (m.id ? ` [${m.id}]` : "");
  for (const n of m.notes ?? []) s += `\n${n.line}:${n.col}: note: ${n.message}`;
  return s;
}
