// The Console tab: the launch's printf output up to the step shown, one
// row per thread's call (in the emulator's execution order) with its step,
// CTA and thread. Clicking a step seeks there (the state right after the
// call); the line number selects the call in the editor.

import type { Model } from "./model";
import type { PrintfLine } from "./proto";
import { h, setChildren, setText } from "./dom";
import { lineShort, lineTitle } from "./srcline";

/** Rows rendered at most: the newest ones (the model holds them all). */
const maxRows = 2000;

export class ConsoleView {
  private rendered = -1; // lines rendered, -1: none

  constructor(
    private readonly el: HTMLElement,
    private readonly model: Model,
    private readonly visible: () => boolean,
    private readonly hooks: { seek: (step: number) => void; goto: (line: number) => void },
  ) {
    model.subscribe((c) => {
      if (c.has("printf") || c.has("loaded") || c.has("status")) {
        this.renderCount();
        if (this.visible() && (c.has("printf") || c.has("loaded"))) this.render();
      }
    });
  }

  /** The tab was shown. */
  shown(): void {
    this.render();
  }

  /** Shows the number of lines on the tab's button. */
  private renderCount(): void {
    const btn = document.getElementById("pg-tabbtn-console");
    if (!btn) return;
    const n = this.model.printf.length;
    let badge = btn.querySelector<HTMLElement>(".tab-count");
    if (!n) {
      badge?.remove();
      return;
    }
    if (!badge) {
      badge = h("span.tab-count.tab-count-info");
      btn.append(badge);
    }
    setText(badge, `${n}${this.model.printfDropped ? "+" : ""}`);
  }

  render(): void {
    const m = this.model;
    const el = this.el;
    if (!m.loaded) {
      setChildren(el, h("p.empty", "printf output appears here, one line per thread's call."));
      return;
    }
    const lines = m.printf;
    if (!lines.length && !m.printfDropped) {
      setChildren(el, h("p.empty", "No printf output up to this step. A kernel's printf (a call to vprintf) prints here, one line per thread's call, with its step, CTA and thread."));
      this.rendered = 0;
      return;
    }
    const multi = m.totalCTAs > 1;
    const from = Math.max(0, lines.length - maxRows);
    const rows = lines.slice(from).map((l) => this.row(l, multi));
    const head = h("p.console-head",
      h("span", `${lines.length} line${lines.length === 1 ? "" : "s"} up to step ${m.step.toLocaleString("en-US")}`),
      h("span.muted", " · in execution order; click a step to go there"),
      from > 0 ? h("span.muted", ` · showing the last ${maxRows.toLocaleString("en-US")}`) : null,
      m.printfDropped ? h("span.console-dropped", { title: m.printfNote },
        ` · ${m.printfDropped.toLocaleString("en-US")} later line${m.printfDropped === 1 ? "" : "s"} dropped at the printf limit (see the end)`) : null);
    const note = m.printfDropped ? h("p.console-note", { role: "note" }, m.printfNote || `${m.printfDropped} later lines were dropped at the printf limit`) : null;
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 4 || this.rendered <= 0;
    setChildren(el, head, h("ol.console-list", { "aria-label": "printf output" }, rows), note);
    this.rendered = lines.length;
    if (atEnd) el.scrollTop = el.scrollHeight;
  }

  private row(l: PrintfLine, multi: boolean): HTMLElement {
    const m = this.model;
    const reachable = l.step >= m.firstStep && l.step < m.steps;
    const d = (v: number[]) => (v[1] || v[2] ? `(${v.join(",")})` : `${v[0]}`);
    const who = `${multi || l.cta[0] || l.cta[1] || l.cta[2] ? `CTA ${d(l.cta)} ` : ""}t${d(l.thread)}`;
    const text = l.text.endsWith("\n") ? l.text.slice(0, -1) : l.text;
    return h("li.console-line", { "data-step": String(l.step) },
      h("button.console-step.linklike", {
        type: "button", disabled: !reachable || l.step === m.step || undefined,
        title: reachable ? `Go to step ${l.step}, right after this call` : "This step is no longer in the history",
        onclick: () => this.hooks.seek(l.step),
      }, `#${l.step}`),
      h("span.console-who", who),
      h("button.console-loc.linklike", { type: "button", title: lineTitle(l.line, l.cudaLine), onclick: () => this.hooks.goto(l.line) }, lineShort(l.line, l.cudaLine)),
      h("span.console-text", text || "\u00a0"),
      l.cut ? h("span.console-flag", { title: "The call's output passed 4,096 bytes and was cut" }, "cut") : null,
      l.note ? h("span.console-flag", { title: l.note }, "note") : null);
  }
}
