// Code generated from sessions/protocol.go and engine/launchspec/spec.go by cmd/protogen; DO NOT EDIT.
// The websocket protocol of docs/protocol.md, as sent on the wire, and the launch spec of
// docs/launch-spec.md.

export const protocolVersion = 6;

/** A keyed delta of T (sessions/delta.go): the key K, and every other field
 * that changed: its new value, or null when it became absent. */
export type KeyedDelta<T, K extends keyof T> = Pick<T, K> & { [P in Exclude<keyof T, K>]?: T[P] | null };

export const severityValues = ["error", "warning", "note"] as const;
export type Severity = (typeof severityValues)[number];

export const memSpaceValues = ["global", "shared"] as const;
export type MemSpace = (typeof memSpaceValues)[number];

export const warningSpaceValues = ["global", "shared", "reg"] as const;
export type WarningSpace = (typeof warningSpaceValues)[number];

export const accessKindValues = ["load", "store", "atomic"] as const;
export type AccessKind = (typeof accessKindValues)[number];

export const paramRoleValues = ["pointer", "scalar", "unused"] as const;
export type ParamRole = (typeof paramRoleValues)[number];

export const groupStateValues = ["runnable", "waiting", "in-call", "suspended", "sync-wait", "barrier-wait", "at-wait"] as const;
export type GroupState = (typeof groupStateValues)[number];

export const pickReasonValues = ["only", "round-robin", "stack"] as const;
export type PickReason = (typeof pickReasonValues)[number];

export const warpRunStateValues = ["ready", "waiting", "exited", "faulted"] as const;
export type WarpRunState = (typeof warpRunStateValues)[number];

export const waitKindValues = ["barrier", "async-group", "warp-sync", "mbarrier", "cluster-barrier", "wgmma-group"] as const;
export type WaitKind = (typeof waitKindValues)[number];

export const laneReasonValues = ["running", "turn", "reconvergence", "sync", "call", "suspended", "exited", "barrier", "async-group", "warp-sync", "mbarrier", "cluster-barrier", "wgmma-group"] as const;
export type LaneReason = (typeof laneReasonValues)[number];

export const compareOutcomeValues = ["done", "fault", "deadlock", "budget", "interrupted"] as const;
export type CompareOutcome = (typeof compareOutcomeValues)[number];

export const noticeCodeValues = ["history-trimmed"] as const;
export type NoticeCode = (typeof noticeCodeValues)[number];

export const compileErrorCodeValues = ["not-installed", "busy", "limit", "cancelled", "bad-request"] as const;
export type CompileErrorCode = (typeof compileErrorCodeValues)[number];

export const cudaSeverityValues = ["error", "warning", "note"] as const;
export type CudaSeverity = (typeof cudaSeverityValues)[number];

export const schedulingValues = ["independent", "simt-stack"] as const;
export type Scheduling = (typeof schedulingValues)[number];

export interface Message {
  severity: Severity;
  id: string;
  file?: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  message: string;
  notes?: DiagNote[];
}

export interface DiagNote {
  file?: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  message: string;
}

export interface Limits {
  maxWarpInstructions: number;
  maxSourceBytes: number;
  maxBufferBytes: number;
  idleSeconds: number;
  maxMessageBytes: number;
  maxStepCount: number;
  maxInspectBytes: number;
}

export interface HelloCuda {
  available: boolean;
  message?: string;
  arches: string[];
  defaultArch: string;
}

export interface Hello {
  type: "hello";
  v: number;
  limits: Limits;
  cuda: HelloCuda;
}

export interface Diagnostics {
  type: "diagnostics";
  id?: number;
  items: Message[];
  check?: boolean;
  sameProgram?: boolean;
  otherKernel?: boolean;
}

export interface LineInfo {
  line: number;
  pcs: number[];
}

export interface RegInfo {
  slot: number;
  name: string;
  type: string;
}

export interface PredInfo {
  slot: number;
  name: string;
}

export interface BufferInfo {
  name: string;
  type: string;
  count: number;
  addr: string;
}

export interface SymbolInfo {
  name: string;
  func?: string;
  space: string;
  type: string;
  size: number;
  offset: number;
  addr?: string;
  line: number;
}

export interface KernelParam {
  name: string;
  type: string;
  size: number;
  array?: number;
  role: ParamRole;
  elemType?: string;
  access?: string;
  use?: string;
}

export interface Kernel {
  name: string;
  params: KernelParam[];
  reqntid?: number[];
  maxntid?: number[];
}

