package sessions

import (
	"fmt"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
	"github.com/ptxplayground/ptxplay/engine/ptx"
	"github.com/ptxplayground/ptxplay/sessions/tsgen"
)

// The TypeScript declarations of the wire protocol are generated from the
// Go types of protocol.go (ui/proto_gen.ts; `go generate ./ui`), so the
// contract is written once. tsTypes names every type the protocol uses;
// a message type's "type" field becomes its string literal. Slices are
// declared non-null: the server sends [] for an empty list (tsFields marks
// the exceptions).
var tsTypes = []TSDecl{
	{"Message", ptx.Message{}, ""},
	{"DiagNote", ptx.NoteMessage{}, ""},
	{"Limits", helloLimits{}, ""},
	{"HelloCuda", helloCUDA{}, ""},
	{"Hello", helloMsg{}, "hello"},
	{"Diagnostics", diagnosticsMsg{}, "diagnostics"},
	{"LineInfo", lineJSON{}, ""},
	{"RegInfo", regJSON{}, ""},
	{"PredInfo", predJSON{}, ""},
	{"BufferInfo", bufferJSON{}, ""},
	{"SymbolInfo", symbolJSON{}, ""},
	{"KernelParam", launch.KernelParam{}, ""},
	{"Kernel", launch.Kernel{}, ""},
	{"Mismatch", launch.Mismatch{}, ""},
	{"LaunchNote", launch.Note{}, ""},
	{"LaunchFix", launchFixJSON{}, ""},
	{"TensorOp", tensorOpJSON{}, ""},
	{"CfgBlock", blockJSON{}, ""},
	{"Cfg", cfgJSON{}, ""},
	{"CudaOptions", cudaOptionsJSON{}, ""},
	{"CudaLoaded", cudaLoadedJSON{}, ""},
	{"Loaded", loadedMsg{}, "loaded"},
	{"CudaSource", cudaJSON{}, ""},
	{"CudaDiagnostic", cuda.Diagnostic{}, ""},
	{"CompileError", compileErrorJSON{}, ""},
	{"Compiled", compiledMsg{}, "compiled"},
	{"Stats", emu.Stats{}, ""},
	{"WarpRef", warpRef{}, ""},
	{"TensorReport", tensorJSON{}, ""},
	{"MatrixRows", matrixJSON{}, ""},
	{"TensorRegs", tensorRegJSON{}, ""},
	{"LiveSwizzle", liveSwizzleJSON{}, ""},
	{"LiveAffine", liveAffineJSON{}, ""},
	{"LastInfo", lastJSON{}, ""},
	{"Barrier", barrierJSON{}, ""},
	{"Mbarrier", mbarrierJSON{}, ""},
	{"MbarrierWait", mbarrierWaitJSON{}, ""},
	{"StackEntry", stackJSON{}, ""},
	{"AsyncCopy", asyncCopyJSON{}, ""},
	{"AsyncGroup", asyncGroupJSON{}, ""},
	{"AsyncWork", asyncJSON{}, ""},
	{"WgmmaGroup", wgmmaGroupJSON{}, ""},
	{"WgmmaWork", wgmmaAsyncJSON{}, ""},
	{"WgmmaFields", wgmmaFieldsJSON{}, ""},
	{"WgmmaDescView", wgmmaDescJSON{}, ""},
	{"WgmmaView", wgmmaViewJSON{}, ""},
	{"WaitInfo", waitJSON{}, ""},
	{"ThreadGroup", groupJSON{}, ""},
	{"IssueInfo", issueJSON{}, ""},
	{"PrevIssue", prevIssueJSON{}, ""},
	{"LaneWait", laneWaitJSON{}, ""},
	{"WarpThreads", threadsJSON{}, ""},
	{"TmaView", tmaJSON{}, ""},
	{"TensorMapInfo", tensorMapJSON{}, ""},
	{"TmaBox", tmaBox{}, ""},
	{"TmaRow", tmaRowJSON{}, ""},
	{"TmaTile", tmaTile{}, ""},
	{"WarpState", warpJSON{}, ""},
	{"WarpDelta", warpDelta{}, ""},
	{"CtaDelta", ctaJSON{}, ""},
	{"EventInfo", eventJSON{}, ""},
	{"RegValues", regsJSON{}, ""},
	{"MemChunk", memJSON{}, ""},
	{"Access", accessJSON{}, ""},
	{"BankVerdict", bankVerdict{}, ""},
	{"SectorVerdict", sectorVerdict{}, ""},
	{"BarrierWarp", barrierWarpJSON{}, ""},
	{"Fault", faultJSON{}, ""},
	{"LineExec", lineExecJSON{}, ""},
	{"Timeline", timelineJSON{}, ""},
	{"Divergence", divergenceJSON{}, ""},
	{"LineMemory", lineMemJSON{}, ""},
	{"WarningInfo", warningJSON{}, ""},
	{"Warnings", warningsJSON{}, ""},
	{"PrintfLine", printfLineJSON{}, ""},
	{"PrintfUpdate", printfJSON{}, ""},
	{"State", stateMsg{}, "state"},
	{"LineMemoryMsg", lineMemoryMsg{}, "line-memory"},
	{"PrintfMsg", printfMsg{}, "printf"},
	{"Breakpoints", breakpointsMsg{}, "breakpoints"},
	{"Inspect", inspectMsg{}, "inspect"},
	{"OmittedBuffer", omittedBufferJSON{}, ""},
	{"Done", doneMsg{}, "done"},
	{"Read", readMsg{}, "read"},
	{"CompareRun", compareRunJSON{}, ""},
	{"CompareFault", compareFaultJSON{}, ""},
	{"ElemDiff", elemDiffJSON{}, ""},
	{"BufferDiff", bufferDiffJSON{}, ""},
	{"SchedulingCompare", compareMsg{}, "scheduling-compare"},
	{"ErrorMsg", errorMsg{}, "error"},
	{"Notice", noticeMsg{}, "notice"},
	{"MemRequest", memRequest{}, ""},
	{"ClientMsg", clientMsg{}, ""},
}

