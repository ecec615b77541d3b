package sessions

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Wire formats of docs/protocol.md (version 3). 64-bit values travel as
// lowercase hex strings without leading zeros or "0x".

// ProtocolVersion is the `v` of the hello message.
const ProtocolVersion = 6

// ---- client → server ----

type clientMsg struct {
	Type                string          `json:"type"`
	ID                  *int64          `json:"id,omitempty"`
	Source              *string         `json:"source,omitempty"`
	Spec                json.RawMessage `json:"spec,omitempty"`
	Granularity         string          `json:"granularity,omitempty"`
	Count               *int            `json:"count,omitempty"`
	Step                *int64          `json:"step,omitempty"`
	At                  *int64          `json:"at,omitempty"`
	MaxWarpInstructions *int64          `json:"maxWarpInstructions,omitempty"`
	Line                *int            `json:"line,omitempty"`
	On                  *bool           `json:"on,omitempty"`
	CTA                 *int            `json:"cta,omitempty"`
	Warp                *int            `json:"warp,omitempty"`
	Memory              *memRequest     `json:"memory,omitempty"`
	// RegPage (inspect): the page of the register file to send.
	RegPage *int `json:"regPage,omitempty"`
	// WgmmaPC (inspect): the wgmma.mma_async whose descriptor view to send
	// (wgmma_view.go), for the warp inspected.
	WgmmaPC *int `json:"wgmmaPC,omitempty"`
	// Divergence (load): turn the divergence data on or off with it.
	Divergence *bool `json:"divergence,omitempty"`
	// Kernel (load): the kernel the spec was made for, as a `loaded`'s
	// kernelSig named it. When the source's kernel differs (another name,
	// or other parameters), the spec is not its launch: the session runs
	// the launch inferred from the kernel alone and keeps nothing of it.
	Kernel *string `json:"kernel,omitempty"`
	// InferLaunch (load): ignore the spec but for its entry and run the
	// launch inferred from the kernel (what `ptxplay init` writes).
	InferLaunch *bool `json:"inferLaunch,omitempty"`
	// CUDA (compile; load instead of source): CUDA C++ and its options.
	CUDA *cudaJSON `json:"cuda,omitempty"`
	// CUDALine (breakpoint instead of line): a CUDA line of the loaded
	// program's CUDA source.
	CUDALine *int `json:"cudaLine,omitempty"`
}

type memRequest struct {
	Space  string `json:"space"`
	Buffer string `json:"buffer,omitempty"`
	CTA    *int   `json:"cta,omitempty"`
	Offset int64  `json:"offset"`
	Bytes  int    `json:"bytes"`
}

// maxInspectBytes bounds an inspect memory range and the memory a state
// carries.
const maxInspectBytes = 64 << 10

// ---- server → client ----