export interface Mismatch {
  field: string;
  param: number;
  id: string;
  message: string;
  blocking: boolean;
}

export interface LaunchNote {
  param: number;
  text: string;
}

export interface LaunchFix {
  mismatches: Mismatch[];
  notes: LaunchNote[];
  spec?: Record<string, unknown>;
  applied: boolean;
  inferred?: boolean;
}

export interface TensorOp {
  pc: number;
  line: number;
  cudaLine?: number;
  key: string;
  regs: Record<string, number[]>;
}

export interface CfgBlock {
  func: string;
  first: number;
  last: number;
  firstLine: number;
  lastLine: number;
  firstCudaLine?: number;
  lastCudaLine?: number;
  succ: number[];
  branch?: number;
  divergent?: boolean;
  reconv?: number;
}

export interface Cfg {
  blocks: CfgBlock[];
  truncated?: boolean;
  maxBlocks: number;
}

export interface CudaOptions {
  arch: string;
  opt: number;
  fastMath: boolean;
}

export interface CudaLoaded {
  options: CudaOptions;
  lines: LineInfo[];
}

export interface Loaded {
  type: "loaded";
  id?: number;
  entry: string;
  grid: number[];
  block: number[];
  cluster: number[];
  warpsPerCTA: number;
  residentCTAs: number;
  totalCTAs: number;
  sharedBytes: number;
  lines: LineInfo[];
  regs: RegInfo[];
  preds: PredInfo[];
  regCount: number;
  predCount: number;
  regPages: number;
  buffers: BufferInfo[];
  symbols: SymbolInfo[];
  remapped?: boolean;
  kernelSig: string;
  kernels: Kernel[];
  launch?: LaunchFix;
  tensorOps: TensorOp[];
  cfg: Cfg | null;
  scheduling: string;
  defaultScheduling: string;
  targetSM: number;
  cuda?: CudaLoaded;
}

export interface CudaSource {
  source: string;
  arch?: string;
  opt?: number;
  fastMath?: boolean;
}

export interface CudaDiagnostic {
  severity: CudaSeverity;
  line: number;
  col: number;
  message: string;
  inPrelude?: boolean;
}

export interface CompileError {
  code: CompileErrorCode;
  limit?: string;
  message: string;
}

export interface Compiled {
  type: "compiled";
  id?: number;
  ok: boolean;
  ptx: string;
  diagnostics: CudaDiagnostic[];
  options: CudaOptions;
  ptxToCuda: number[];
  cached: boolean;
  refused?: boolean;
  durationMs: number;
  error?: CompileError;
}

export interface Stats {
  warpInstructions: number;
  threadInstructions: number;
}

export interface WarpRef {
  cta: number;
  warp: number;
}

export interface TensorReport {
  key: string;
  matrices?: MatrixRows[];
  operands?: TensorRegs[];
}

export interface MatrixRows {
  index: number;
  reg: number;
  write: boolean;
  rowBytes: number;
  space: string;
  lanes: number[];
  addrs: string[];
  offsets?: string[];
}

export interface TensorRegs {
  name: string;
  write: boolean;
  regs: number[];
}

export interface LiveSwizzle {
  kind: AccessKind;
  name: string;
  mode: string;
  atom?: string;
  b: number;
  m: number;
  s: number;
  base: number;
  stride: number;
  affine?: LiveAffine;
  size: number;
  unit: number;
  rowBytes: number;
  tileBase: number;
  rows: number;
  lanes: number[];
  offsets: number[];
  logical: number[];
  wavefronts: number;
  ideal: number;
  logicalWavefronts: number;
}

export interface LiveAffine {
  base: number;
  stride: number;
}

export interface LastInfo {
  cta: number;
  linear: number;
  warp: number;
  pc: number;
  line: number;
  cudaLine?: number;
  mask: string;
  execMask: string;
  tensor?: TensorReport;
  op: string;
  accesses?: Access[];
  accessesOmitted?: number;
  swizzle?: LiveSwizzle;
}

export interface Barrier {
  id: number;
  arrived: number;
  expected: number;
  waiting: number[];
}

export interface Mbarrier {
  offset: string;
  name?: string;
  valid: boolean;
  phase: number;
  pending: number;
  expected: number;
  tx: number;
  missing: string;
  waiting: MbarrierWait[];
}

export interface MbarrierWait {
  warp: number;
  lanes: string;
  parity: number;
  pc: number;
  line: number;
  cudaLine?: number;
}

