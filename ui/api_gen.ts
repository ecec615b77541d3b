// Code generated from web/*.go and engine/isa by cmd/protogen; DO NOT EDIT.
// The answers of the REST API (/api/isa, /api/fragments, /api/swizzle, /api/examples,
// /api/share) and the PTX words the editor highlights.

import type { Spec } from "./proto_gen";

export const opStatusValues = ["supported", "planned", "unsupported"] as const;
export type OpStatus = (typeof opStatusValues)[number];

export const swizzlePatternValues = ["row", "column", "ldmatrix"] as const;
export type SwizzlePattern = (typeof swizzlePatternValues)[number];

export const lessonPanelValues = ["editor", "warps", "regs", "memory", "launch", "events", "fragments", "divergence", "swizzle", "tma", "console"] as const;
export type LessonPanel = (typeof lessonPanelValues)[number];

export interface IsaOpcode {
  name: string;
  family: string;
  status: OpStatus;
  syntax: string;
  doc: string;
}

export interface IsaSpecial {
  name: string;
  bits: number;
  dynamic?: boolean;
  doc: string;
}

export interface IsaDoc {
  opcodes: IsaOpcode[];
  specials: IsaSpecial[];
}

export type FragElem = [number, number, number, number, number];

export interface FragOperand {
  name: string;
  rows: number;
  cols: number;
  type: string;
  regs: number;
  elems: FragElem[];
  addrLanes?: number[];
  copies?: number;
}

export interface SparseInfo {
  k: number;
  chunk: number;
  span: number;
  indexBits: number;
  values?: number[];
  threads: number;
  selectors: number;
  kcols: number[][];
}

export interface FragInstr {
  key: string;
  op: string;
  shape: string;
  operands: FragOperand[];
  notes?: string;
  groups?: number;
  sparse?: SparseInfo;
}

export interface FragmentDoc {
  instructions: FragInstr[];
  wgmma: string[];
}

export interface SwizzleLane {
  lane: number;
  row: number;
  byte: number;
  words: number[];
  banks: number[];
  conflict?: boolean;
}

export interface SwizzleAccess {
  pattern: SwizzlePattern;
  sel: number;
  lanes: SwizzleLane[];
  wavefronts: number;
  ideal: number;
}

export interface SwizzleDoc {
  name: string;
  formula: string;
  equivalent?: string;
  patternBytes: number;
  baseOffset: number;
  table?: number[][];
  base: number;
  rowBytes: number;
  rows: number;
  unit: number;
  cells: number[][][];
  access: SwizzleAccess[];
}

export interface HintShows {
  wavefronts: number;
  ideal?: number;
  swizzle: string;
}

export interface LessonHint {
  line: number;
  cudaLine?: number;
  ptx?: string;
  code?: string;
  panel: LessonPanel;
  text: string;
  shows?: HintShows;
}

export interface ExpectIota {
  start: number;
  step: number;
}

export interface ExpectBuffer {
  buffer: string;
  iota?: ExpectIota;
  fill?: number;
  values?: number[];
  check?: string;
  of?: string[];
}

export interface LessonExpect {
  result: string;
  buffers: ExpectBuffer[];
}

export interface Lesson {
  explanation: string;
  hints: LessonHint[];
  expect: LessonExpect;
}

export interface CUDAInfo {
  lesson: Lesson | null;
}

export interface ExampleInfo {
  name: string;
  title: string;
  description: string;
  entry: string;
  grid: number[];
  block: number[];
  lesson?: Lesson;
  link?: string;
  cuda?: CUDAInfo;
}

export interface CUDAOptions {
  arch?: string;
  opt?: number;
  fastMath?: boolean;
}

export interface CUDAExample {
  source: string;
  spec: unknown;
  options: CUDAOptions;
  lesson: Lesson | null;
}

export interface ExampleData {
  name: string;
  title: string;
  description: string;
  source: string;
  spec: Spec;
  lesson?: Lesson;
  cuda?: CUDAExample;
}

export interface ShareCuda {
  source: string;
  arch?: string;
  opt?: number;
  fastMath?: boolean;
}

export interface ShareData {
  id: string;
  title?: string;
  description?: string;
  source: string;
  spec: Spec;
  view?: Record<string, unknown>;
  step?: number;
  example?: string;
  cuda?: ShareCuda;
  lesson?: Lesson;
}

export interface ShareResponse {
  id: string;
  url: string;
  embed: string;
  created: boolean;
}

export interface ApiError {
  error: string;
}

/** PTX type names (engine/isa: the emulator's types, then the ISA's alternate formats it does not implement). */
export const ptxTypes: readonly string[] = [
  "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32",
  "u64", "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16",
  "bf16x2", "tf32", "f32", "f64", "e4m3", "e5m2", "e4m3x2", "e5m2x2",
  "u16x2", "s16x2", "pred", "f32x2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2",
  "e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4",
];

/** The vector modifiers (engine/isa). */
export const ptxVectorWidths: readonly string[] = [
  "v2", "v4", "v8",
];

/** The state spaces (engine/isa). */
export const ptxSpaces: readonly string[] = [
  "generic", "reg", "sreg", "const", "global", "local", "param", "shared",
  "shared::cluster", "tex", "shared::cta",
];

/** The special registers (engine/isa), with the vector registers' bare names (%tid). */
export const ptxSpecialRegisters: readonly string[] = [
  "%aggr_smem_size", "%clock", "%clock64", "%clock_hi", "%cluster_ctaid", "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z",
  "%cluster_ctarank", "%cluster_nctaid", "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z", "%cluster_nctarank", "%clusterid", "%clusterid.x",
  "%clusterid.y", "%clusterid.z", "%ctaid", "%ctaid.x", "%ctaid.y", "%ctaid.z", "%current_graph_exec", "%dynamic_smem_size",
  "%envreg0", "%envreg1", "%envreg10", "%envreg11", "%envreg12", "%envreg13", "%envreg14", "%envreg15",
  "%envreg16", "%envreg17", "%envreg18", "%envreg19", "%envreg2", "%envreg20", "%envreg21", "%envreg22",
  "%envreg23", "%envreg24", "%envreg25", "%envreg26", "%envreg27", "%envreg28", "%envreg29", "%envreg3",
  "%envreg30", "%envreg31", "%envreg4", "%envreg5", "%envreg6", "%envreg7", "%envreg8", "%envreg9",
  "%globaltimer", "%globaltimer_hi", "%globaltimer_lo", "%gridid", "%is_explicit_cluster", "%laneid", "%lanemask_eq", "%lanemask_ge",
  "%lanemask_gt", "%lanemask_le", "%lanemask_lt", "%nclusterid", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z", "%nctaid",
  "%nctaid.x", "%nctaid.y", "%nctaid.z", "%nsmid", "%ntid", "%ntid.x", "%ntid.y", "%ntid.z",
  "%nwarpid", "%pm0", "%pm0_64", "%pm1", "%pm1_64", "%pm2", "%pm2_64", "%pm3",
  "%pm3_64", "%pm4", "%pm4_64", "%pm5", "%pm5_64", "%pm6", "%pm6_64", "%pm7",
  "%pm7_64", "%reserved_smem_offset_2", "%reserved_smem_offset_begin", "%reserved_smem_offset_cap", "%reserved_smem_offset_end", "%smid", "%tid", "%tid.x",
  "%tid.y", "%tid.z", "%total_smem_size", "%warpid",
];
