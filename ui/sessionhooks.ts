// What the session client and the app say to each other: the hooks the app
// gives it, which kernel a load's spec is for, and a load that replays to a
// position with what the user is told when it gets there.

import type { Change } from "./model";
import type { Compiled, HelloCuda, Loaded, Message, State } from "./proto";

export interface SessionHooks {
  /** A short message for the user. */
  toast(msg: string, kind: "error" | "info"): void;
  /** A fresh session is open (first connect or a reconnect). */
  opened(reconnect: boolean): void;
  /** The server ended the session (reclaimed or expired): the connection is idle until the next action. */
  parked(code: string, message: string): void;
  /** A program was loaded (not a remap). */
  loaded(m: Loaded): void;
  /** A state was merged (after the model emitted its changes). */
  state(m: State, ch: Set<Change>): void;
  /** The launch completed, faulted or spent its budget. */
  done(result: Record<string, unknown>): void;
  /** The diagnostics of a `check`: sameProgram tells a comment-only edit. */
  checked(items: Message[], sameProgram: boolean, otherKernel: boolean): void;
  /** A CUDA compile's result (of a `compile` or a CUDA `load`). */
  compiled?(m: Compiled): void;
  /** The server's CUDA support (the hello's). */
  cuda?(c: HelloCuda | undefined): void;
}

/** Which kernel a load's spec was made for (a `loaded`'s kernelSig; none:
 * the spec comes with the source), or that the launch is to be inferred. */
export interface LaunchFor {
  kernel?: string;
  infer?: boolean;
}

/** A load that replays to a position: where it should get to. */
export interface Replay {
  id: number;
  at: number;
  why: "edit" | "reconnect" | "restore" | "share";
  sawLoaded: boolean;
}

/** What a toast says of how a replay to a position went. */
export function replayText(r: Replay, m: State): string {
  const what = r.why === "reconnect" ? "Reconnected to a new session" : r.why === "restore" ? "Restored your draft" : r.why === "share" ? "Opened the shared kernel" : "Recompiled";
  if (m.step === r.at) return `${what}: replayed to step ${r.at.toLocaleString("en-US")}.`;
  if (m.status === "done" || m.status === "fault") {
    return `${what}: the kernel now ${m.status === "done" ? "finishes" : "faults"} at step ${m.step.toLocaleString("en-US")}, before step ${r.at.toLocaleString("en-US")}.`;
  }
  return `${what}: replayed to step ${m.step.toLocaleString("en-US")} of ${r.at.toLocaleString("en-US")} (${m.message || m.reason}).`;
}
