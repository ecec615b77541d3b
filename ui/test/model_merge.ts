// Runs the client model's merge of state messages (model.ts) over a
// recorded command sequence, and after each command compares what it holds
// with a model given one fresh full state of the same position. The input
// is globalThis.mergeInput; the verdict is one line of JSON on the console.
// sessions/ts_merge_test.go records the sequence, bundles this file with
// esbuild and runs it under node.

import { Model } from "../model";
import type { Loaded, State } from "../proto";

interface Command {
  desc: string;
  /** The state messages the command's reply carried, in order. */
  states: State[];
  /** A fresh full state of the position the command reached. */
  fresh: State;
}

interface Input {
  loaded: Loaded;
  commands: Command[];
}

/** JSON with every object's keys sorted (a merged object's key order is its history's). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function run(input: Input): Record<string, unknown> {
  const m = new Model();
  m.applyLoaded(input.loaded);
  let deltas = 0;
  for (const [i, c] of input.commands.entries()) {
    for (const st of c.states) {
      if (!st.full) deltas++;
      m.applyState(st);
    }
    const f = new Model();
    f.applyLoaded(input.loaded);
    f.applyState(c.fresh);
    const got = canonical(m.sortedCtas());
    const want = canonical(f.sortedCtas());
    if (got !== want) return { fail: i, desc: c.desc, got, want };
    // The model holds every field of a CTA the state sent (a new CTA field
    // needs no code in the merge).
    for (const sent of c.fresh.ctas ?? []) {
      const held = f.ctas.get(sent.cta) as unknown as Record<string, unknown> | undefined;
      for (const [k, v] of Object.entries(sent)) {
        if (k === "warps") continue;
        if (canonical(held?.[k]) !== canonical(v)) return { fail: i, desc: `${c.desc}: CTA ${sent.cta} field ${k}`, got: canonical(held?.[k]), want: canonical(v) };
      }
    }
  }
  return { ok: input.commands.length, deltas };
}

console.log(JSON.stringify(run((globalThis as unknown as { mergeInput: Input }).mergeInput)));