// tsFields narrows fields whose Go type is wider than their values, to a
// literal type or to one of the unions of tsEnums.
var tsFields = map[string]string{
	"Message.severity":  "Severity",
	"MemChunk.space":    "MemSpace",
	"Access.space":      "MemSpace",
	"Access.offsets":    "(number | null)[]",
	"Done.result":       "Record<string, unknown>",
	"CtaDelta.warps":    "WarpDelta[] | null", // a CTA whose barriers alone changed
	"WarpDelta":         `KeyedDelta<WarpState, "warp">`,
	"LaunchFix.spec":    "Record<string, unknown>",
	"Access.kind":       "AccessKind",
	"LiveSwizzle.kind":  "AccessKind",
	"WarningInfo.space": "WarningSpace",
	"ThreadGroup.state": "GroupState",
	"IssueInfo.reason":  "PickReason",
	"LaneWait.reason":   "LaneReason",
	"WaitInfo.kind":     "WaitKind",
	"WarpState.state":   "WarpRunState",
	"Spec.scheduling":   "Scheduling",
	"Spec.grid":         "number[]",
	"Spec.block":        "number[]",
	"SpecParam":         "Record<string, unknown>",
	"SpecValue":         "number | string",
}

// tsOptional names the fields that are optional in TypeScript although
// the Go type always writes them: a launch spec as the client builds it
// may leave them out (docs/launch-spec.md).
var tsOptional = map[string]bool{
	"SpecBuffer.count": true,
}

// tsSpecTypes are the launch spec's types (docs/launch-spec.md).
var tsSpecTypes = []TSDecl{
	{"SpecValue", launch.Value(""), ""},
	{"SpecIota", launch.Iota{}, ""},
	{"SpecRandom", launch.Random{}, ""},
	{"SpecInit", launch.Init{}, ""},
	{"SpecBuffer", launch.Buffer{}, ""},
	{"SpecParam", launch.Param{}, ""},
	{"SpecCudaOptions", launchspec.CUDAOptions{}, ""},
	{"Spec", launch.Spec{}, ""},
}

