package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
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
	{"WaitInfo", waitJSON{}, ""},
	{"ThreadGroup", groupJSON{}, ""},
	{"IssueInfo", issueJSON{}, ""},
	{"PrevIssue", prevIssueJSON{}, ""},
	{"LaneWait", laneWaitJSON{}, ""},
	{"WarpThreads", threadsJSON{}, ""},
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
	"WarningInfo.space": "MemSpace",
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
		{Name: "AccessKind", Values: accessKinds[:]},
		{Name: "ParamRole", Values: strs([]launch.ParamRole{launch.RolePointer, launch.RoleScalar, launch.RoleUnused}), Of: launch.ParamRole("")},
		{Name: "GroupState", Values: emu.GroupStates()},
		{Name: "PickReason", Values: emu.PickReasons()},
		{Name: "WarpRunState", Values: emu.WarpStateNames()},
		{Name: "WaitKind", Values: emu.WaitKindNames()},
		{Name: "LaneReason", Values: emu.LaneWaitReasons()},
		{Name: "CompareOutcome", Values: strs(compareOutcomes), Of: compareOutcome("")},
		{Name: "NoticeCode", Values: strs(noticeCodes), Of: noticeCode("")},
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
	g := NewTSGen(tsFields, tsOptional)
	g.Header("sessions/protocol.go and engine/launch/spec.go", "The websocket protocol of docs/protocol.md, as sent on the wire, and the launch spec of\n// docs/launch-spec.md.")
	fmt.Fprintf(&g.B, "export const protocolVersion = %d;\n", ProtocolVersion)
	g.B.WriteString(`
/** A keyed delta of T (sessions/delta.go): the key K, and every other field
 * that changed: its new value, or null when it became absent. */
export type KeyedDelta<T, K extends keyof T> = Pick<T, K> & { [P in Exclude<keyof T, K>]?: T[P] | null };
`)
	for _, e := range tsEnums() {
		g.Enum(e)
	}
	g.Declare(TSDecl{Name: "string", V: hexMask(0)})
	g.Declare(tsTypes...)
	g.Declare(tsSpecTypes...)
	msgs := g.Interfaces(tsTypes)
	fmt.Fprintf(&g.B, "\n/** Every message the server sends. */\nexport type ServerMsg =\n  | %s;\n", strings.Join(msgs, "\n  | "))
	g.Interfaces(tsSpecTypes)
	return g.Bytes()
}

// TSDecl names a Go type for TypeScript: an interface of its JSON fields.
// Lit, for a message type, is its "type" field's literal.
type TSDecl struct {
	Name string
	V    any
	Lit  string
}

// TSEnum is a union of string literals, exported with its values as
// <name>Values. Of, when set, is a Go string type that stands for it.
type TSEnum struct {
	Name   string
	Values []string
	Of     any
}

// TSGen writes TypeScript declarations from Go types by reflection (the
// JSON names, omitempty as optional, pointers as nullable). Its output is
// in B; Bytes returns it or names the Go types it had no TypeScript for.
type TSGen struct {
	B        bytes.Buffer
	names    map[reflect.Type]string
	fields   map[string]string
	optional map[string]bool
	unknown  []string
}

// NewTSGen returns a generator with field overrides ("Type.field" to a
// TypeScript type; "Type" alone replaces a whole declaration) and optional
// fields ("Type.field": true makes it optional, false required).
func NewTSGen(fields map[string]string, optional map[string]bool) *TSGen {
	return &TSGen{names: map[reflect.Type]string{}, fields: fields, optional: optional}
}

// Header writes the generated-file header.
func (g *TSGen) Header(from, what string) {
	fmt.Fprintf(&g.B, "// Code generated from %s by cmd/protogen; DO NOT EDIT.\n// %s\n\n", from, what)
}

// Declare names Go types without writing them (types another generated
// file declares, or ones Interfaces writes later).
func (g *TSGen) Declare(ds ...TSDecl) {
	for _, d := range ds {
		g.names[reflect.TypeOf(d.V)] = d.Name
	}
}

// Enum writes a union and the list of its values.
func (g *TSGen) Enum(e TSEnum) {
	lits := make([]string, len(e.Values))
	for i, v := range e.Values {
		lits[i] = fmt.Sprintf("%q", v)
	}
	fmt.Fprintf(&g.B, "\nexport const %sValues = [%s] as const;\n", lowerFirst(e.Name), strings.Join(lits, ", "))
	fmt.Fprintf(&g.B, "export type %s = (typeof %sValues)[number];\n", e.Name, lowerFirst(e.Name))
	if e.Of != nil {
		g.names[reflect.TypeOf(e.Of)] = e.Name
	}
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// Interfaces writes an interface per declaration (a declaration whose name
// tsFields maps is a type alias instead) and returns the names of the
// message types (those with a Lit).
func (g *TSGen) Interfaces(ds []TSDecl) (msgs []string) {
	g.Declare(ds...)
	for _, t := range ds {
		typ := reflect.TypeOf(t.V)
		if o, ok := g.fields[t.Name]; ok {
			fmt.Fprintf(&g.B, "\nexport type %s = %s;\n", t.Name, o)
			continue
		}
		if typ.Kind() != reflect.Struct {
			g.unknown = append(g.unknown, typ.String())
			continue
		}
		fmt.Fprintf(&g.B, "\nexport interface %s {\n", t.Name)
		g.fieldsOf(t, typ)
		g.B.WriteString("}\n")
		if t.Lit != "" {
			msgs = append(msgs, t.Name)
		}
	}
	return msgs
}

// fieldsOf writes the JSON fields of struct type typ, those of an
// untagged embedded struct among them (as encoding/json promotes them).
func (g *TSGen) fieldsOf(t TSDecl, typ reflect.Type) {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				g.fieldsOf(t, et)
				continue
			}
		}
		if tag == "-" || !f.IsExported() {
			continue
		}
		parts := strings.Split(tag, ",")
		name := parts[0]
		if name == "" {
			name = f.Name
		}
		omit := len(parts) > 1 && (parts[1] == "omitempty" || parts[1] == "omitzero")
		ts := g.tsType(f.Type)
		if name == "type" && t.Lit != "" {
			ts = fmt.Sprintf("%q", t.Lit)
		}
		key := t.Name + "." + name
		if o, ok := g.fields[key]; ok {
			ts = o
		}
		if o, ok := g.optional[key]; ok {
			omit = o
		}
		opt := ""
		switch {
		case f.Type.Kind() == reflect.Pointer && !omit:
			ts += " | null"
		case omit:
			opt = "?"
		}
		fmt.Fprintf(&g.B, "  %s%s: %s;\n", name, opt, ts)
	}
}

// Bytes returns what was written, or an error naming the Go types that
// have no TypeScript.
func (g *TSGen) Bytes() ([]byte, error) {
	if len(g.unknown) > 0 {
		return nil, fmt.Errorf("no TypeScript for the Go types %s", strings.Join(g.unknown, ", "))
	}
	return g.B.Bytes(), nil
}

var rawMessage = reflect.TypeOf(json.RawMessage{})

func (g *TSGen) tsType(t reflect.Type) string {
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
