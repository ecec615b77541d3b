package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The TypeScript declarations of the wire protocol are generated from the
// Go types of protocol.go (ui/proto_gen.ts; `go generate ./ui`), so the
// contract is written once. tsTypes names every type the protocol uses;
// a message type's "type" field becomes its string literal. Slices are
// declared non-null: the server sends [] for an empty list (tsFields marks
// the exceptions).
var tsTypes = []struct {
	name string
	v    any
	lit  string // the message's "type"
}{
	{"Message", ptx.Message{}, ""},
	{"DiagNote", ptx.NoteMessage{}, ""},
	{"Limits", helloLimits{}, ""},
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
	{"Loaded", loadedMsg{}, "loaded"},
	{"Stats", emu.Stats{}, ""},
	{"WarpRef", warpRef{}, ""},
	{"TensorReport", tensorJSON{}, ""},
	{"MatrixRows", matrixJSON{}, ""},
	{"TensorRegs", tensorRegJSON{}, ""},
	{"LiveSwizzle", liveSwizzleJSON{}, ""},
	{"LiveAffine", liveAffineJSON{}, ""},
	{"LastInfo", lastJSON{}, ""},
	{"Barrier", barrierJSON{}, ""},
	{"StackEntry", stackJSON{}, ""},
	{"AsyncCopy", asyncCopyJSON{}, ""},
	{"AsyncGroup", asyncGroupJSON{}, ""},
	{"AsyncWork", asyncJSON{}, ""},
	{"ThreadGroup", groupJSON{}, ""},
	{"IssueInfo", issueJSON{}, ""},
	{"PrevIssue", prevIssueJSON{}, ""},
	{"LaneWait", laneWaitJSON{}, ""},
	{"WarpThreads", threadsJSON{}, ""},
	{"WarpDelta", warpJSON{}, ""},
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

// tsFields narrows fields whose Go type is wider than their values.
var tsFields = map[string]string{
	"Message.severity":   `"error" | "warning" | "note"`,
	"MemChunk.space":     `"global" | "shared"`,
	"Access.space":       `"global" | "shared"`,
	"Access.offsets":     "(number | null)[]",
	"Done.result":        "Record<string, unknown>",
	"CtaDelta.warps":     "WarpDelta[] | null", // a CTA whose barriers alone changed
	"LaunchFix.spec":     "Record<string, unknown>",
	"KernelParam.role":   `"pointer" | "scalar" | "unused"`,
	"Access.kind":        `"load" | "store" | "atomic"`,
	"LiveSwizzle.kind":   `"load" | "store" | "atomic"`,
	"WarningInfo.space":  `"global" | "shared"`,
	"ThreadGroup.state":  `"runnable" | "waiting" | "sync-wait" | "barrier-wait" | "in-call" | "suspended"`,
	"IssueInfo.reason":   `"only" | "round-robin" | "stack"`,
	"LaneWait.reason":    `"running" | "turn" | "reconvergence" | "sync" | "barrier" | "call" | "suspended" | "exited"`,
	"CompareRun.outcome": `"done" | "fault" | "deadlock" | "budget" | "interrupted"`,
	"Notice.code":        `"history-trimmed"`,
}

// TypeScript returns the generated declarations (ui/proto_gen.ts).
func TypeScript() ([]byte, error) {
	g := tsGen{names: map[reflect.Type]string{}}
	names := g.names
	for _, t := range tsTypes {
		names[reflect.TypeOf(t.v)] = t.name
	}
	var b bytes.Buffer
	b.WriteString("// Code generated from sessions/protocol.go by cmd/protogen; DO NOT EDIT.\n")
	b.WriteString("// The websocket protocol of docs/protocol.md, as sent on the wire.\n\n")
	fmt.Fprintf(&b, "export const protocolVersion = %d;\n", ProtocolVersion)
	var msgs []string
	for _, t := range tsTypes {
		typ := reflect.TypeOf(t.v)
		fmt.Fprintf(&b, "\nexport interface %s {\n", t.name)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() {
				continue
			}
			parts := strings.Split(tag, ",")
			name := parts[0]
			if name == "" {
				name = f.Name
			}
			omit := len(parts) > 1 && parts[1] == "omitempty"
			ts := g.tsType(f.Type)
			if name == "type" && t.lit != "" {
				ts = fmt.Sprintf("%q", t.lit)
			}
			if o, ok := tsFields[t.name+"."+name]; ok {
				ts = o
			}
			opt := ""
			switch {
			case f.Type.Kind() == reflect.Pointer && !omit:
				ts += " | null"
			case omit:
				opt = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", name, opt, ts)
		}
		b.WriteString("}\n")
		if t.lit != "" {
			msgs = append(msgs, t.name)
		}
	}
	fmt.Fprintf(&b, "\n/** Every message the server sends. */\nexport type ServerMsg =\n  | %s;\n", strings.Join(msgs, "\n  | "))
	if len(g.unknown) > 0 {
		return nil, fmt.Errorf("no TypeScript for the Go types %s", strings.Join(g.unknown, ", "))
	}
	return b.Bytes(), nil
}

type tsGen struct {
	names   map[reflect.Type]string
	unknown []string
}

var rawMessage = reflect.TypeOf(json.RawMessage{})

func (g *tsGen) tsType(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	if t == rawMessage {
		return "unknown"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.tsType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		e := g.tsType(t.Elem())
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return fmt.Sprintf("Record<string, %s>", g.tsType(t.Elem()))
	}
	g.unknown = append(g.unknown, t.String())
	return "unknown"
}
