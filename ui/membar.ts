// The memory view's toolbar controls: Table or Banks for shared memory, the
// element type, hex, follow, the legend and the page navigation. The view
// owns the state; these controls show it and report what the user picks.

import { h } from "./dom";
import { elemSize } from "./model";
import { viewTypes } from "./memviewstate";
import { PAGE_BYTES } from "./memtable";

/** What the toolbar shows. */
export interface BarState {
  shared: boolean;
  banks: boolean;
  type: string;
  hex: boolean;
  follow: boolean;
  page: number;
  pages: number;
  count: number;
}

/** What the user picked in the toolbar. */
export interface BarActions {
  type(type: string): void;
  hex(on: boolean): void;
  follow(on: boolean): void;
  page(p: number): void;
  banks(on: boolean): void;
}

/** The toolbar's controls, in order, up to the CTA choice at its end. */
export function barControls(s: BarState, on: BarActions): (HTMLElement | HTMLElement[] | null)[] {
  const banks = s.shared && s.banks;
  const typeSel = h("select.small", { "aria-label": "Element type", title: "Read the memory as elements of this type" },
    viewTypes.map((x) => h("option", { value: x }, x)));
  typeSel.value = s.type;
  typeSel.addEventListener("change", () => on.type(typeSel.value));
  const hexBox = h("input", { type: "checkbox", checked: s.hex });
  hexBox.addEventListener("change", () => on.hex(hexBox.checked));
  const followBox = h("input", { type: "checkbox", checked: s.follow });
  followBox.addEventListener("change", () => on.follow(followBox.checked));
  const nav = (label: string, title: string, p: number, disabled: boolean) =>
    h("button.small", { type: "button", title, "aria-label": title, disabled, onclick: () => on.page(p) }, label);
  const gotoInput = h("input.small", { type: "number", min: 0, max: Math.max(0, s.count - 1), placeholder: "index", "aria-label": "Go to element index", title: "Go to element index", size: 6 });
  gotoInput.addEventListener("change", () => {
    const i = Number(gotoInput.value);
    if (!Number.isFinite(i)) return;
    const perPage = Math.max(1, Math.floor(PAGE_BYTES / elemSize(s.type)));
    on.page(Math.max(0, Math.min(s.pages - 1, Math.floor(i / perPage))));
  });
  const viewBtn = (label: string, sel: boolean, title: string) =>
    h(sel ? "button.seg-btn.on" : "button.seg-btn", { type: "button", "aria-pressed": sel ? "true" : "false", "data-view": label.toLowerCase(), title,
      onclick: () => on.banks(label === "Banks") }, label);
  const viewToggle = s.shared
    ? h("span.seg.mem-view", { role: "group", "aria-label": "Shared memory view" },
      viewBtn("Table", !banks, "Shared memory as a table of elements"),
      viewBtn("Banks", banks, "Shared memory as its 32 banks: rows of 128 bytes, the last step's lanes on the words they touched"))
    : null;
  return [
    viewToggle,
    h("label.inline", "as ", typeSel),
    h("label.check", { title: "Show raw bits in hex" }, hexBox, "hex"),
    h("label.check", { title: banks ? "Scroll to the rows the last step accessed" : "Jump to the page the last step accessed" }, followBox, "follow"),
    banks
      ? h("span.mem-legend", { title: "Lane numbers on the words they touched, coloured by the wavefront that serves them; a red mark: the lane waits for a bank conflict" },
        h("b.bl", { style: "--wc: hsl(210, 62%, 44%)" }, "lane"), "wavefront", h("b.bl.bl-x", { style: "--wc: hsl(347, 62%, 36%)" }, "lane"), "conflict")
      : h("span.mem-legend", { title: "Cells the last step accessed" }, h("span.sw.t-load"), "load", h("span.sw.t-store"), "store"),
    s.shared ? h("span.mem-legend", { title: "Bytes that cp.async copies still in flight will write" }, h("span.sw.t-pending"), "pending cp.async") : null,
    h("span.spacer"),
    s.pages > 1 ? [
      nav("«", "First page", 0, s.page === 0),
      nav("‹", "Previous page", s.page - 1, s.page === 0),
      h("span.page-no", `${s.page + 1}/${s.pages}`),
      nav("›", "Next page", s.page + 1, s.page >= s.pages - 1),
      nav("»", "Last page", s.pages - 1, s.page >= s.pages - 1),
      gotoInput,
    ] : null,
  ];
}
