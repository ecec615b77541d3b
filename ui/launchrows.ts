// The launch form's buffer and parameter rows: a buffer's name, element
// type, count, initial contents and output flag; a parameter's kind and
// value (a buffer address, raw bytes or scalars), with reordering.

import type { Spec, SpecBuffer, SpecInit, SpecParam, SpecValue } from "./proto";
import { elemTypes } from "./proto";
import { h } from "./dom";

/** What a row needs of the panel: its spec, and upd, which applies a change
 * (f), re-renders the form when rerender is set and reports the change. */
export interface RowContext {
  spec(): Spec;
  upd(f: () => void, rerender?: boolean): void;
}

type InitKind = "zero" | "values" | "iota" | "fill" | "random" | "bytes";

const initKinds: [InitKind, string][] = [
  ["zero", "zeros"], ["values", "values"], ["iota", "iota (start + i·step)"], ["fill", "fill"], ["random", "random"], ["bytes", "raw bytes"],
];

/** A spec value from what the user typed: a JSON number when it is one and survives as one, else the text. */
export function toValue(text: string): SpecValue {
  const s = text.trim();
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(s)) {
    const n = Number(s);
    if (/^-?\d+$/.test(s)) return Number.isSafeInteger(n) ? n : s;
    if (Number.isFinite(n)) return n;
  }
  return s;
}

function valueText(v: SpecValue | undefined): string {
  return v === undefined ? "" : String(v);
}

function listText(vs: SpecValue[] | undefined): string {
  return (vs ?? []).map(valueText).join(", ");
}

function parseList(text: string): SpecValue[] {
  return text.split(/[,\s]+/).filter((x) => x !== "").map(toValue);
}

function initKind(i: SpecInit | undefined): InitKind {
  if (!i) return "zero";
  if (i.values) return "values";
  if (i.iota) return "iota";
  if (i.fill !== undefined) return "fill";
  if (i.random) return "random";
  if (i.bytes !== undefined) return "bytes";
  return "zero";
}

/** The kind of a parameter: "buffer", "bytes", "tensorMap" or its scalar type. */
function paramKind(p: SpecParam): string {
  if ("buffer" in p) return "buffer";
  if ("bytes" in p) return "bytes";
  if ("tensorMap" in p) return "tensorMap";
  return Object.keys(p)[0] ?? "u32";
}

function typeSelect(value: string, label: string, onchange: (v: string) => void, extra: [string, string][] = []): HTMLSelectElement {
  const sel = h("select.small", { "aria-label": label },
    extra.map(([v, l]) => h("option", { value: v }, l)),
    elemTypes.map((t) => h("option", { value: t }, t)));
  sel.value = value;
  sel.addEventListener("change", () => onchange(sel.value));
  return sel;
}

function text(value: string, label: string, onchange: (v: string) => void, cls = "text", placeholder = ""): HTMLInputElement {
  const input = h("input", { type: "text", class: cls, value, "aria-label": label, placeholder, spellcheck: "false" });
  input.addEventListener("change", () => onchange(input.value));
  return input;
}

