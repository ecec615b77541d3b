// Hover docs in kernel.cu: the names the prelude provides (qualifiers,
// built-in variables, intrinsics, atomics, the math library with its
// accuracy), from cudadocs_gen.ts, generated from docs/cuda.md.

import type { EditorView, Tooltip } from "@codemirror/view";
import { h } from "./dom";
import { preludeNames } from "./cudalang";

/** The hover source of the CUDA editor. */
export function cudaHover(view: EditorView, pos: number, side: -1 | 1): Tooltip | null {
  const line = view.state.doc.lineAt(pos);
  const at = pos - line.from;
  const re = /[A-Za-z_]\w*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line.text))) {
    const from = m.index;
    const to = from + m[0].length;
    if (at < from || at > to || (side < 0 && at === to)) continue;
    const d = preludeNames.get(m[0]);
    if (!d) return null;
    return {
      pos: line.from + from,
      end: line.from + to,
      above: true,
      create: () => ({
        dom: h("div.hover.cuda-hover",
          h("div.hover-head", h("code.hover-name", d.name), h("span.hover-meta", ` ${d.group}`)),
          h("div.hover-doc", d.doc)),
      }),
    };
  }
  return null;
}