type errorMsg struct {
	Type    string `json:"type"`
	ID      *int64 `json:"id,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// noticeMsg tells the client something the server did to its session on
// its own. code "history-trimmed": the server was low on memory and shrank
// the history (fewer snapshots; or, when firstStep moved, the oldest steps
// dropped).
type noticeMsg struct {
	Type      string     `json:"type"`
	Code      noticeCode `json:"code"`
	Message   string     `json:"message"`
	FirstStep int64      `json:"firstStep"`
}

// noticeCode names a notice; noticeCodes lists them (the generated
// TypeScript union NoticeCode).
type noticeCode string

const noticeHistoryTrimmed noticeCode = "history-trimmed"

var noticeCodes = []noticeCode{noticeHistoryTrimmed}

type helloMsg struct {
	Type   string      `json:"type"`
	V      int         `json:"v"`
	Limits helloLimits `json:"limits"`
	// CUDA says whether this server compiles CUDA (the CUDA mode's
	// options, or why it cannot).
	CUDA helloCUDA `json:"cuda"`
}

// helloCUDA: available, the targets a compile takes and the default one;
// else message says why not and how to install clang.
type helloCUDA struct {
	Available   bool     `json:"available"`
	Message     string   `json:"message,omitempty"`
	Arches      []string `json:"arches"`
	DefaultArch string   `json:"defaultArch"`
}

type helloLimits struct {
	MaxWarpInstructions int64 `json:"maxWarpInstructions"`
	MaxSourceBytes      int   `json:"maxSourceBytes"`
	MaxBufferBytes      int64 `json:"maxBufferBytes"`
	IdleSeconds         int64 `json:"idleSeconds"`
	MaxMessageBytes     int   `json:"maxMessageBytes"`
	MaxStepCount        int   `json:"maxStepCount"`
	MaxInspectBytes     int   `json:"maxInspectBytes"`
}

type diagnosticsMsg struct {
	Type  string        `json:"type"`
	ID    *int64        `json:"id,omitempty"`
	Items []ptx.Message `json:"items"`
	// The reply to a check (not a load): the loaded program stays.
	Check bool `json:"check,omitempty"`
	// SameProgram (check): the source differs from the loaded program's
	// only in comments and white space.
	SameProgram bool `json:"sameProgram,omitempty"`
	// OtherKernel (check): the source compiles, a program is loaded, and
	// the source does not hold the loaded kernel (by name and parameters):
	// loading it starts another kernel with its own launch, not a replay.
	OtherKernel bool `json:"otherKernel,omitempty"`
}

type loadedMsg struct {
	Type  string `json:"type"`
	ID    *int64 `json:"id,omitempty"`
	Entry string `json:"entry"`
	Grid  [3]int `json:"grid"`
	Block [3]int `json:"block"`
	// Cluster is the launch's cluster shape (CTAs per cluster in each
	// dimension; [1,1,1] without clusters).
	Cluster      [3]int     `json:"cluster"`
	WarpsPerCTA  int        `json:"warpsPerCTA"`
	ResidentCTAs int        `json:"residentCTAs"`
	TotalCTAs    int        `json:"totalCTAs"`
	SharedBytes  int        `json:"sharedBytes"`
	Lines        []lineJSON `json:"lines"`
	Regs         []regJSON  `json:"regs"`
	Preds        []predJSON `json:"preds"`
	// RegCount and PredCount are the kernel's user registers and
	// predicates; when Regs or Preds list fewer (RegPages > 1), the
	// register file is paged (see regsJSON).
	RegCount  int          `json:"regCount"`
	PredCount int          `json:"predCount"`
	RegPages  int          `json:"regPages"`
	Buffers   []bufferJSON `json:"buffers"`
	Symbols   []symbolJSON `json:"symbols"`
	// Remapped: the source changed only in comments and white space; the
	// machine and its history stay, lines are renumbered.
	Remapped bool `json:"remapped,omitempty"`
	// KernelSig names the kernel that runs with its parameters' types and
	// sizes ("name(u64:8,u32:4)"): the client sends it back as a load's
	// kernel, so that a launch follows only the kernel it was made for.
	KernelSig string `json:"kernelSig"`
	// Kernels lists the module's kernels with their parameters' roles.
	Kernels []launch.Kernel `json:"kernels"`
	// Launch: the spec does not fit the kernel.
	Launch *launchFixJSON `json:"launch,omitempty"`
	// TensorOps lists the tensor-core instructions of the kernel and its
	// callees: their fragment layout (a key of /api/fragments) and, per
	// operand, the register slots its elements' register indices refer to.
	TensorOps []tensorOpJSON `json:"tensorOps"`
	// CFG is the control-flow graph of the kernel and its callees (the
	// divergence view).
	CFG *cfgJSON `json:"cfg"`
	// Scheduling is the launch's scheduling model ("independent" or
	// "simt-stack"); DefaultScheduling the one the module's .target picks
	// when the spec names none (TargetSM: its sm_NN, 0 when it names none).
	Scheduling        string `json:"scheduling"`
	DefaultScheduling string `json:"defaultScheduling"`
	TargetSM          int    `json:"targetSM"`
	// CUDA: the program was compiled from CUDA (a load with "cuda").
	CUDA *cudaLoadedJSON `json:"cuda,omitempty"`
}

type tensorOpJSON struct {
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int              `json:"cudaLine,omitempty"`
	Key      string           `json:"key"`
	Regs     map[string][]int `json:"regs"`
}

// launchFixJSON says how the load's spec fits the kernel. With applied, a
// mismatch would have stopped the launch, so the session runs spec (the
// launch inferred from the kernel, keeping what still fits); else it runs
// the client's spec and spec is the one-click fix. Inferred: the spec was
// made for another kernel (or the load asked for inference), so the
// session runs spec, the launch inferred from the kernel alone.
type launchFixJSON struct {
	Mismatches []launch.Mismatch `json:"mismatches"`
	Notes      []launch.Note     `json:"notes"`
	Spec       json.RawMessage   `json:"spec,omitempty"`
	Applied    bool              `json:"applied"`
	Inferred   bool              `json:"inferred,omitempty"`
}

type lineJSON struct {
	Line int   `json:"line"`
	PCs  []int `json:"pcs"`
}

type regJSON struct {
	Slot int    `json:"slot"`
	Name string `json:"name"`
	Type string `json:"type"`
}

type predJSON struct {
	Slot int    `json:"slot"`
	Name string `json:"name"`
}

// symbolJSON is a variable of the module or of a function body in
// .global, .const or .shared: shared and const variables have an offset
// in their space, global ones an address.
type symbolJSON struct {
	Name   string `json:"name"`
	Func   string `json:"func,omitempty"`
	Space  string `json:"space"`
	Type   string `json:"type"`
	Size   int    `json:"size"`
	Offset uint64 `json:"offset"`
	Addr   string `json:"addr,omitempty"`
	Line   int    `json:"line"`
}

type bufferJSON struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Count int    `json:"count"`
	Addr  string `json:"addr"`
}

// stateMsg is a full state or a delta (see docs/protocol.md). Additions to
// the documented shape: firstStep (the earliest step still reachable by
// back/seek), message (why a limit stopped the command), memoryStale, and
// "cta" (linear CTA index) on shared-memory entries.
type stateMsg struct {
	Type         string      `json:"type"`
	ID           *int64      `json:"id,omitempty"`
	Step         int64       `json:"step"`
	Steps        int64       `json:"steps"`
	FirstStep    int64       `json:"firstStep"`
	Running      bool        `json:"running"`
	Status       string      `json:"status"`
	Reason       string      `json:"reason"`
	Message      string      `json:"message,omitempty"`
	Full         bool        `json:"full"`
	Stats        emu.Stats   `json:"stats"`
	FinishedCTAs int         `json:"finishedCTAs"`
	TotalCTAs    int         `json:"totalCTAs"`
	Next         *warpRef    `json:"next"`
	Last         *lastJSON   `json:"last"`
	CTAs         []ctaJSON   `json:"ctas,omitempty"`
	Events       []eventJSON `json:"events,omitempty"`
	Regs         *regsJSON   `json:"regs,omitempty"`
	ChangedRegs  []int       `json:"changedRegs,omitempty"`
	Memory       []memJSON   `json:"memory,omitempty"`
	MemoryStale  bool        `json:"memoryStale,omitempty"`
	Fault        *faultJSON  `json:"fault"`
	// Divergence comes while the client has the divergence data on.
	Divergence *divergenceJSON `json:"divergence,omitempty"`
	// LineMemory is the whole per-line memory analysis up to this step,
	// sent when the client holds none (the first state of a launch).
	LineMemory *[]lineMemJSON `json:"lineMemory,omitempty"`
	// LineMemoryDelta updates the table the client holds to this step's:
	// each entry replaces its line's entry, one with no executions
	// removes the line. Absent when nothing changed.
	LineMemoryDelta []lineMemJSON `json:"lineMemoryDelta,omitempty"`
	// Warnings are the race and memory checker's findings up to this
	// step, exactly those a run from the start to it finds; sent when they
	// changed since the previous state (and in full states).
	Warnings *warningsJSON `json:"warnings,omitempty"`
	// Scheduling is the launch's scheduling model: "independent" or
	// "simt-stack".
	Scheduling string `json:"scheduling"`
	// Threads is the selected warp's scheduling (groups, last issue, why
	// each lane waits): in full states, and in a delta when it changed.
	Threads *threadsJSON `json:"threads,omitempty"`
	// TMA is the selected CTA's TMA view (tma.go): in full states, and in
	// a delta when it changed (source "none": there is none now).
	TMA *tmaJSON `json:"tma,omitempty"`
	// Printf updates the Console (the launch's printf output up to this
	// step): in full states (keep 0: the whole output), and in a delta
	// when the output changed.
	Printf *printfJSON `json:"printf,omitempty"`
}

// printfJSON updates the printf lines the client holds: it keeps the
// first keep lines, drops the others and appends lines (the rest of a
// long update follows in printf messages). The output at a step is a
// prefix of the launch's whole output, so a back or seek sends only a
// smaller keep, a step forward only the new lines.
type printfJSON struct {
	Keep  int              `json:"keep"`
	Lines []printfLineJSON `json:"lines"`
	// Dropped counts the lines dropped past the launch's limit (Limit
	// bytes) up to this step; Note says so when it is not 0.
	Dropped int64  `json:"dropped"`
	Limit   int64  `json:"limit"`
	Note    string `json:"note,omitempty"`
}

// printfLineJSON is one thread's printf call: the step after it (seek
// there to see the state it printed in), its pc and source line, the
// thread, the text; cut when the text was cut at 4,096 bytes, note when
// CUDA's printf does not support part of the format.
type printfLineJSON struct {
	Step int64 `json:"step"`
	PC   int   `json:"pc"`
	Line int   `json:"line"`
	// CUDALine: the CUDA line of the printf (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	CTA      [3]int `json:"cta"`
	Thread   [3]int `json:"thread"`
	Text     string `json:"text"`
	Cut      bool   `json:"cut,omitempty"`
	Note     string `json:"note,omitempty"`
}

// printfMsg continues the printf update of the state just sent: more
// lines to append.
type printfMsg struct {
	Type  string           `json:"type"`
	ID    *int64           `json:"id,omitempty"`
	Lines []printfLineJSON `json:"lines"`
}

// warningsJSON is the checker's findings at a step.
type warningsJSON struct {
	List []warningJSON `json:"list"`
	// Dropped: more distinct warnings than the list holds were found.
	Dropped bool `json:"dropped"`
}

// warningJSON is one deduplicated warning with its first occurrence: the
// access that found it (pc, line, thread) and, for races and cp.async
// reads, the other instruction (prevPc >= 0: the earlier access of a
// race, or the cp.async).
type warningJSON struct {
	Kind   string `json:"kind"`
	Space  string `json:"space"`
	PC     int    `json:"pc"`
	Line   int    `json:"line"`
	CTA    [3]int `json:"cta"`
	Thread [3]int `json:"thread"`
	PrevPC int    `json:"prevPc"`
	// CUDALine and PrevCUDALine: the CUDA lines of pc and prevPc (CUDA
	// programs; absent: none).
	CUDALine     int `json:"cudaLine,omitempty"`
	PrevCUDALine int `json:"prevCudaLine,omitempty"`
	// The other access's line and thread (when prevPc >= 0).
	PrevLine   int    `json:"prevLine"`
	PrevCTA    [3]int `json:"prevCta"`
	PrevThread [3]int `json:"prevThread"`
	// Offset: in the CTA's shared memory, or the global address.
	Offset uint64 `json:"offset"`
	// Count: occurrences up to this step (capped: at least that many).
	Count  int64 `json:"count"`
	Capped bool  `json:"capped"`
	// Step: the warp-instruction of the first occurrence.
	Step int64 `json:"step"`
	// Text: what the warning found, in one sentence naming its lines
	// (analysis.Warning.Message, as ptxplay prints it).
	Text string `json:"text"`
}

type warpRef struct {
	CTA  int `json:"cta"`
	Warp int `json:"warp"`
}

type lastJSON struct {
	CTA      int    `json:"cta"` // index among resident CTAs, -1 if it retired
	Linear   int    `json:"linear"`
	Warp     int    `json:"warp"`
	PC       int    `json:"pc"`
	Line     int    `json:"line"`
	CUDALine int    `json:"cudaLine,omitempty"`
	Mask     string `json:"mask"`
	ExecMask string `json:"execMask"`
	// Tensor: the instruction was a tensor-core instruction (ldmatrix,
	// stmatrix, mma, movmatrix) that ran.
	Tensor *tensorJSON `json:"tensor,omitempty"`
	// Op is the instruction's opcode with its modifiers, as written
	// ("ld.shared.f32").
	Op string `json:"op"`
	// Accesses are its shared- and global-memory accesses, exact: every
	// lane's offset and the bank or coalescing model's verdict. At most
	// maxAccesses; accessesOmitted counts the rest.
	Accesses        []accessJSON `json:"accesses,omitempty"`
	AccessesOmitted int          `json:"accessesOmitted,omitempty"`
	// Swizzle: the Swizzle tab's view of the instruction's first shared-
	// memory access: the swizzle pattern it follows (isa.DetectSwizzle) or
	// none, and its affine form.
	Swizzle *liveSwizzleJSON `json:"swizzle,omitempty"`
}

// accessJSON is one warp access of the last instruction: the lanes that
// load, store or update size bytes each. offsets has 32 entries, lane by
// lane: the lane's byte offset in the CTA's shared memory or in the global
// buffer, null for lanes that took no part. A global access whose lanes
// fall in several buffers comes as one entry per buffer, each with its
// lanes and its own coalescing verdict.
type accessJSON struct {
	Kind    string    `json:"kind"`
	Space   string    `json:"space"`
	Size    int       `json:"size"`
	CTA     *int      `json:"cta,omitempty"` // shared: the linear CTA index
	Buffer  string    `json:"buffer,omitempty"`
	Offsets []*uint64 `json:"offsets"`
	// Lanes: the lanes of offsets (hex mask).
	Lanes  string         `json:"lanes"`
	Shared *bankVerdict   `json:"shared,omitempty"`
	Global *sectorVerdict `json:"global,omitempty"`
}

// bankVerdict is the shared-memory model's verdict on an access
// (engine/analysis): each lane's bank and wavefront (-1 for lanes that
// took no part), the wavefronts the access takes and the ideal for its
// bytes, the lanes a bank conflict serialises and the lanes that share a
// word with another lane (a broadcast for loads).
type bankVerdict struct {
	Banks      []int  `json:"banks"`
	Waves      []int  `json:"waves"`
	Wavefronts int    `json:"wavefronts"`
	Ideal      int    `json:"ideal"`
	Conflict   string `json:"conflict"`
	Broadcast  string `json:"broadcast"`
}

// sectorVerdict is the global-memory model's verdict: the distinct 32-byte
// sectors and 128-byte lines, the bytes the lanes asked for and the bytes
// the sectors move, and requested/moved (at most 1).
type sectorVerdict struct {
	Sectors    int     `json:"sectors"`
	Lines      int     `json:"lines"`
	Requested  int     `json:"requested"`
	Moved      int     `json:"moved"`
	Efficiency float64 `json:"efficiency"`
}

// liveSwizzleJSON is the Swizzle tab's view of a warp's shared-memory
// access. Mode, atom and b/m/s name the swizzle pattern its offsets follow
// as /api/swizzle takes them (mode "none" when they follow none); un-
// swizzled (the pattern is an involution), lane l's offset is base +
// stride*l. Affine comes when the raw offsets are affine in the lane (a
// row, a column, a broadcast, a padded tile's column): with no pattern,
// base and stride are its own; with one, the same offsets read as a tile
// padded to affine.stride-byte rows as well. Neither: the offsets are
// irregular (a gather). Unit is the explorer's cell width for the access
// (4-byte words for 4-byte accesses, 8, or 16-byte chunks); rowBytes,
// tileBase and rows are a tile of the explorer that holds every lane.
// Offsets are the lanes' shared-memory offsets as accessed, logical the
// un-swizzled ones. Wavefronts and ideal are the explorer's bank check of
// the access (every 4-byte word it touched); logicalWavefronts is the same
// check had the offsets not been swizzled.
type liveSwizzleJSON struct {
	Kind              string          `json:"kind"` // load, store or atomic
	Name              string          `json:"name"`
	Mode              string          `json:"mode"`
	Atom              string          `json:"atom,omitempty"`
	B                 int             `json:"b"`
	M                 int             `json:"m"`
	S                 int             `json:"s"`
	Base              int64           `json:"base"`
	Stride            int64           `json:"stride"`
	Affine            *liveAffineJSON `json:"affine,omitempty"`
	Size              int             `json:"size"`
	Unit              int             `json:"unit"`
	RowBytes          int             `json:"rowBytes"`
	TileBase          uint64          `json:"tileBase"`
	Rows              int             `json:"rows"`
	Lanes             []int           `json:"lanes"`
	Offsets           []uint64        `json:"offsets"`
	Logical           []uint64        `json:"logical"`
	Wavefronts        int             `json:"wavefronts"`
	Ideal             int             `json:"ideal"`
	LogicalWavefronts int             `json:"logicalWavefronts"`
}

// liveAffineJSON: lane l's raw shared-memory offset is base + stride*l.
type liveAffineJSON struct {
	Base   int64 `json:"base"`
	Stride int64 `json:"stride"`
}

// tensorJSON is the fragment report of a tensor-core instruction: for a
// matrix load or store, where each matrix's rows were and which lane gave
// each row's address; for mma and movmatrix, the registers each operand
// read or wrote.
type tensorJSON struct {
	Key      string          `json:"key"` // its layout (a key of /api/fragments)
	Matrices []matrixJSON    `json:"matrices,omitempty"`
	Operands []tensorRegJSON `json:"operands,omitempty"`
}

// matrixJSON is one 8x8 matrix of ldmatrix/stmatrix: row r is rowBytes at
// addrs[r], the address in lane lanes[r]; the matrix is register reg (a
// slot) of the vector operand, at position index, written (ldmatrix) or
// read (stmatrix). offsets (shared-memory offsets) comes when the
// addresses are generic.
type matrixJSON struct {
	Index    int      `json:"index"`
	Reg      int      `json:"reg"`
	Write    bool     `json:"write"`
	RowBytes int      `json:"rowBytes"`
	Space    string   `json:"space"`
	Lanes    []int    `json:"lanes"`
	Addrs    []string `json:"addrs"`
	Offsets  []string `json:"offsets,omitempty"`
}

// tensorRegJSON is one register operand: its layout name and its
// register slots in the layout's register order.
type tensorRegJSON struct {
	Name  string `json:"name"`
	Write bool   `json:"write"`
	Regs  []int  `json:"regs"`
}

// ctaJSON is a resident CTA of a state message: its slot (cta), its
// %ctaid (idx) and linear index, its cluster (clusterIdx: %clusterid,
// clusterLinear: the cluster's linear index in the grid of clusters, rank:
// %cluster_ctarank; with 1-CTA clusters the CTA's own index and rank 0),
// its barriers, its live mbarriers and its warps' keyed deltas. Every
// field but warps comes whole whenever the CTA comes (the client replaces
// them); the CTA comes when any of them changed.
type ctaJSON struct {
	CTA           int            `json:"cta"`
	Idx           [3]int         `json:"idx"`
	Linear        int            `json:"linear"`
	ClusterIdx    [3]int         `json:"clusterIdx"`
	ClusterLinear int            `json:"clusterLinear"`
	Rank          int            `json:"rank"`
	Barriers      []barrierJSON  `json:"barriers"`
	Mbarriers     []mbarrierJSON `json:"mbarriers"`
	// MbarriersOmitted: the CTA's live mbarriers beyond the first 64 (in
	// offset order), not listed.
	MbarriersOmitted int         `json:"mbarriersOmitted"`
	Warps            []warpDelta `json:"warps"`
}

// mbarrierJSON is a live mbarrier of a CTA (initialised and not
// invalidated; emu.CTA.Mbarriers): its offset in the CTA's shared memory
// (hex), its name (the shared variable holding it, "full[1]"; absent when
// none does), its state (valid false: an ordinary store overwrote its
// bytes since), what its current phase still needs in words (missing:
// "1 arrival and 4,096 transaction bytes") and the warps waiting on it.
type mbarrierJSON struct {
	Offset   string             `json:"offset"`
	Name     string             `json:"name,omitempty"`
	Valid    bool               `json:"valid"`
	Phase    int                `json:"phase"`
	Pending  int64              `json:"pending"`
	Expected int64              `json:"expected"`
	Tx       int64              `json:"tx"`
	Missing  string             `json:"missing"`
	Waiting  []mbarrierWaitJSON `json:"waiting"`
}

// mbarrierWaitJSON is a warp waiting on an mbarrier: its waiting lanes
// (hex), the parity of the phase they wait for and where (pc, line).
type mbarrierWaitJSON struct {
	Warp   int    `json:"warp"`
	Lanes  string `json:"lanes"`
	Parity int    `json:"parity"`
	PC     int    `json:"pc"`
	Line   int    `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int `json:"cudaLine,omitempty"`
}

