// Tokenizes the lines of globalThis.ptxLines with the PTX language mode
// (ptxlang.ts) and prints, per line, its tokens as [text, style] pairs.
// ui/ptxlang_test.go bundles this file with esbuild and runs it under node.

import { StringStream } from "@codemirror/language";
import { ptxParser } from "../ptxlang";

const lines = (globalThis as unknown as { ptxLines: string[] }).ptxLines;
const state = ptxParser.startState();
const out: [string, string | null][][] = [];
for (const line of lines) {
  const toks: [string, string | null][] = [];
  const s = new StringStream(line, 4, 4);
  while (!s.eol()) {
    s.start = s.pos;
    const style = ptxParser.token(s, state);
    if (s.pos === s.start) s.pos++;
    toks.push([line.slice(s.start, s.pos), style]);
  }
  out.push(toks);
}
console.log(JSON.stringify(out));