export interface StackEntry {
  pc: number;
  rpc: number;
  mask: string;
}

export interface AsyncCopy {
  lane: number;
  pc: number;
  line: number;
  cudaLine?: number;
  group: number;
  committed: boolean;
  src: string;
  dst: number;
  size: number;
}

export interface AsyncGroup {
  group: number;
  committed: boolean;
  copies: number;
  bytes: number;
  lanes: string;
  lines: number[];
  cudaLines?: number[];
}

export interface AsyncWork {
  copies: number;
  bytes: number;
  committed: number;
  open: number;
  groups: AsyncGroup[];
  items: AsyncCopy[];
  more?: number;
  groupsMore?: number;
}

export interface WgmmaGroup {
  group: number;
  committed: boolean;
  ops: number;
  lines: number[];
}

export interface WgmmaWork {
  ops: number;
  committed: number;
  open: number;
  groups: WgmmaGroup[];
  groupsMore?: number;
}

export interface WgmmaFields {
  start: number;
  lbo: number;
  sbo: number;
  baseOffset: number;
  swizzle: string;
  reserved?: string;
}

export interface WgmmaDescView {
  name: string;
  reg: string;
  value: string;
  differs?: number;
  desc: WgmmaFields;
  major: string;
  type: string;
  elemBits: number;
  rows: number;
  k: number;
  error?: string;
  notes?: string[];
  addr?: number[];
  logical?: number[];
  core?: number[];
  coreCols?: number;
  bits?: number[];
}

export interface WgmmaView {
  pc: number;
  line: number;
  cudaLine?: number;
  form: string;
  sharedBytes: number;
  operands: WgmmaDescView[];
}

export interface WaitInfo {
  kind: WaitKind;
  pc: number;
  line: number;
  cudaLine?: number;
  lanes: string;
  text: string;
  barrier?: number;
  count?: number;
  groups?: number;
  members?: string;
  addr?: string;
  parity?: number;
  arrived?: number;
  expected?: number;
}

export interface ThreadGroup {
  pc: number;
  line: number;
  cudaLine?: number;
  lanes: string;
  state: GroupState;
  reconv: number;
  reconvLine: number;
  reconvCudaLine?: number;
  waitLeft?: number;
  picked?: boolean;
  depth?: number;
  awaits?: string;
}

export interface IssueInfo {
  pc: number;
  line: number;
  cudaLine?: number;
  lanes: string;
  reason: PickReason;
  after?: number;
  prev?: PrevIssue;
}

export interface PrevIssue {
  pc: number;
  line: number;
  cudaLine?: number;
  lanes: string;
}

export interface LaneWait {
  lane: number;
  reason: LaneReason;
  pc: number;
  line: number;
  cudaLine?: number;
  waitLeft?: number;
  awaits?: string;
  group: number;
  with?: string;
  above?: string;
  reconv?: number;
  reconvLine?: number;
  reconvCudaLine?: number;
}

export interface WarpThreads {
  cta: number;
  warp: number;
  groups: ThreadGroup[];
  groupsOmitted?: number;
  last: IssueInfo | null;
  lanes: LaneWait[];
}

export interface TmaView {
  source: string;
  cta: number;
  linear: number;
  warp: number;
  lane: number;
  pc: number;
  line: number;
  cudaLine?: number;
  op?: string;
  direction?: string;
  reduction?: string;
  multicast?: string;
  coords: number[];
  mapAddr?: string;
  map?: TensorMapInfo;
  shared?: string;
  sharedRank: number;
  sharedOffset: number;
  mbarrier?: string;
  error?: string;
  box?: TmaBox;
  tile?: TmaTile;
}

export interface TensorMapInfo {
  globalAddress: string;
  buffer?: string;
  bufferOffset: number;
  dataType: string;
  rank: number;
  globalDim: number[];
  globalStrides: number[];
  boxDim: number[];
  elementStrides: number[];
  interleave: string;
  swizzle: string;
  swizzleAtom?: string;
  oobFill: string;
}

export interface TmaBox {
  elems: number[];
  elemBytes: number;
  bytes: number;
  elements: number;
  oob: number;
  x: number[];
  rows: TmaRow[];
  rowsOmitted: number;
}

export interface TmaRow {
  coords: number[];
  inLo: number;
  inHi: number;
}

export interface TmaTile {
  mode: string;
  atom?: string;
  rowBytes: number;
  rows: number;
  totalRows: number;
  base: number;
  bytes: number;
}

