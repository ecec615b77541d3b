// The words the model and its views share: the selection, what a change
// touched, the unit of Back, the edit state, a view scoped to the program.

export interface Selection {
  cta: number;
  warp: number;
}

export type Change =
  | "loaded" | "warps" | "regs" | "memory" | "status" | "fault" | "events" | "selection" | "breakpoints"
  | "diagnostics" | "source" | "conn" | "divergence" | "lineMemory" | "regPage" | "threads" | "compare" | "tma"
  /** The descriptor view of a wgmma.mma_async (an inspect reply's). */
  | "wgmma"
  /** Another program (or none): emitted once, with "loaded", after the model dropped one. */
  | "program"
  | "printf";

export type Granularity = "warp" | "round" | "barrier" | "source-line";

/** How the editor's text and launch relate to the loaded program. */
export type EditState =
  | "clean" // what runs is what the editor shows
  | "pending" // edited; the server has not answered yet
  | "changed"; // edited; the run is kept until the user recompiles or starts fresh

/** A view's state that belongs to the program shown (a selected
 * instruction, a live picture, a position in a buffer): forgotten, and
 * drawn again, whenever the model drops its program. */
export interface ProgramScoped {
  programChanged(): void;
}
