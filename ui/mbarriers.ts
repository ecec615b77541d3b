// A CTA's live mbarriers, under its heading in the Warps pane: each
// object's name and address, phase, arrivals pending of expected,
// transaction bytes outstanding and the warps waiting on it. The address
// shows the object's bytes in the Memory tab; a waiting warp selects it.

import type { CtaState, Mbarrier } from "./proto";
import { h, setChildren } from "./dom";
import { popc } from "./format";
import { lineName } from "./srcline";

/** The event a click on an mbarrier's address sends (bubbling): the app
 * shows the CTA's shared memory at the offset. */
export const SHOW_MBARRIER = "pg-show-mbarrier";

export interface ShowMbarrier {
  cta: number;
  offset: number;
}

function row(c: CtaState, b: Mbarrier): HTMLElement {
  const off = parseInt(b.offset, 16);
  const addr = h("button.linklike.mbar-addr", { type: "button", title: "Show its 8 bytes in the Memory tab" },
    (b.name ? `${b.name} ` : "") + `@0x${b.offset}`);
  addr.addEventListener("click", (e) => {
    e.stopPropagation();
    addr.dispatchEvent(new CustomEvent<ShowMbarrier>(SHOW_MBARRIER, { bubbles: true, detail: { cta: c.cta, offset: off } }));
  });
  const tx = b.tx > 0 ? `${b.tx.toLocaleString("en-US")} tx bytes` : b.tx < 0 ? `${(-b.tx).toLocaleString("en-US")} tx bytes early` : "0 tx bytes";
  const state = b.valid
    ? `phase ${b.phase} · ${b.pending} of ${b.expected} arrival${b.expected === 1 ? "" : "s"} pending · ${tx}`
    : "overwritten: not an initialised mbarrier now";
  const waits = (b.waiting ?? []).map((w) =>
    h("span.mbar-wait", { "data-cta": c.cta, "data-warp": w.warp, title: `warp ${w.warp}: ${popc(parseInt(w.lanes, 16) >>> 0)} lanes wait for phase ${w.parity} at ${lineName(w.line, w.cudaLine)}` },
      `w${w.warp}`));
  return h("li.mbar", { title: b.valid ? `missing: ${b.missing}` : "" }, addr, h("span.mbar-state", state),
    waits.length ? h("span.mbar-waits", "waiting: ", ...waits) : h("span.mbar-waits.muted", "no warp waits"));
}

/** Fills el with c's live mbarriers (empty when it has none). */
export function renderMbarriers(el: HTMLElement, c: CtaState): void {
  const list = c.mbarriers ?? [];
  if (!list.length) {
    setChildren(el);
    return;
  }
  const more = c.mbarriersOmitted ?? 0;
  setChildren(el, h("div.mbar-title", `mbarriers (${list.length + more})`), h("ul.mbar-list", list.map((b) => row(c, b))),
    more > 0 ? h("div.mbar-more.muted", `+${more.toLocaleString("en-US")} more (the first ${list.length} by address are listed)`) : null);
}