type barrierJSON struct {
	ID       int   `json:"id"`
	Arrived  int   `json:"arrived"`
	Expected int   `json:"expected"`
	Waiting  []int `json:"waiting"`
}

// warpJSON is a warp summary: the warp as the client holds it. A state
// message carries it as a keyed delta (delta.go): a full state every field
// that is not absent, a delta "warp" and the fields that changed since the
// client's copy, null for one that became absent (delta.go's absent: a nil
// pointer or list, a zero omitempty number). State is "ready", "waiting",
// "exited" or "faulted"; wait (what a waiting warp waits for) comes with
// state "waiting" and is cleared (null) when the warp stops waiting, like
// any field that became absent; barrier comes with a wait at a barrier.
// groups (independent scheduling only) is [] once the warp has no thread
// group left.
type warpJSON struct {
	Warp int `json:"warp" delta:"key"`
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int         `json:"cudaLine,omitempty"`
	State    string      `json:"state"`
	Wait     *waitJSON   `json:"wait,omitempty"`
	Barrier  *int        `json:"barrier,omitempty"`
	Active   hexMask     `json:"active"`
	Valid    hexMask     `json:"valid"`
	Exited   hexMask     `json:"exited"`
	Stack    []stackJSON `json:"stack"`
	Depth    int         `json:"depth"`
	// Groups (independent scheduling): the warp's thread groups, in stack
	// order (see threadsJSON). GroupsOmitted counts the groups past the
	// first 64.
	Groups        []groupJSON `json:"groups,omitempty"`
	GroupsOmitted int         `json:"groupsOmitted,omitempty"`
	// GroupWaits (independent scheduling) are the waits of thread groups
	// of the warp, which block only their lanes while the warp's other
	// groups run (emu.Warp.GroupWaits); each one's text says what it
	// waits for, without the lanes (they are its lanes field).
	GroupWaits []waitJSON `json:"groupWaits,omitempty"`
	// Async is the warp's asynchronous work in flight (cp.async copies
	// that have not landed); absent when there is none.
	Async *asyncJSON `json:"async,omitempty"`
	// Wgmma is the warp's part of its warpgroup's wgmma.mma_async work in
	// flight (emu.Warp.PendingWgmma); absent when there is none.
	Wgmma *wgmmaAsyncJSON `json:"wgmma,omitempty"`
}