export interface WarpState {
  warp: number;
  pc: number;
  line: number;
  cudaLine?: number;
  state: WarpRunState;
  wait?: WaitInfo;
  barrier?: number;
  active: string;
  valid: string;
  exited: string;
  stack: StackEntry[];
  depth: number;
  groups?: ThreadGroup[];
  groupsOmitted?: number;
  groupWaits?: WaitInfo[];
  async?: AsyncWork;
  wgmma?: WgmmaWork;
}

export type WarpDelta = KeyedDelta<WarpState, "warp">;

export interface CtaDelta {
  cta: number;
  idx: number[];
  linear: number;
  clusterIdx: number[];
  clusterLinear: number;
  rank: number;
  barriers: Barrier[];
  mbarriers: Mbarrier[];
  mbarriersOmitted: number;
  warps: WarpDelta[] | null;
}

export interface EventInfo {
  kind: string;
  step: number;
  cta: number;
  warp: number;
  pc: number;
  line: number;
  cudaLine?: number;
  mask: string;
  other?: string;
  reconv?: number;
  target?: number;
  id?: number;
  count?: number;
  expected?: number;
  relaxed?: boolean;
  addr?: string;
  warps?: BarrierWarp[];
}

export interface RegValues {
  cta: number;
  warp: number;
  values: Record<string, string[]>;
  preds: Record<string, string>;
  page?: number;
  pages?: number;
  names?: RegInfo[];
  predNames?: PredInfo[];
}

export interface MemChunk {
  space: MemSpace;
  buffer?: string;
  cta?: number;
  offset: number;
  hex: string;
}

export interface Access {
  kind: AccessKind;
  space: MemSpace;
  size: number;
  cta?: number;
  buffer?: string;
  offsets: (number | null)[];
  lanes: string;
  shared?: BankVerdict;
  global?: SectorVerdict;
}

export interface BankVerdict {
  banks: number[];
  waves: number[];
  wavefronts: number;
  ideal: number;
  conflict: string;
  broadcast: string;
}

export interface SectorVerdict {
  sectors: number;
  lines: number;
  requested: number;
  moved: number;
  efficiency: number;
}

export interface BarrierWarp {
  cta: number;
  warp: number;
  barrier: number;
  pc: number;
  line: number;
  cudaLine?: number;
  lanes: string;
}

export interface Fault {
  kind: string;
  message: string;
  pc: number;
  line: number;
  col: number;
  cudaLine?: number;
  cta: number[];
  thread: number[];
  warp: number;
  lane: number;
  address?: string;
  lanes: string;
  waiting?: BarrierWarp[];
}

export interface LineExec {
  line: number;
  lanes: number;
  warps: number;
}

export interface Timeline {
  cta: number;
  warp: number;
  steps: number[];
  pcs: number[];
  active: number[];
  marks: number[];
}

export interface Divergence {
  from: number;
  upTo: number;
  truncated?: boolean;
  lines: LineExec[];
  timeline: Timeline;
}

export interface LineMemory {
  line: number;
  shared?: boolean;
  global?: boolean;
  executions: number;
  wavefronts: number;
  idealWavefronts: number;
  sectors: number;
  lines: number;
  bytesRequested: number;
}

export interface WarningInfo {
  kind: string;
  space: WarningSpace;
  pc: number;
  line: number;
  cta: number[];
  thread: number[];
  prevPc: number;
  cudaLine?: number;
  prevCudaLine?: number;
  prevLine: number;
  prevCta: number[];
  prevThread: number[];
  offset: number;
  count: number;
  capped: boolean;
  step: number;
  text: string;
}

export interface Warnings {
  list: WarningInfo[];
  dropped: boolean;
}

export interface PrintfLine {
  step: number;
  pc: number;
  line: number;
  cudaLine?: number;
  cta: number[];
  thread: number[];
  text: string;
  cut?: boolean;
  note?: string;
}

export interface PrintfUpdate {
  keep: number;
  lines: PrintfLine[];
  dropped: number;
  limit: number;
  note?: string;
}

export interface State {
  type: "state";
  id?: number;
  step: number;
  steps: number;
  firstStep: number;
  running: boolean;
  status: string;
  reason: string;
  message?: string;
  full: boolean;
  stats: Stats;
  finishedCTAs: number;
  totalCTAs: number;
  next: WarpRef | null;
  last: LastInfo | null;
  ctas?: CtaDelta[];
  events?: EventInfo[];
  regs?: RegValues;
  changedRegs?: number[];
  memory?: MemChunk[];
  memoryStale?: boolean;
  fault: Fault | null;
  divergence?: Divergence;
  lineMemory?: LineMemory[];
  lineMemoryDelta?: LineMemory[];
  warnings?: Warnings;
  scheduling: string;
  threads?: WarpThreads;
  tma?: TmaView;
  printf?: PrintfUpdate;
}

