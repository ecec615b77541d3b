// A few DOM helpers: the UI builds its dynamic parts with plain elements.

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | number | null | undefined | false;
export type Children = Child | readonly Children[];

/** Creates an element: h("div.cls1.cls2", {attr: v, onclick: fn}, children…). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K | `${K}.${string}` | `${K}#${string}`,
  attrsOrChild?: Attrs | Children,
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  let attrs: Attrs | null = null;
  if (isAttrs(attrsOrChild)) attrs = attrsOrChild;
  else children.unshift(attrsOrChild as Children);
  const parts = tag.split(".");
  let name = parts[0];
  let id = "";
  const hash = name.indexOf("#");
  if (hash >= 0) {
    id = name.slice(hash + 1);
    name = name.slice(0, hash);
  }
  const el = document.createElement(name as K);
  if (id) el.id = id;
  if (parts.length > 1) el.className = parts.slice(1).join(" ");
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") {
        el.addEventListener(k.slice(2), v as EventListener);
      } else if (k === "class") {
        el.className += (el.className ? " " : "") + String(v);
      } else if (k === "value" && "value" in el) {
        (el as unknown as { value: string }).value = String(v);
      } else if (k === "checked" && el instanceof HTMLInputElement) {
        el.checked = Boolean(v);
      } else {
        el.setAttribute(k, v === true ? "" : String(v));
      }
    }
  }
  append(el, children);
  return el;
}

function isAttrs(x: unknown): x is Attrs {
  return typeof x === "object" && x !== null && !(x instanceof Node) && !Array.isArray(x);
}

function append(el: Node, children: readonly Children[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c === null || c === undefined || c === false) continue;
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of el. */
export function setChildren(el: Element, ...children: Children[]): void {
  el.textContent = "";
  append(el, children);
}

/** The element with an id; throws a clear error if the page shell lacks it. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`playground page: missing element #${id}`);
  return el as T;
}

/** Sets textContent only when it changes (cheap updates while running). */
export function setText(el: Element, s: string): void {
  if (el.textContent !== s) el.textContent = s;
}

/** Sets className only when it changes. */
export function setClass(el: Element, s: string): void {
  if (el.className !== s) el.className = s;
}

/** Toggles a class. */
export function toggle(el: Element, cls: string, on: boolean): void {
  if (el.classList.contains(cls) !== on) el.classList.toggle(cls, on);
}

/** Number of `count` with a unit, pluralised. */
export function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** Formats a large count with thin grouping. */
export function grouped(n: number): string {
  return n.toLocaleString("en-US");
}

/** Whether keyboard focus is in something that takes text (the editor, a
 * text or number field): letter keys type there. A dropdown is not: its
 * type-ahead never gets a key (see App.onKey). */
export function typingTarget(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  if (t instanceof HTMLTextAreaElement) return true;
  if (t instanceof HTMLInputElement) {
    return !["checkbox", "radio", "button", "range", "submit", "reset", "file"].includes(t.type);
  }
  return Boolean(t.closest(".cm-editor"));
}

/** Reads (and, with a value, first writes) a localStorage entry; null
 * where storage is unavailable (private modes, disabled cookies). */
export function stored(key: string, value?: string): string | null {
  try {
    if (value !== undefined) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Offers a text as a file download. */
export function download(name: string, text: string, type = "application/json"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
