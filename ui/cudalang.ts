// The CUDA C++ language mode of kernel.cu: a stream tokenizer for C++
// (keywords, types, numbers, strings, comments, preprocessor lines) that
// marks CUDA's qualifiers and the names the prelude provides (the hover
// table, cudadocs_gen.ts, generated from docs/cuda.md) as built-ins.

import { HighlightStyle, LanguageSupport, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import type { StringStream } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import { cudaDocs } from "./cudadocs_gen";

const keywords = new Set(("if else for while do switch case default break continue return goto sizeof typedef struct class union enum " +
  "template typename namespace using static extern inline const volatile constexpr auto asm __asm__ true false nullptr " +
  "static_assert operator new delete this public private protected virtual friend").split(" "));
const types = new Set(("void bool char short int long float double signed unsigned size_t int8_t uint8_t int16_t uint16_t int32_t " +
  "uint32_t int64_t uint64_t half __half __half2 __nv_bfloat16 __nv_bfloat162 dim3").split(" "));
/** The prelude's names (qualifiers, built-in variables, intrinsics, math). */
export const preludeNames = new Map(cudaDocs.map((d) => [d.name, d]));

interface CState {
  comment: boolean;
}

function token(s: StringStream, st: CState): string | null {
  if (st.comment) {
    if (s.skipTo("*/")) {
      s.pos += 2;
      st.comment = false;
    } else s.skipToEnd();
    return "comment";
  }
  if (s.sol() && s.match(/^\s*#\s*\w+/)) {
    s.skipToEnd();
    return "meta";
  }
  if (s.eatSpace()) return null;
  if (s.match("//")) {
    s.skipToEnd();
    return "comment";
  }
  if (s.match("/*")) {
    st.comment = true;
    return token(s, st) ?? "comment";
  }
  if (s.match(/^"(?:[^"\\]|\\.)*"?/) || s.match(/^'(?:[^'\\]|\\.)*'?/)) return "string";
  if (s.match(/^(?:0x[\da-f]+|\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)[uUlLfF]*/i)) return "number";
  const w = s.match(/^[A-Za-z_]\w*/) as RegExpMatchArray | null;
  if (w) {
    const word = w[0];
    if (keywords.has(word)) return "keyword";
    if (types.has(word) || /^(u?(char|short|int|long|longlong)|float|double)[1-4]$/.test(word)) return "typeName";
    if (preludeNames.has(word)) return /^__(global|device|host|shared|constant|managed|restrict|forceinline|noinline|launch_bounds|align|grid_constant)__$/.test(word) ? "modifier" : "standard";
    return "variableName";
  }
  s.next();
  return "operator";
}

const cudaLanguage = StreamLanguage.define<CState>({
  name: "cuda",
  startState: () => ({ comment: false }),
  token,
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } }, closeBrackets: { brackets: ["(", "[", "{", "'", '"'] } },
  tokenTable: { standard: t.standard(t.variableName), meta: t.processingInstruction },
});

const cudaHighlight = HighlightStyle.define([
  { tag: t.keyword, class: "tk-opcode" },
  { tag: t.modifier, class: "tk-space" },
  { tag: t.typeName, class: "tk-type" },
  { tag: t.standard(t.variableName), class: "tk-special" },
  { tag: t.processingInstruction, class: "tk-directive" },
  { tag: t.comment, class: "tk-comment" },
  { tag: t.string, class: "tk-string" },
  { tag: t.number, class: "tk-number" },
]);

/** The CUDA C++ mode. */
export function cudaLang(): LanguageSupport {
  return new LanguageSupport(cudaLanguage, [syntaxHighlighting(cudaHighlight)]);
}