/** The row of buffer i of the spec. */
export function bufferRow(ctx: RowContext, b: SpecBuffer, i: number): HTMLElement {
  const bufs = ctx.spec().buffers!;
  const kind = initKind(b.init);
  const upd = ctx.upd;
  const initFields: (HTMLElement | string)[] = [];
  const init = b.init ?? {};
  switch (kind) {
    case "values":
      initFields.push(text(listText(init.values), `${b.name} values`, (v) => upd(() => { b.init = { values: parseList(v) }; }), "text wide", "1, 2.5, -1, 0x3f800000"));
      break;
    case "iota":
      initFields.push("start", text(valueText(init.iota?.start), `${b.name} iota start`, (v) => upd(() => { b.init = { iota: { ...b.init?.iota, start: toValue(v || "0") } }; }), "text short", "0"),
        "step", text(valueText(init.iota?.step), `${b.name} iota step`, (v) => upd(() => { b.init = { iota: { ...b.init?.iota, step: toValue(v || "1") } }; }), "text short", "1"));
      break;
    case "fill":
      initFields.push(text(valueText(init.fill), `${b.name} fill value`, (v) => upd(() => { b.init = { fill: toValue(v || "0") }; }), "text short", "0"));
      break;
    case "random":
      initFields.push("seed", text(String(init.random?.seed ?? 1), `${b.name} random seed`, (v) => upd(() => { b.init = { random: { ...b.init?.random, seed: Math.max(0, Math.floor(Number(v) || 0)) } }; }), "text short"),
        "min", text(valueText(init.random?.min), `${b.name} random min`, (v) => upd(() => { const r = { ...b.init!.random! }; if (v.trim()) r.min = toValue(v); else delete r.min; b.init = { random: r }; }), "text short", "default"),
        "max", text(valueText(init.random?.max), `${b.name} random max`, (v) => upd(() => { const r = { ...b.init!.random! }; if (v.trim()) r.max = toValue(v); else delete r.max; b.init = { random: r }; }), "text short", "default"));
      break;
    case "bytes":
      initFields.push(text(init.bytes ?? "", `${b.name} bytes`, (v) => upd(() => { b.init = { bytes: v.trim() }; }), "text wide mono", "hex, memory order"));
      break;
    case "zero":
      break;
  }
  const kindSel = h("select.small", { "aria-label": `${b.name} initial contents` }, initKinds.map(([k, l]) => h("option", { value: k }, l)));
  kindSel.value = kind;
  kindSel.addEventListener("change", () => upd(() => {
    switch (kindSel.value as InitKind) {
      case "zero": delete b.init; break;
      case "values": b.init = { values: [] }; break;
      case "iota": b.init = { iota: { start: 0, step: 1 } }; break;
      case "fill": b.init = { fill: 0 }; break;
      case "random": b.init = { random: { seed: 1 } }; break;
      case "bytes": b.init = { bytes: "" }; break;
    }
  }, true));
  const count = h("input.num", { type: "number", min: 0, value: b.count ?? "", "aria-label": `${b.name} element count`, title: "element count" });
  count.addEventListener("change", () => upd(() => {
    const n = Math.max(0, Math.floor(Number(count.value) || 0));
    b.count = n;
  }));
  const out = h("input", { type: "checkbox", checked: b.output !== false, "aria-label": `${b.name} is an output`, title: "Report this buffer in the run's result" });
  out.addEventListener("change", () => upd(() => {
    if (out.checked) delete b.output;
    else b.output = false;
  }));
  return h("div.buf-row",
    text(b.name, `buffer ${i} name`, (v) => upd(() => {
      const old = b.name;
      b.name = v.trim();
      // Parameters follow the rename.
      for (const p of ctx.spec().params ?? []) if (p.buffer === old) p.buffer = b.name;
    }, true), "text name mono"),
    typeSelect(b.type, `${b.name} element type`, (v) => upd(() => { b.type = v; })),
    h("span.times", "×"), count,
    kindSel, h("span.init-fields", initFields),
    h("label.check", { title: "Report this buffer in the run's result" }, out, "out"),
    h("button.icon", { type: "button", title: `Remove ${b.name}`, "aria-label": `Remove buffer ${b.name}`, onclick: () => upd(() => { bufs.splice(i, 1); }, true) }, "×"));
}

