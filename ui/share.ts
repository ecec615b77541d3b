// Share links: a snapshot of the kernel, its launch, the view and
// optionally the current position. With a server store the snapshot gets a
// short link (/s/ID, and /embed/ID for iframes); link-only sharing puts the
// whole snapshot, compressed, in the URL's fragment (#k=…), which never
// reaches a server.

import { h, setChildren } from "./dom";
import type * as api from "./api_gen";
import type { Spec } from "./proto";
import { parseView } from "./viewstate";
import { parseCuda } from "./draft";
import type { ShareView } from "./viewstate";

export type { ShareView } from "./viewstate";

/** A snapshot as the client holds it (and as #k= carries it): the
 * server's answer (api_gen's ShareData, generated from web's
 * sharePayload) read from untrusted JSON, before it has an id. */
export interface ShareData extends Omit<api.ShareData, "id" | "view" | "lesson" | "spec"> {
  id?: string;
  spec: Spec;
  view?: ShareView;
  /** The gallery lesson the link still holds (set by the server; read with parseLesson). */
  lesson?: unknown;
}

/** Unicode's bidirectional formatting characters (embeddings, overrides, isolates, marks). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** A label without bidirectional formatting characters, which could make it read differently from what it is. */
export function stripBidi(s: string): string {
  return s.replace(BIDI_CONTROLS, "");
}

/** Reads a snapshot from untrusted JSON (a page script, a URL fragment). */
export function parseShare(v: unknown): ShareData | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  if (typeof o.source !== "string" || !o.spec || typeof o.spec !== "object" || Array.isArray(o.spec)) return null;
  const int = (x: unknown) => (Number.isSafeInteger(x) && (x as number) >= 0 ? (x as number) : undefined);
  return {
    id: typeof o.id === "string" ? o.id : undefined,
    title: typeof o.title === "string" ? stripBidi(o.title) : undefined,
    description: typeof o.description === "string" ? stripBidi(o.description) : undefined,
    source: o.source,
    spec: o.spec as Spec,
    step: int(o.step),
    example: typeof o.example === "string" ? o.example : undefined,
    lesson: o.lesson,
    view: parseView(o.view),
    cuda: parseCuda(o.cuda) ?? undefined,
  };
}

const FRAGMENT = "#k=";
/** The most a link-only URL may hold (browsers and chat apps cut longer ones). */
export const MAX_LINK_ONLY = 16000;

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The fields a link-only URL carries: what encodeLinkOnly writes, and all decodeLinkOnly reads (never an id or a lesson: those come from the server). */
const LINK_FIELDS = ["title", "description", "source", "spec", "view", "step", "example", "cuda"] as const;

function linkFields(snap: ShareData): Partial<ShareData> {
  const out: Record<string, unknown> = {};
  for (const k of LINK_FIELDS) if (snap[k] !== undefined) out[k] = snap[k];
  return out as Partial<ShareData>;
}

/** The most a link-only URL's kernel may inflate to. */
export const MAX_LINK_INFLATED = 2 << 20;

/** A link whose kernel inflates past MAX_LINK_INFLATED. */
export class LinkTooLarge extends Error {
  constructor() {
    super(`the link's kernel is larger than ${MAX_LINK_INFLATED >> 20} MiB once unpacked, more than a link may hold`);
  }
}

/** Compressed input goes to the decompressor in pieces this small, so that one piece inflates to at most about 1 MiB (deflate's ratio is at most 1032:1). */
const INFLATE_PIECE = 1024;

/**
 * Inflates raw deflate data, counting the bytes as they come: as soon as
 * they pass limit it cancels the stream and throws LinkTooLarge. The input
 * is fed in small pieces, each only once the previous one is consumed, so
 * the memory and time spent stay bounded by the limit however well the
 * data compresses.
 */