// tsEnums are the string unions of the protocol, each from the Go table or
// constants its values come from. A Go type named in Of stands for the
// union wherever a field has that type.
func tsEnums() []TSEnum {
	severities := []string{}
	for _, s := range []ptx.Severity{ptx.SevError, ptx.SevWarning, ptx.SevNote} {
		severities = append(severities, s.String())
	}
	return []TSEnum{
		{Name: "Severity", Values: severities},
		{Name: "MemSpace", Values: []string{isa.Global.String(), isa.Shared.String()}},
		// A warning is about memory, or (the wgmma register rules) registers.
		{Name: "WarningSpace", Values: []string{isa.Global.String(), isa.Shared.String(), isa.Reg.String()}},
		{Name: "AccessKind", Values: accessKinds[:]},
		{Name: "ParamRole", Values: strs([]launch.ParamRole{launch.RolePointer, launch.RoleScalar, launch.RoleUnused}), Of: launch.ParamRole("")},
		{Name: "GroupState", Values: emu.GroupStates()},
		{Name: "PickReason", Values: emu.PickReasons()},
		{Name: "WarpRunState", Values: emu.WarpStateNames()},
		{Name: "WaitKind", Values: emu.WaitKindNames()},
		{Name: "LaneReason", Values: emu.LaneWaitReasons()},
		{Name: "CompareOutcome", Values: strs(compareOutcomes), Of: compareOutcome("")},
		{Name: "NoticeCode", Values: strs(noticeCodes), Of: noticeCode("")},
		{Name: "CompileErrorCode", Values: strs(compileErrorCodes), Of: compileErrorCode("")},
		{Name: "CudaSeverity", Values: strs([]cuda.Severity{cuda.SevError, cuda.SevWarning, cuda.SevNote}), Of: cuda.Severity("")},
		{Name: "Scheduling", Values: strs([]emu.Scheduling{emu.SchedIndependent, emu.SchedSIMTStack}), Of: emu.Scheduling("")},
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// TypeScript returns the generated declarations (ui/proto_gen.ts).
func TypeScript() ([]byte, error) {
	g := tsgen.New(tsFields, tsOptional)
	g.Header("sessions/protocol.go and engine/launchspec/spec.go", "The websocket protocol of docs/protocol.md, as sent on the wire, and the launch spec of\n// docs/launch-spec.md.")
	fmt.Fprintf(&g.B, "export const protocolVersion = %d;\n", ProtocolVersion)
	g.B.WriteString(`
/** A keyed delta of T (sessions/delta.go): the key K, and every other field
 * that changed: its new value, or null when it became absent. */
export type KeyedDelta<T, K extends keyof T> = Pick<T, K> & { [P in Exclude<keyof T, K>]?: T[P] | null };
`)
	for _, e := range tsEnums() {
		g.Enum(tsgen.Enum(e))
	}
	g.Declare(tsgen.Decl{Name: "string", V: hexMask(0)})
	g.Declare(tsDecls(tsTypes)...)
	g.Declare(tsDecls(tsSpecTypes)...)
	msgs := g.Interfaces(tsDecls(tsTypes))
	fmt.Fprintf(&g.B, "\n/** Every message the server sends. */\nexport type ServerMsg =\n  | %s;\n", strings.Join(msgs, "\n  | "))
	g.Interfaces(tsDecls(tsSpecTypes))
	return g.Bytes()
}

// TSDecl and TSEnum are the protocol's tables' rows (tsgen.Decl and
// tsgen.Enum).
type (
	TSDecl tsgen.Decl
	TSEnum tsgen.Enum
)

func tsDecls(ds []TSDecl) []tsgen.Decl {
	out := make([]tsgen.Decl, len(ds))
	for i, d := range ds {
		out[i] = tsgen.Decl(d)
	}
	return out
}