/** The row of parameter i of the spec (bufNames: the buffers it can point at). */
export function paramRow(ctx: RowContext, p: SpecParam, i: number, bufNames: string[]): HTMLElement {
  const params = ctx.spec().params!;
  const kind = paramKind(p);
  const upd = ctx.upd;
  const kindSel = typeSelect(kind, `parameter ${i} kind`, (v) => upd(() => {
    if (v === "buffer") params[i] = { buffer: bufNames[0] ?? "" };
    else if (v === "bytes") params[i] = { bytes: "" };
    else if (v === "tensorMap") params[i] = { tensorMap: { buffer: bufNames[0] ?? "", dataType: "f32", globalDim: [32], boxDim: [32] } };
    else {
      const old = kind !== "buffer" && kind !== "bytes" && kind !== "tensorMap" ? p[kind] : 0;
      params[i] = { [v]: old ?? 0 };
    }
  }, true), [["buffer", "buffer address"], ["bytes", "raw bytes"], ["tensorMap", "tensor map"]]);
  let fields: HTMLElement[] = [];
  if (kind === "buffer") {
    const sel = h("select.small", { "aria-label": `parameter ${i} buffer` },
      bufNames.map((n) => h("option", { value: n }, n)),
      bufNames.includes(String(p.buffer)) ? null : h("option", { value: String(p.buffer ?? "") }, `${p.buffer ?? ""} (missing)`));
    sel.value = String(p.buffer ?? "");
    sel.addEventListener("change", () => upd(() => { p.buffer = sel.value; }));
    const off = h("input.num", { type: "number", min: 0, value: (p.offset as number | undefined) ?? "", placeholder: "0", "aria-label": `parameter ${i} byte offset`, title: "byte offset into the buffer" });
    off.addEventListener("change", () => upd(() => {
      const n = Math.max(0, Math.floor(Number(off.value) || 0));
      if (n) p.offset = n;
      else delete p.offset;
    }));
    fields = [sel, h("span.muted", "+"), off, h("span.unit", "bytes")];
  } else if (kind === "bytes") {
    fields = [text(String(p.bytes ?? ""), `parameter ${i} bytes`, (v) => upd(() => { p.bytes = v.trim(); }), "text wide mono", "hex, memory order")];
  } else if (kind === "tensorMap") {
    // The map's fields as JSON (docs/launch-spec.md: the arguments of
    // cuTensorMapEncodeTiled); text that is not a JSON object is kept in
    // the box, marked, and not applied.
    const input = text(JSON.stringify(p.tensorMap ?? {}), `parameter ${i} tensor map`, () => {}, "text wide mono", '{"buffer": "a", "dataType": "f16", "globalDim": [64, 64], "boxDim": [64, 8]}');
    input.title = "The tensor map as JSON: buffer, dataType, globalDim, globalStrides, boxDim, elementStrides, interleave, swizzle, oobFill";
    input.addEventListener("change", () => {
      let v: unknown;
      try { v = JSON.parse(input.value); } catch { v = undefined; }
      const ok = typeof v === "object" && v !== null && !Array.isArray(v);
      input.classList.toggle("invalid", !ok);
      input.setAttribute("aria-invalid", ok ? "false" : "true");
      if (ok) upd(() => { p.tensorMap = v; });
    });
    fields = [input];
  } else {
    const v = p[kind];
    const shown = Array.isArray(v) ? listText(v as SpecValue[]) : valueText(v as SpecValue);
    fields = [text(shown, `parameter ${i} value`, (nv) => upd(() => {
      const list = parseList(nv);
      p[kind] = Array.isArray(v) || list.length > 1 ? list : list[0] ?? 0;
    }), "text wide mono", "value (several: an array)")];
  }
  const move = (d: number) => upd(() => {
    const j = i + d;
    if (j < 0 || j >= params.length) return;
    [params[i], params[j]] = [params[j], params[i]];
  }, true);
  return h("div.param-row",
    h("span.param-no", String(i)),
    kindSel, h("span.param-fields", fields),
    h("span.spacer"),
    h("button.icon", { type: "button", title: "Move up", "aria-label": `Move parameter ${i} up`, disabled: i === 0, onclick: () => move(-1) }, "↑"),
    h("button.icon", { type: "button", title: "Move down", "aria-label": `Move parameter ${i} down`, disabled: i === params.length - 1, onclick: () => move(1) }, "↓"),
    h("button.icon", { type: "button", title: "Remove", "aria-label": `Remove parameter ${i}`, onclick: () => upd(() => { params.splice(i, 1); }, true) }, "×"));
}