async function inflate(data: Uint8Array<ArrayBuffer>, limit: number): Promise<Uint8Array> {
  const ds = new DecompressionStream("deflate-raw");
  const writer = ds.writable.getWriter();
  const reader = ds.readable.getReader();
  let stop = false;
  const feed = (async () => {
    try {
      for (let i = 0; i < data.length && !stop; i += INFLATE_PIECE) await writer.write(data.subarray(i, i + INFLATE_PIECE));
      if (!stop) await writer.close();
    } catch {
      // The reader ended the stream (the limit, or damaged data): it reports why.
    }
  })();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > limit) {
        stop = true;
        await reader.cancel().catch(() => undefined);
        throw new LinkTooLarge();
      }
      chunks.push(value);
    }
  } finally {
    stop = true;
    await feed;
  }
  return concat(chunks, n);
}

function concat(chunks: Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

async function deflate(data: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream("deflate-raw")).getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    chunks.push(value);
  }
  return concat(chunks, n);
}

/** The fragment (#k=…) that holds snap. */
export async function encodeLinkOnly(snap: ShareData): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(linkFields(snap)));
  return FRAGMENT + b64url(await deflate(json));
}

/** The snapshot in location.hash, or null when there is none; throws on a damaged link (LinkTooLarge on one that inflates past the limit). */
export async function decodeLinkOnly(hash: string): Promise<ShareData | null> {
  if (!hash.startsWith(FRAGMENT)) return null;
  const raw = unb64url(hash.slice(FRAGMENT.length));
  const json = await inflate(raw, MAX_LINK_INFLATED);
  const snap = parseShare(JSON.parse(new TextDecoder().decode(json)));
  if (!snap) throw new Error("the link does not hold a kernel");
  const fields = linkFields(snap);
  return { ...fields, source: snap.source, spec: snap.spec };
}

export interface ShareHooks {
  /** The snapshot of what the playground shows now (step: the current position). */
  snapshot(): ShareData;
  /** The current position and whether there is one to include. */
  position(): number;
  toast(msg: string, kind?: "error" | "info"): void;
}

/** The Share dialog. */
export class ShareDialog {
  private result: HTMLElement;
  private titleIn: HTMLInputElement;
  private descIn: HTMLTextAreaElement;
  private stepIn: HTMLInputElement;
  private stepLabel: HTMLElement;
  private createBtn: HTMLButtonElement;
  private linkBtn: HTMLButtonElement;
  private returnFocus: HTMLElement | null = null;

