// The PTX language mode: a stream tokenizer that tells directives, opcodes
// and their modifiers, types, state spaces, registers, special registers,
// guards, labels, numbers, strings and comments apart.

import { HighlightStyle, StreamLanguage, LanguageSupport, syntaxHighlighting, indentService } from "@codemirror/language";
import type { StringStream } from "@codemirror/language";
import { Tag, tags as t } from "@lezer/highlight";
import { ptxSpaces, ptxSpecialRegisters, ptxTypes, ptxVectorWidths } from "./api_gen";

export const ptxTags = {
  directive: Tag.define(t.processingInstruction),
  opcode: Tag.define(t.keyword),
  modifier: Tag.define(t.modifier),
  type: Tag.define(t.typeName),
  space: Tag.define(t.modifier),
  register: Tag.define(t.variableName),
  special: t.special(t.variableName),
  guard: Tag.define(t.controlOperator),
  labelDef: Tag.define(t.labelName),
  label: Tag.define(t.labelName),
  name: Tag.define(t.name),
};

// The words come from engine/isa and the special-register table
// (api_gen.ts, generated): a type the emulator learns is highlighted.
// .v2/.v4/.v8 read as part of the type.
const typeWords = new Set([...ptxTypes, ...ptxVectorWidths]);

const spaceWords = new Set(ptxSpaces);

const specialWords = new Set(ptxSpecialRegisters);

/** Whether a %name is a special register (%tid.x, %laneid, …). */
export function isSpecialRegister(name: string): boolean {
  return specialWords.has(name);
}

interface PtxState {
  /** Inside a block comment. */
  comment: boolean;
  /** The next word starts an instruction (after ;, {, }, a label or a guard). */
  start: boolean;
  /** Right after an opcode or modifier: an adjacent ".word" is a modifier. */
  inOp: boolean;
  /** The opcode of the current instruction. */
  op: string;
}

const labelOps = new Set(["bra", "brx", "call"]);

function modToken(word: string): string {
  const base = word.split("::")[0];
  if (typeWords.has(base)) return "type";
  if (spaceWords.has(base)) return "space";
  return "modifier";
}