// wgmmaAsyncJSON is a warp's wgmma.mma_async results in flight, by
// wgmma-group, oldest first: ops counts them; committed and open count the
// groups closed by wgmma.commit_group (a wait_group can land them) and the
// open one; groups lists at most 16 (groupsMore: the newer ones left out).
type wgmmaAsyncJSON struct {
	Ops        int              `json:"ops"`
	Committed  int              `json:"committed"`
	Open       int              `json:"open"`
	Groups     []wgmmaGroupJSON `json:"groups"`
	GroupsMore int              `json:"groupsMore,omitempty"`
}

// wgmmaGroupJSON is one wgmma-group of the warp (numbered per warp from
// 0): its mma_async results in flight (ops) and their lines.
type wgmmaGroupJSON struct {
	Group     int   `json:"group"`
	Committed bool  `json:"committed"`
	Ops       int   `json:"ops"`
	Lines     []int `json:"lines"`
}

// waitJSON is what a waiting warp waits for (emu.Wait): kind says which,
// and the fields of that kind come with it: barrier and count (0: every
// live thread of the CTA) for "barrier", groups (-1: every copy, wait_all)
// for "async-group", members for "warp-sync", addr and parity for
// "mbarrier", arrived and expected (the cluster's live threads that have
// arrived in the barrier's current phase, and all of them) for
// "cluster-barrier". pc and line: the instruction the lanes wait at;
// lanes: the waiting lanes (hex); text: the engine's words for it (with
// the arrivals of a cluster barrier).
type waitJSON struct {
	Kind string `json:"kind"`
	PC   int    `json:"pc"`
	Line int    `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Lanes    string `json:"lanes"`
	Text     string `json:"text"`
	Barrier  *int   `json:"barrier,omitempty"`
	Count    *int   `json:"count,omitempty"`
	Groups   *int   `json:"groups,omitempty"`
	Members  string `json:"members,omitempty"`
	Addr     string `json:"addr,omitempty"`
	Parity   *int   `json:"parity,omitempty"`
	Arrived  *int   `json:"arrived,omitempty"`
	Expected *int   `json:"expected,omitempty"`
}

// warpDelta is a warp of a state message: its keyed delta on the wire.
// Decoded (tests, tools), it holds the fields present in warpJSON and
// which fields the delta cleared (null).
type warpDelta struct {
	warpJSON
	delta   keyedDelta
	cleared []string
}

func (d warpDelta) MarshalJSON() ([]byte, error) { return d.delta.MarshalJSON() }

func (d *warpDelta) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &d.warpJSON); err != nil {
		return err
	}
	for k, v := range fields {
		if string(v) == "null" {
			d.cleared = append(d.cleared, k)
		}
	}
	return nil
}

// Cleared reports whether the delta cleared field name (null).
func (d *warpDelta) Cleared(name string) bool { return slices.Contains(d.cleared, name) }

// asyncJSON is a warp's asynchronous work in flight. Copies and Bytes
// count every pending cp.async copy; Groups splits them by commit group
// (Committed: closed by cp.async.commit_group, so a wait_group can land
// it; Open: the lanes' open groups); Items lists the copies in issue order,
// at most 64, More says how many more there are.
type asyncJSON struct {
	Copies    int              `json:"copies"`
	Bytes     int              `json:"bytes"`
	Committed int              `json:"committed"`
	Open      int              `json:"open"`
	Groups    []asyncGroupJSON `json:"groups"`
	Items     []asyncCopyJSON  `json:"items"`
	More      int              `json:"more,omitempty"`
	// GroupsMore counts the groups left out of groups (the newest, beyond
	// the first 16).
	GroupsMore int `json:"groupsMore,omitempty"`
}

// asyncGroupJSON is one commit group of a warp's lanes (groups are counted
// per thread from 0; lanes that committed together share the number).
type asyncGroupJSON struct {
	Group     int    `json:"group"`
	Committed bool   `json:"committed"`
	Copies    int    `json:"copies"`
	Bytes     int    `json:"bytes"`
	Lanes     string `json:"lanes"` // the issuing lanes (hex mask)
	Lines     []int  `json:"lines"` // the cp.async lines that issued them
	// CUDALines: the CUDA line of each of lines (CUDA programs, 0 where
	// it has none; absent for PTX programs).
	CUDALines []int `json:"cudaLines,omitempty"`
	lanes     uint32
}

// asyncCopyJSON is one lane's copy in flight: from global address src to
// shared offset dst (in its CTA's shared memory), size bytes.
type asyncCopyJSON struct {
	Lane int `json:"lane"`
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine  int    `json:"cudaLine,omitempty"`
	Group     int    `json:"group"`
	Committed bool   `json:"committed"`
	Src       string `json:"src"`
	Dst       uint64 `json:"dst"`
	Size      int    `json:"size"`
}

type stackJSON struct {
	PC   int32   `json:"pc"`
	RPC  int32   `json:"rpc"`
	Mask hexMask `json:"mask"`
}

type eventJSON struct {
	Kind string `json:"kind"`
	// Step is the position right after the instruction that caused it
	// (its number in the launch): a seek there shows the event's state.
	Step int64 `json:"step"`
	CTA  int   `json:"cta"` // linear CTA index
	Warp int   `json:"warp"`
	PC   int   `json:"pc"`
	Line int   `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Mask     string `json:"mask"`
	Other    string `json:"other,omitempty"`
	Reconv   *int   `json:"reconv,omitempty"` // diverge: the pc where the paths rejoin (-1: at exit)
	Target   *int   `json:"target,omitempty"` // call: the callee's first pc
	// ID: the CTA barrier's id (barrier-*), or the cluster barrier's phase
	// (cluster-*).
	ID       *int `json:"id,omitempty"`
	Count    *int `json:"count,omitempty"`
	Expected *int `json:"expected,omitempty"`
	// Relaxed (cluster-arrive, mbarrier-arrive): the arrive releases
	// nothing (.relaxed, without a cluster-scope fence before a cluster
	// arrive).
	Relaxed bool `json:"relaxed,omitempty"`
	// Addr (mbarrier-*): the mbarrier's offset in its CTA's shared memory
	// (hex).
	Addr string `json:"addr,omitempty"`
	// barrier-release, cluster-release: every warp the release let go.
	Warps []barrierWarpJSON `json:"warps,omitempty"`
}