  constructor(private el: HTMLElement, private hooks: ShareHooks) {
    this.titleIn = h("input#pg-share-title", { type: "text", maxlength: "200", placeholder: "e.g. Bank conflicts in a transpose" }) as HTMLInputElement;
    this.descIn = h("textarea#pg-share-desc", { rows: "2", maxlength: "1000", placeholder: "One line for link previews (optional)" }) as HTMLTextAreaElement;
    this.stepIn = h("input#pg-share-step", { type: "checkbox" }) as HTMLInputElement;
    this.stepLabel = h("span");
    this.createBtn = h("button.btn.btn-primary", { type: "button", "data-share": "create", onclick: () => void this.create() }, "Create link") as HTMLButtonElement;
    this.linkBtn = h("button.btn", { type: "button", "data-share": "link-only", title: "Put the kernel itself in the URL: no server keeps it", onclick: () => void this.linkOnly() }, "Link only (kernel in the URL)") as HTMLButtonElement;
    this.result = h("div.share-result", { "aria-live": "polite" });
    setChildren(el, h("div.help-card.share-card", { role: "document" },
      h("div.help-head",
        h("h2#pg-share-title-h", "Share this kernel"),
        h("button.icon", { type: "button", "aria-label": "Close", title: "Close (Esc)", onclick: () => this.show(false) }, "×")),
      h("div.share-form",
        h("label.share-field", h("span", "Title"), this.titleIn),
        h("label.share-field", h("span", "Description"), this.descIn),
        h("label.check.share-step", this.stepIn, this.stepLabel),
        h("p.share-note", "The link opens this kernel, its launch and the view: the tab, the selected warp and lane, each tab's settings; with the step, at that moment of the run. A link never changes: editing later makes a new one."),
        h("div.share-actions", this.createBtn, this.linkBtn)),
      this.result));
    el.addEventListener("click", (e) => {
      if (e.target === el) this.show(false);
    });
    window.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.open) {
        this.show(false);
        e.preventDefault();
        e.stopPropagation();
      }
    }, true);
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  show(on: boolean, title = ""): void {
    if (!on) {
      this.el.hidden = true;
      this.returnFocus?.focus();
      return;
    }
    this.returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const pos = this.hooks.position();
    this.stepIn.disabled = pos <= 0;
    this.stepIn.checked = pos > 0;
    this.stepLabel.textContent = pos > 0 ? `Open at the current step (warp-instruction ${pos})` : "Open at the current step (the run has not started)";
    if (!this.titleIn.value) this.titleIn.value = title;
    setChildren(this.result);
    this.el.hidden = false;
    this.titleIn.focus();
  }

  private snapshot(): ShareData {
    const s = this.hooks.snapshot();
    s.title = stripBidi(this.titleIn.value).trim() || undefined;
    s.description = stripBidi(this.descIn.value).trim() || undefined;
    if (!this.stepIn.checked) s.step = undefined;
    return s;
  }

  private async create(): Promise<void> {
    const snap = this.snapshot();
    this.createBtn.disabled = true;
    setChildren(this.result, h("p.share-note", "Saving…"));
    try {
      const r = await fetch("/api/share", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(snap),
      });
      const body = (await r.json().catch(() => ({}))) as Partial<api.ShareResponse & api.ApiError>;
      if (!r.ok || !body.url) {
        const msg = body.error ?? `HTTP ${r.status}`;
        setChildren(this.result, h("p.share-error", { role: "alert" }, msg));
        if (r.status === 503) this.linkBtn.focus();
        return;
      }
      const url = new URL(body.url, location.href).href;
      const embed = new URL(body.embed ?? `/embed/${body.id}`, location.href).href;
      this.showLinks(url, embed);
    } catch (e) {
      setChildren(this.result, h("p.share-error", { role: "alert" }, `Could not reach the server: ${(e as Error).message}. Try a link-only share.`));
    } finally {
      this.createBtn.disabled = false;
    }
  }

  private async linkOnly(): Promise<void> {
    try {
      const frag = await encodeLinkOnly(this.snapshot());
      const url = `${location.origin}/${frag}`;
      if (url.length > MAX_LINK_ONLY) {
        setChildren(this.result, h("p.share-error", { role: "alert" },
          `This kernel makes a ${url.length.toLocaleString()}-character link, too long to paste reliably (at most ${MAX_LINK_ONLY.toLocaleString()}): create a stored link instead.`));
        return;
      }
      this.showLinks(url, null);
    } catch (e) {
      setChildren(this.result, h("p.share-error", { role: "alert" }, `Could not build the link: ${(e as Error).message}`));
    }
  }

  private showLinks(url: string, embed: string | null): void {
    const field = (id: string, label: string, value: string) => {
      const input = h(`input#${id}`, { type: "text", readonly: "", value }) as HTMLInputElement;
      input.addEventListener("focus", () => input.select());
      return h("div.share-link",
        h("label", { for: id }, label),
        h("div.share-row", input,
          h("button.btn", { type: "button", onclick: () => void this.copy(value, input) }, "Copy")));
    };
    const rows = [field("pg-share-url", "Link", url)];
    if (embed) {
      rows.push(field("pg-share-embed", "Embed in a course page or slides",
        `<iframe src="${embed}" width="960" height="600" style="border:0" title="PTX Playground" loading="lazy"></iframe>`));
    }
    setChildren(this.result, ...rows);
    const first = this.result.querySelector<HTMLInputElement>("input");
    first?.focus();
    first?.select();
    void this.copy(url, null, true);
  }

  private async copy(text: string, input: HTMLInputElement | null, quiet = false): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.hooks.toast(quiet ? "Link created and copied to the clipboard." : "Copied.", "info");
    } catch {
      input?.select();
      if (!quiet) this.hooks.toast("Press Ctrl+C to copy the selected text.", "info");
      else this.hooks.toast("Link created.", "info");
    }
  }
}