/** The tokenizer (exported for ui/test/ptx_tokens.ts). */
export const ptxParser = {
  name: "ptx",
  startState: (): PtxState => ({ comment: false, start: true, inOp: false, op: "" }),
  token(stream: StringStream, s: PtxState): string | null {
    if (s.comment) {
      if (stream.skipTo("*/")) {
        stream.pos += 2;
        s.comment = false;
      } else {
        stream.skipToEnd();
      }
      return "comment";
    }
    if (stream.sol()) s.inOp = false;
    if (stream.eatSpace()) {
      s.inOp = false;
      return null;
    }
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      s.comment = true;
      if (stream.skipTo("*/")) {
        stream.pos += 2;
        s.comment = false;
      } else {
        stream.skipToEnd();
      }
      return "comment";
    }
    const ch = stream.peek() ?? "";
    if (ch === '"') {
      stream.next();
      let escaped = false;
      for (let c = stream.next(); c !== undefined; c = stream.next()) {
        if (c === '"' && !escaped) break;
        escaped = !escaped && c === "\\";
      }
      return "string";
    }
    if (ch === "@") {
      if (stream.match(/^@!?%?[A-Za-z_$][\w$]*/)) {
        s.start = true;
        return "guard";
      }
      stream.next();
      return null;
    }
    if (ch === ".") {
      const m = stream.match(/^\.[A-Za-z_][\w$]*(::[\w$]+)*/) as RegExpMatchArray | null;
      if (m) {
        const word = m[0].slice(1);
        if (s.inOp) return modToken(word);
        s.start = false;
        const base = word.split("::")[0];
        if (typeWords.has(base)) return "type";
        if (spaceWords.has(base)) return "space";
        return "directive";
      }
      if (stream.match(/^\.\d+([eE][+-]?\d+)?/)) return "number";
      stream.next();
      return null;
    }
    s.inOp = false;
    if (ch === "%") {
      const m = stream.match(/^%[A-Za-z_$][\w$]*(\.[xyzw])?/) as RegExpMatchArray | null;
      if (m) {
        s.start = false;
        return isSpecialRegister(m[0]) ? "special" : "register";
      }
      stream.next();
      return null;
    }
    if (/\d/.test(ch)) {
      if (
        stream.match(/^0[fF][0-9a-fA-F]{8}/) ||
        stream.match(/^0[dD][0-9a-fA-F]{16}/) ||
        stream.match(/^0[xX][0-9a-fA-F]+U?/) ||
        stream.match(/^0[bB][01]+U?/) ||
        stream.match(/^\d+\.\d*([eE][+-]?\d+)?/) ||
        stream.match(/^\d+[eE][+-]?\d+/) ||
        stream.match(/^\d+U?/)
      ) {
        s.start = false;
        return "number";
      }
    }
    if (/[A-Za-z_$]/.test(ch)) {
      const m = stream.match(/^[A-Za-z_$][\w$]*/) as RegExpMatchArray | null;
      const word = m ? m[0] : "";
      if (stream.peek() === ":" && !stream.string.startsWith("::", stream.pos)) {
        stream.next();
        s.start = true;
        return "labelDef";
      }
      if (s.start) {
        s.start = false;
        s.inOp = true;
        s.op = word;
        return "opcode";
      }
      if (labelOps.has(s.op)) return "label";
      return "name";
    }
    stream.next();
    if (ch === ";" || ch === "{" || ch === "}") {
      s.start = true;
      s.op = "";
    }
    return null;
  },
  blankLine(s: PtxState) {
    s.inOp = false;
  },
  tokenTable: {
    directive: ptxTags.directive,
    opcode: ptxTags.opcode,
    modifier: ptxTags.modifier,
    type: ptxTags.type,
    space: ptxTags.space,
    register: ptxTags.register,
    special: ptxTags.special,
    guard: ptxTags.guard,
    labelDef: ptxTags.labelDef,
    label: ptxTags.label,
    name: ptxTags.name,
  },
  languageData: {
    commentTokens: { line: "//", block: { open: "/*", close: "*/" } },
    closeBrackets: { brackets: ["(", "[", "{", '"'] },
  },
};

export const ptxLanguage = StreamLanguage.define<PtxState>(ptxParser);

/** Highlighting by class: the colours live in app.css (both themes). */
export const ptxHighlight = HighlightStyle.define([
  { tag: t.comment, class: "tk-comment" },
  { tag: ptxTags.directive, class: "tk-directive" },
  { tag: ptxTags.opcode, class: "tk-opcode" },
  { tag: ptxTags.modifier, class: "tk-modifier" },
  { tag: ptxTags.type, class: "tk-type" },
  { tag: ptxTags.space, class: "tk-space" },
  { tag: ptxTags.register, class: "tk-register" },
  { tag: ptxTags.special, class: "tk-special" },
  { tag: ptxTags.guard, class: "tk-guard" },
  { tag: ptxTags.labelDef, class: "tk-labeldef" },
  { tag: ptxTags.label, class: "tk-label" },
  { tag: ptxTags.name, class: "tk-name" },
  { tag: t.number, class: "tk-number" },
  { tag: t.string, class: "tk-string" },
]);

/** Indentation: one tab inside braces, none at the top level and for labels. */
const ptxIndent = indentService.of((cx, pos) => {
  const doc = cx.state.doc;
  let depth = 0;
  const upto = doc.lineAt(pos).from;
  const text = doc.sliceString(0, upto);
  for (const ch of text.replace(/\/\/.*$|\/\*[\s\S]*?\*\/|"(?:[^"\\]|\\.)*"/gm, "")) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
  }
  const after = doc.lineAt(pos).text.trimStart();
  if (after.startsWith("}")) depth = Math.max(0, depth - 1);
  return depth * cx.unit;
});

export function ptx(): LanguageSupport {
  return new LanguageSupport(ptxLanguage, [syntaxHighlighting(ptxHighlight), ptxIndent]);
}
