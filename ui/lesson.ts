// The lesson strip: a gallery lesson's explanation, its "what to watch"
// hints (each opens its line and panel) and the result it should reach.
// It shows while the editor holds the lesson's kernel. A CUDA lesson's
// hints name kernel.cu lines (cudaLine); where the example has a twin in
// the other language, the strip offers it (LessonHooks.twin).

import { h, setChildren } from "./dom";

/** A hint as /api/examples gives it (generated from web's LessonHint). */
export type { LessonHint } from "./api_gen";
import type { LessonHint } from "./api_gen";

export interface LessonData {
  explanation: string;
  hints: LessonHint[];
  expect?: { result?: string };
}

/** Reads a lesson from untrusted JSON. */
export function parseLesson(v: unknown): LessonData | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  if (typeof o.explanation !== "string" || !Array.isArray(o.hints)) return null;
  const line = (x: LessonHint) => (Number.isInteger(x.cudaLine) && x.cudaLine! > 0) || Number.isInteger(x.line);
  const hints = o.hints.filter((x): x is LessonHint => !!x && typeof x === "object" &&
    line(x as LessonHint) && typeof (x as LessonHint).panel === "string" && typeof (x as LessonHint).text === "string");
  const ex = o.expect && typeof o.expect === "object" ? (o.expect as Record<string, unknown>) : {};
  return { explanation: o.explanation, hints, expect: { result: typeof ex.result === "string" ? ex.result : undefined } };
}

const panelNames: Record<string, string> = {
  editor: "Editor", warps: "Warps", regs: "Registers", memory: "Memory", launch: "Launch", events: "Events", fragments: "Fragments", divergence: "Divergence", swizzle: "Swizzle",
};

/** A hint's text. One that starts with a PTX label ("NEXT: both paths
 * rejoin here") names the label as code, so that it does not read like a
 * heading or a command ("At label NEXT, both paths rejoin here"). */
export function hintText(text: string): (string | HTMLElement)[] {
  const m = /^([A-Z][A-Z0-9_$]*):\s+(.*)$/s.exec(text);
  if (!m) return [text];
  return ["At label ", h("code.lesson-label", { title: `the label ${m[1]}: in the kernel` }, m[1]), ", " + m[2]];
}

export interface LessonHooks {
  /** Opens line in the editor (cuda: a kernel.cu line) and the panel the hint points at. */
  show(line: number, panel: string, cuda: boolean): void;
  /** The same lesson in the other language, if the example has one. */
  twin?(): LessonTwin | null;
}

export interface LessonTwin {
  label: string;
  title: string;
  open(): void;
}

export class LessonView {
  private key = "";

  constructor(private el: HTMLElement, private hooks: LessonHooks) {}

  /** Shows the lesson (null: hides the strip) under its title; sharedAs:
   * the title of the share link it came from, on the title's hover. */
  set(lesson: LessonData | null, title: string, sharedAs = ""): void {
    const twin = lesson ? this.hooks.twin?.() ?? null : null;
    const key = lesson ? title + "\n" + sharedAs + "\n" + (twin?.label ?? "") + "\n" + lesson.explanation : "";
    if (key === this.key) return;
    this.key = key;
    if (!lesson) {
      this.el.hidden = true;
      setChildren(this.el);
      return;
    }
    const open = localStorage.getItem("ptxplay.lesson.closed") !== "1";
    const det = h("details.lesson", { open },
      h("summary", h("span.lesson-tag", "Lesson"), " ", h("span.lesson-title", sharedAs ? { title: `Lesson “${title}”, shared as “${sharedAs}”` } : {}, title),
        h("span.lesson-count", ` · ${lesson.hints.length} thing${lesson.hints.length === 1 ? "" : "s"} to watch`),
        twin ? h("button#pg-lesson-twin.btn-small.lesson-twin", {
          type: "button", title: twin.title,
          onclick: (e: Event) => {
            e.preventDefault(); // not the summary's open/close
            twin.open();
          },
        }, twin.label) : null),
      h("p.lesson-text", lesson.explanation),
      // Where the lesson sits beside the code (presenter mode on a
      // projector), the explanation shows its first lines and the hints
      // stay in view; this reads the rest.
      h("button.lesson-more.btn-small", {
        type: "button", "aria-expanded": "false",
        onclick: (e: Event) => {
          const b = e.currentTarget as HTMLElement;
          const open = b.getAttribute("aria-expanded") !== "true";
          b.setAttribute("aria-expanded", String(open));
          b.textContent = open ? "less" : "more…";
          b.previousElementSibling?.classList.toggle("expanded", open);
        },
      }, "more…"),
      h("ol.lesson-hints", lesson.hints.map((hint, i) => {
        const cuda = !!hint.cudaLine && hint.cudaLine > 0;
        const line = cuda ? hint.cudaLine! : hint.line;
        const where = cuda ? `kernel.cu:${line}` : `line ${line}`;
        return h("li",
          h("button.lesson-hint", {
            type: "button", "data-hint": i, "data-line": line, "data-panel": hint.panel, "data-cuda": cuda ? "1" : undefined,
            title: `Go to ${cuda ? "kernel.cu line" : "line"} ${line}${cuda && hint.ptx ? ` (and its ${hint.ptx} in the PTX)` : ""} and open the ${panelNames[hint.panel] ?? hint.panel} panel`,
            onclick: (e: Event) => {
              for (const b of this.el.querySelectorAll(".lesson-hint.on")) b.classList.remove("on");
              (e.currentTarget as HTMLElement).classList.add("on");
              this.hooks.show(line, hint.panel, cuda);
            },
          }, h("span.lesson-line", where), h("span.lesson-panel", panelNames[hint.panel] ?? hint.panel)),
          cuda && hint.code ? [" ", h("code.lesson-code", hint.code)] : null,
          " ", hintText(hint.text));
      })),
      lesson.expect?.result ? h("p.lesson-result", h("b", "Result: "), lesson.expect.result) : null);
    det.addEventListener("toggle", () => {
      try {
        localStorage.setItem("ptxplay.lesson.closed", det.open ? "0" : "1");
      } catch {
        // no storage
      }
    });
    setChildren(this.el, det);
    this.el.hidden = false;
  }
}
