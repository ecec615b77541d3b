// The editor's help while typing: hover docs (instructions, special
// registers and, through the hooks, register values) and completion.

import type { EditorState, Text } from "@codemirror/state";
import type { EditorView, Tooltip } from "@codemirror/view";
import { syntaxTree } from "@codemirror/language";
import type { CompletionContext, CompletionResult, Completion } from "@codemirror/autocomplete";
import { isSpecialRegister } from "./ptxlang";
import { isaDocs, isaDocsNow, opcodeOf, specialOf } from "./isa";
import { h } from "./dom";
import type { EditorHooks } from "./editor";

// ---- hover docs ----

function wordAt(doc: Text, pos: number): { from: number; to: number; text: string } | null {
  const line = doc.lineAt(pos);
  const s = line.text;
  let a = pos - line.from;
  let b = a;
  const ok = (c: string) => /[\w.%$:]/.test(c);
  while (a > 0 && ok(s[a - 1])) a--;
  while (b < s.length && ok(s[b])) b++;
  if (a === b) return null;
  let text = s.slice(a, b);
  // A label definition's colon is not part of the word.
  if (text.endsWith(":") && !text.endsWith("::")) {
    text = text.slice(0, -1);
    b--;
  }
  return { from: line.from + a, to: line.from + b, text };
}

function tokenAt(state: EditorState, pos: number): string {
  const node = syntaxTree(state).resolveInner(pos, 1);
  return node.type.name;
}

export function hoverSource(hooks: EditorHooks) {
  return async (view: EditorView, pos: number, side: -1 | 1): Promise<Tooltip | null> => {
    const w = wordAt(view.state.doc, pos);
    if (!w) return null;
    if (side < 0 && pos === w.to) return null;
    const docs = isaDocsNow() ?? (await isaDocs());
    const tok = tokenAt(view.state, Math.min(pos, w.to - 1) + (pos === w.to ? 0 : 0));
    let body: HTMLElement | null = null;
    if (w.text.startsWith("%")) {
      const name = w.text.replace(/[.:]+$/, "");
      const sp = isSpecialRegister(name) ? specialOf(name, docs) : undefined;
      const values = hooks.registerHover(name);
      if (!sp && !values) return null;
      body = h("div.hover",
        sp && h("div.hover-head", h("code.hover-name", sp.name), sp.bits ? h("span.hover-meta", ` .u${sp.bits}`) : null),
        sp?.doc && h("div.hover-doc", sp.doc),
        !sp && h("div.hover-head", h("code.hover-name", name)),
        values);
    } else if (/opcode|modifier|type|space/.test(tok) || tok === "") {
      const op = opcodeOf(w.text.replace(/^@!?%?\w+\s*/, ""), docs);
      if (!op || !/opcode|modifier|type|space/.test(tok)) return null;
      body = h("div.hover",
        h("div.hover-head", h("code.hover-name", op.name),
          op.family && h("span.hover-meta", ` ${op.family}`),
          op.status && op.status !== "supported" && h("span.hover-status", op.status)),
        op.syntax && h("pre.hover-syntax", op.syntax),
        op.doc && h("div.hover-doc", op.doc),
        hooks.instructionHover?.(view.state.doc.lineAt(pos).number) ?? null);
    }
    if (!body) return null;
    const el = body;
    return { pos: w.from, end: w.to, above: true, create: () => ({ dom: el }) };
  };
}

// ---- completion ----

const directives = [
  ".version", ".target", ".address_size", ".visible", ".extern", ".weak", ".entry", ".func", ".param", ".reg",
  ".local", ".shared", ".global", ".const", ".align", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
  ".pragma", ".file", ".loc", ".section",
];

export function completeSource(context: CompletionContext): CompletionResult | null {
  const word = context.matchBefore(/[%.]?[\w$]+(\.[\w$]*)*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const docs = isaDocsNow();
  if (!docs) {
    void isaDocs();
    return null;
  }
  const text = word.text;
  const options: Completion[] = [];
  if (text.startsWith("%")) {
    for (const s of docs.specials.values()) options.push({ label: s.name, type: "variable", info: s.doc });
    // Registers declared in the document.
    const seen = new Set<string>();
    const re = /\.reg\s+\.\w+\s+(%[\w$]+)(?:<(\d+)>)?/g;
    const src = context.state.doc.toString();
    for (let m = re.exec(src); m; m = re.exec(src)) {
      const n = m[2] ? Math.min(Number(m[2]), 64) : 0;
      if (n) for (let i = 0; i < n; i++) seen.add(m[1] + i);
      else seen.add(m[1]);
    }
    for (const r of seen) options.push({ label: r, type: "variable", boost: 1 });
  } else if (text.startsWith(".") && !text.slice(1).includes(".")) {
    const line = context.state.doc.lineAt(word.from);
    const before = line.text.slice(0, word.from - line.from);
    if (!/\S$/.test(before)) for (const d of directives) options.push({ label: d, type: "keyword" });
    else return null;
  } else if (!text.includes(".")) {
    const line = context.state.doc.lineAt(word.from);
    const before = line.text.slice(0, word.from - line.from);
    if (!/^\s*(@!?%?[\w$]+\s+)?$/.test(before) && !/^\s*[\w$]+:\s*$/.test(before)) return null;
    for (const o of docs.ops.values()) {
      options.push({ label: o.name, type: "keyword", detail: o.family, info: o.doc });
    }
  } else return null;
  return { from: word.from, options, validFor: /^[%.]?[\w$]*(\.[\w$]*)*$/ };
}