type regsJSON struct {
	CTA    int                 `json:"cta"`
	Warp   int                 `json:"warp"`
	Values map[string][]string `json:"values"`
	Preds  map[string]string   `json:"preds"`
	// Page and Pages: a kernel with more than regPage registers or
	// predPage predicates has its register file sent in pages (Pages > 1);
	// inspect's regPage selects the page. Names and PredNames describe
	// the page's registers then (loaded lists only the first page).
	Page      int        `json:"page,omitempty"`
	Pages     int        `json:"pages,omitempty"`
	Names     []regJSON  `json:"names,omitempty"`
	PredNames []predJSON `json:"predNames,omitempty"`
}

type memJSON struct {
	Space  string `json:"space"`
	Buffer string `json:"buffer,omitempty"`
	CTA    *int   `json:"cta,omitempty"`
	Offset uint64 `json:"offset"`
	Hex    string `json:"hex"`
}

type faultJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	PC      int    `json:"pc"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	CTA      [3]int `json:"cta"`
	Thread   [3]int `json:"thread"`
	Warp     int    `json:"warp"`
	Lane     int    `json:"lane"`
	Address  string `json:"address,omitempty"`
	// Lanes: every faulting lane of the warp (hex mask).
	Lanes string `json:"lanes"`
	// Waiting (barrier deadlock): every warp stuck at a barrier.
	Waiting []barrierWarpJSON `json:"waiting,omitempty"`
}

// barrierWarpJSON is a warp at a barrier: stuck in a deadlock, or
// released by a barrier-release event.
type barrierWarpJSON struct {
	CTA     int `json:"cta"` // index among resident CTAs
	Warp    int `json:"warp"`
	Barrier int `json:"barrier"`
	PC      int `json:"pc"`
	Line    int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Lanes    string `json:"lanes"`
}

type breakpointsMsg struct {
	Type  string `json:"type"`
	ID    *int64 `json:"id,omitempty"`
	Lines []int  `json:"lines"`
	// CUDALines: the CUDA lines with a breakpoint (each stops at any of
	// its instructions).
	CUDALines []int `json:"cudaLines"`
}

type inspectMsg struct {
	Type   string    `json:"type"`
	ID     *int64    `json:"id,omitempty"`
	CTA    int       `json:"cta"`
	Linear int       `json:"linear"`
	Warp   int       `json:"warp"`
	Regs   *regsJSON `json:"regs"`
	Memory *memJSON  `json:"memory,omitempty"`
	// Divergence: as in state, for the warp inspected.
	Divergence *divergenceJSON `json:"divergence,omitempty"`
	// Threads: as in state, for the warp inspected.
	Threads *threadsJSON `json:"threads,omitempty"`
	// TMA: as in state, for the CTA and warp inspected.
	TMA *tmaJSON `json:"tma,omitempty"`
	// Wgmma: the descriptor view asked for with wgmmaPC.
	Wgmma *wgmmaViewJSON `json:"wgmma,omitempty"`
}

// lineMemoryMsg continues the per-line memory update of the state just
// sent when it has more than lineMemChunk entries (entries as in
// lineMemoryDelta).
type lineMemoryMsg struct {
	Type  string        `json:"type"`
	ID    *int64        `json:"id,omitempty"`
	Delta []lineMemJSON `json:"delta"`
}

type doneMsg struct {
	Type   string          `json:"type"`
	ID     *int64          `json:"id,omitempty"`
	Result json.RawMessage `json:"result"`
	// BuffersOmitted says the result leaves out buffers that would have
	// made the message larger than the reply limit.
	BuffersOmitted bool `json:"buffersOmitted,omitempty"`
	// OmittedBuffers lists them (the client reads them with `read`).
	OmittedBuffers []omittedBufferJSON `json:"omittedBuffers,omitempty"`
}

// omittedBufferJSON is a buffer a `done` leaves out: its name, element
// type and size in bytes.
type omittedBufferJSON struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Bytes int    `json:"bytes"`
}

// readMsg is the reply to `read`: a range of a global buffer at the
// position shown, as hex.
type readMsg struct {
	Type   string  `json:"type"`
	ID     *int64  `json:"id,omitempty"`
	Memory memJSON `json:"memory"`
	// Size is the buffer's size in bytes.
	Size int `json:"size"`
}

// encode marshals a message without HTML escaping.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"type":"error","code":"internal","message":"encoding a reply failed"}`)
	}
	out := b.Bytes()
	return out[:len(out)-1] // drop the newline
}

// hex32 and hex64 render values as lowercase hex without leading zeros.
func hex32(v uint32) string { return strconv.FormatUint(uint64(v), 16) }

// hexMask is a lane mask, sent as a hex string ("ffffffff"); a field of
// this type costs nothing to render until it is sent.
type hexMask uint32

func (m hexMask) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 10), '"')
	b = strconv.AppendUint(b, uint64(m), 16)
	return append(b, '"'), nil
}

func (m *hexMask) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseUint(s, 16, 32)
	*m = hexMask(v)
	return err
}
func hex64(v uint64) string { return strconv.FormatUint(v, 16) }

const hexDigits = "0123456789abcdef"

// hexBytes renders bytes in memory order, two digits each.
func hexBytes(b []byte) string {
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i] = hexDigits[c>>4]
		out[2*i+1] = hexDigits[c&15]
	}
	return string(out)
}