export interface LineMemoryMsg {
  type: "line-memory";
  id?: number;
  delta: LineMemory[];
}

export interface PrintfMsg {
  type: "printf";
  id?: number;
  lines: PrintfLine[];
}

export interface Breakpoints {
  type: "breakpoints";
  id?: number;
  lines: number[];
  cudaLines: number[];
}

export interface Inspect {
  type: "inspect";
  id?: number;
  cta: number;
  linear: number;
  warp: number;
  regs: RegValues | null;
  memory?: MemChunk;
  divergence?: Divergence;
  threads?: WarpThreads;
  tma?: TmaView;
  wgmma?: WgmmaView;
}

export interface OmittedBuffer {
  name: string;
  type: string;
  bytes: number;
}

export interface Done {
  type: "done";
  id?: number;
  result: Record<string, unknown>;
  buffersOmitted?: boolean;
  omittedBuffers?: OmittedBuffer[];
}

export interface Read {
  type: "read";
  id?: number;
  memory: MemChunk;
  size: number;
}

export interface CompareRun {
  scheduling: string;
  outcome: CompareOutcome;
  warpInstructions: number;
  fault?: CompareFault;
  current: boolean;
}

export interface CompareFault {
  kind: string;
  message: string;
  line: number;
}

export interface ElemDiff {
  index: number;
  values: string[];
}

export interface BufferDiff {
  name: string;
  elements: number;
  samples: ElemDiff[];
}

export interface SchedulingCompare {
  type: "scheduling-compare";
  id?: number;
  budget: number;
  runs: CompareRun[];
  same: boolean;
  differences: string[];
  buffers: BufferDiff[];
  buffersOmitted?: number;
  cancelled?: boolean;
}

export interface ErrorMsg {
  type: "error";
  id?: number;
  code: string;
  message: string;
}

export interface Notice {
  type: "notice";
  code: NoticeCode;
  message: string;
  firstStep: number;
}

export interface MemRequest {
  space: string;
  buffer?: string;
  cta?: number;
  offset: number;
  bytes: number;
}

export interface ClientMsg {
  type: string;
  id?: number;
  source?: string;
  spec?: unknown;
  granularity?: string;
  count?: number;
  step?: number;
  at?: number;
  maxWarpInstructions?: number;
  line?: number;
  on?: boolean;
  cta?: number;
  warp?: number;
  memory?: MemRequest;
  regPage?: number;
  wgmmaPC?: number;
  divergence?: boolean;
  kernel?: string;
  inferLaunch?: boolean;
  cuda?: CudaSource;
  cudaLine?: number;
}

/** Every message the server sends. */
export type ServerMsg =
  | Hello
  | Diagnostics
  | Loaded
  | Compiled
  | State
  | LineMemoryMsg
  | PrintfMsg
  | Breakpoints
  | Inspect
  | Done
  | Read
  | SchedulingCompare
  | ErrorMsg
  | Notice;

export type SpecValue = number | string;

export interface SpecIota {
  start?: SpecValue;
  step?: SpecValue;
}

export interface SpecRandom {
  seed: number;
  min?: SpecValue;
  max?: SpecValue;
}

export interface SpecInit {
  values?: SpecValue[];
  iota?: SpecIota;
  fill?: SpecValue;
  bytes?: string;
  random?: SpecRandom;
}

export interface SpecBuffer {
  name: string;
  type: string;
  count?: number;
  init?: SpecInit;
  output?: boolean;
}

export type SpecParam = Record<string, unknown>;

export interface SpecCudaOptions {
  arch?: string;
  opt?: number;
  fastMath?: boolean;
}

export interface Spec {
  version?: number;
  comment?: string;
  ptx?: string;
  source?: string;
  cuda?: string;
  cudaOptions?: SpecCudaOptions;
  entry?: string;
  grid: number[];
  block: number[];
  cluster?: number[];
  dynamicSharedBytes?: number;
  maxWarpInstructions?: number;
  scheduling?: Scheduling;
  buffers?: SpecBuffer[];
  params?: SpecParam[];
}
