// The register table's page control: shown only for a paged register
// file (more than 2048 registers or 8192 predicates), each page by its
// register range.

import type { Model } from "./model";
import { h, setChildren, setText } from "./dom";

/** Registers and predicates a page of a paged register file (the server's
 * page sizes, docs/protocol.md). */
const REG_PAGE = 2048;
const PRED_PAGE = 8192;

/** n with thousands separators (5,000). */
function grouped(n: number): string {
  return n.toLocaleString("en-US");
}

/** The page control of a paged register file (hidden otherwise). */
export class RegPager {
  readonly el: HTMLElement;
  private sel: HTMLSelectElement;
  private prev: HTMLButtonElement;
  private next: HTMLButtonElement;
  private of: HTMLElement;
  private shownOf = "";

  /** selectPage asks the server for a page. */
  constructor(private readonly model: Model, private readonly selectPage: (page: number) => void) {
    this.sel = h("select.small.reg-page", { "aria-label": "Register page" });
    this.sel.addEventListener("change", () => this.go(Number(this.sel.value)));
    const navBtn = (label: string, title: string, d: number) =>
      h("button.small", { type: "button", title, "aria-label": title, onclick: () => this.go(this.model.regPage + d) }, label);
    this.prev = navBtn("‹", "Previous register page", -1);
    this.next = navBtn("›", "Next register page", +1);
    this.of = h("span.reg-page-of.muted");
    this.el = h("span.reg-pager", { role: "group", "aria-label": "Register pages", hidden: true },
      h("span.seg-label", "registers"), this.prev, this.sel, this.next, this.of);
  }

  /** Asks for register page p (clamped); the rows follow when it arrives. */
  private go(p: number): void {
    const pages = this.model.regPages();
    p = Math.max(0, Math.min(pages - 1, p));
    if (p === this.model.regPage) return;
    this.sel.value = String(p);
    this.selectPage(p);
  }

  /** Shows the control for the loaded program's register file and page. */
  render(): void {
    const m = this.model;
    const l = m.loaded;
    const pages = m.regPages();
    this.el.hidden = !l || pages <= 1;
    if (!l || pages <= 1) return;
    const per = REG_PAGE;
    const n = l.regCount ?? l.regs.length;
    const key = `${pages}|${n}|${l.predCount}`;
    if (key !== this.shownOf) {
      this.shownOf = key;
      const opts: HTMLElement[] = [];
      for (let p = 0; p < pages; p++) {
        const lo = p * per + 1;
        const hi = Math.min(n, (p + 1) * per);
        opts.push(h("option", { value: String(p) }, lo <= n ? `${grouped(lo)}–${grouped(hi)}` : `page ${p + 1}`));
      }
      setChildren(this.sel, opts);
      setText(this.of, `of ${grouped(n)}`);
      this.el.title = `This kernel has ${grouped(n)} registers and ${grouped(l.predCount ?? 0)} predicates, shown in ${pages} pages ` +
        `(${grouped(REG_PAGE)} registers and ${grouped(PRED_PAGE)} predicates a page, in declaration order). ` +
        "The table, the filter and the warp watch cover the page shown.";
    }
    this.sel.value = String(m.regPage);
    this.prev.disabled = m.regPage <= 0;
    this.next.disabled = m.regPage >= pages - 1;
  }
}
