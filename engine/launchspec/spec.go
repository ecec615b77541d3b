// Package launchspec is the launch spec of PTX Playground as data: a JSON
// launch spec (version 1) describing a kernel, its grid and block, global
// buffers with their initial contents and the kernel parameters; parsing,
// validation against limits, and the buffers' initial contents. It imports
// only engine/isa and engine/fpx, so the web layer and share links can
// read and check specs without the emulator; engine/launch prepares and
// runs them. The format is documented in docs/launch-spec.md.
package launchspec

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// SpecVersion is the version of the launch-spec format this package reads.
const SpecVersion = 1

// Limits bounds what a spec may ask for.
type Limits struct {
	// MaxBufferBytes bounds the total size of all buffers.
	MaxBufferBytes int64
}

// DefaultLimits are the limits ParseSpec and Prepare apply.
var DefaultLimits = Limits{MaxBufferBytes: 1 << 30}

// Spec is a launch: which kernel to run, how, and on what data.
type Spec struct {
	// Version is the format version; 0 (absent) or 1.
	Version int `json:"version,omitempty"`
	// Comment is free text, ignored.
	Comment string `json:"comment,omitempty"`
	// PTX is the path of the PTX file, relative to the spec file.
	PTX string `json:"ptx,omitempty"`
	// Source is the PTX text itself (instead of PTX).
	Source string `json:"source,omitempty"`
	// CUDA is the path of a CUDA C++ file, relative to the spec file,
	// instead of PTX or Source: the runner compiles it to PTX first (with
	// CUDAOptions) and launches that.
	CUDA string `json:"cuda,omitempty"`
	// CUDAOptions are the compile options for CUDA (nil: the defaults).
	CUDAOptions *CUDAOptions `json:"cudaOptions,omitempty"`
	// Entry is the kernel to launch; it may be omitted when the module has
	// exactly one kernel.
	Entry string `json:"entry,omitempty"`
	// Grid and Block are the launch dimensions; missing dimensions are 1.
	Grid  [3]int `json:"grid"`
	Block [3]int `json:"block"`
	// Cluster is the number of CTAs per thread-block cluster in each
	// dimension (missing dimensions are 1); absent (all zero): the
	// kernel's .reqnctapercluster, else 1x1x1. Every grid dimension must
	// be a multiple of it.
	Cluster [3]int `json:"cluster,omitzero"`
	// DynamicSharedBytes is the dynamic shared memory per CTA.
	DynamicSharedBytes int `json:"dynamicSharedBytes,omitempty"`
	// MaxWarpInstructions stops the launch with status "limit" after this
	// many warp-instructions (0: no limit).
	MaxWarpInstructions int64 `json:"maxWarpInstructions,omitempty"`
	// Scheduling is the model for divergent lanes of a warp:
	// "independent" (independent thread scheduling, sm_70 and later) or
	// "simt-stack" (the pre-Volta reconvergence stack); empty: the
	// module's .target decides (independent from sm_70).
	Scheduling string `json:"scheduling,omitempty"`
	// Buffers are global allocations, made in this order.
	Buffers []Buffer `json:"buffers,omitempty"`
	// Params are the kernel's parameters, in order.
	Params []Param `json:"params,omitempty"`

	limits     *Limits // the limits the spec was validated against
	allocSlack int     // see SetAllocSlack
}

// Buffer is a global allocation of Count elements of Type.
type Buffer struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Count int    `json:"count"`
	// Init gives the initial contents; nil means zero-filled.
	Init *Init `json:"init,omitempty"`
	// Output, when false, leaves the buffer out of the result (default true).
	Output *bool `json:"output,omitempty"`
}

// Init is how a buffer is initialised: exactly one field is set. Elements
// not covered (values or bytes shorter than the buffer) are zero.
type Init struct {
	Values []Value `json:"values,omitempty"`
	Iota   *Iota   `json:"iota,omitempty"`
	Fill   *Value  `json:"fill,omitempty"`
	Bytes  *string `json:"bytes,omitempty"` // raw bytes in hex, in memory order
	Random *Random `json:"random,omitempty"`
}

// Iota fills element i with Start + i*Step ("" means Start 0, Step 1).
// Integer types wrap modulo 2^bits; float types compute in float64 and
// round to nearest even.
type Iota struct {
	Start Value `json:"start,omitempty"`
	Step  Value `json:"step,omitempty"`
}

// Random fills a buffer with a deterministic pseudo-random stream (see
// docs/launch-spec.md for the generator). Min and Max default to [0, 1)
// for float types and to the type's whole range for integer types.
type Random struct {
	Seed uint64 `json:"seed"`
	Min  *Value `json:"min,omitempty"`
	Max  *Value `json:"max,omitempty"`
}

// Param is one kernel parameter: the address of a buffer (plus Offset
// bytes), scalar values of a type (one value, or several for an array
// parameter), or raw bytes in hex.
type Param struct {
	Buffer string
	Offset int64
	Type   string
	Values []Value
	Bytes  *string
	// TensorMap is a tensor-map parameter (see TensorMapSpec).
	TensorMap *TensorMapSpec
	// array records that Values came from a JSON array.
	array bool
}

// BufferParam, ScalarParam and BytesParam build parameters in Go code.
func BufferParam(name string) Param { return Param{Buffer: name} }

// ScalarParam is a parameter holding v as type typ ("u32", "f32", ...).
func ScalarParam(typ string, v Value) Param { return Param{Type: typ, Values: []Value{v}} }

// ArrayParam is an array parameter of type typ: its values, written as a
// JSON array.
func ArrayParam(typ string, vs ...Value) Param { return Param{Type: typ, Values: vs, array: true} }

// BytesParam is a parameter given as raw bytes.
func BytesParam(b []byte) Param { s := hex.EncodeToString(b); return Param{Bytes: &s} }

// MarshalJSON writes the one-key object form of p.
func (p Param) MarshalJSON() ([]byte, error) {
	switch {
	case p.TensorMap != nil:
		return json.Marshal(map[string]*TensorMapSpec{"tensorMap": p.TensorMap})
	case p.Buffer != "":
		if p.Offset != 0 {
			return json.Marshal(struct {
				Buffer string `json:"buffer"`
				Offset int64  `json:"offset"`
			}{p.Buffer, p.Offset})
		}
		return json.Marshal(map[string]string{"buffer": p.Buffer})
	case p.Bytes != nil:
		return json.Marshal(map[string]string{"bytes": *p.Bytes})
	case p.Type != "":
		if len(p.Values) == 1 && !p.array {
			return json.Marshal(map[string]Value{p.Type: p.Values[0]})
		}
		return json.Marshal(map[string][]Value{p.Type: p.Values})
	}
	return nil, errors.New("empty parameter")
}

// UnmarshalJSON reads the forms {"buffer": name[, "offset": n]},
// {"bytes": hex}, {TYPE: value} and {TYPE: [values…]}.
func (p *Param) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return errors.New("a parameter must be an object such as {\"buffer\": \"a\"} or {\"u32\": 1}")
	}
	*p = Param{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if raw, ok := m["buffer"]; ok {
		if err := json.Unmarshal(raw, &p.Buffer); err != nil || p.Buffer == "" {
			return errors.New("\"buffer\" must be a buffer name")
		}
		for _, k := range keys {
			switch k {
			case "buffer":
			case "offset":
				if err := json.Unmarshal(m[k], &p.Offset); err != nil {
					return errors.New("\"offset\" must be an integer number of bytes")
				}
			default:
				return fmt.Errorf("unknown key %q next to \"buffer\" (only \"offset\" is allowed)", k)
			}
		}
		return nil
	}
	if len(keys) != 1 {
		return fmt.Errorf("a parameter needs exactly one key (\"buffer\", \"bytes\", \"tensorMap\" or a type such as \"u32\"), got %d: %s", len(keys), strings.Join(keys, ", "))
	}
	k := keys[0]
	raw := bytes.TrimSpace(m[k])
	if k == "tensorMap" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var t TensorMapSpec
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("tensorMap: %v", cleanErr(err))
		}
		p.TensorMap = &t
		return nil
	}
	if k == "bytes" {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return errors.New("\"bytes\" must be a hex string")
		}
		p.Bytes = &s
		return nil
	}
	if _, err := LookupType(k); err != nil {
		if k == "offset" {
			return errors.New("\"offset\" needs \"buffer\"")
		}
		return fmt.Errorf("unknown parameter key %q (want \"buffer\", \"bytes\" or a type: %s)", k, typeList)
	}
	p.Type = k
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &p.Values); err != nil {
			return fmt.Errorf("%s: %v", k, cleanErr(err))
		}
		p.array = true
		if len(p.Values) == 0 {
			return fmt.Errorf("%s: empty array", k)
		}
		return nil
	}
	var v Value
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s: %v", k, cleanErr(err))
	}
	p.Values = []Value{v}
	return nil
}

// CUDAArches are the targets a CUDA compile accepts (engine/cuda.Arches).
var CUDAArches = []string{"sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}

// CUDADefaultArch is the target when none is named.
const CUDADefaultArch = "sm_80"

// CheckCUDAOptions checks a CUDA compile's target (one of CUDAArches) and
// optimisation level (0..3): the one check of engine/cuda and of share
// links.
func CheckCUDAOptions(arch string, opt int) error {
	if !slices.Contains(CUDAArches, arch) {
		return fmt.Errorf("unknown target %q (one of %s)", arch, strings.Join(CUDAArches, ", "))
	}
	if opt < 0 || opt > 3 {
		return fmt.Errorf("optimisation level %d out of range 0..3", opt)
	}
	return nil
}

// CUDAOptions are the options of the CUDA compile: the target ("sm_80"
// when empty), the optimisation level 0..3 (absent: 2, as without
// cudaOptions) and fast math.
type CUDAOptions struct {
	Arch     string `json:"arch,omitempty"`
	Opt      *int   `json:"opt,omitempty"`
	FastMath bool   `json:"fastMath,omitempty"`
}

// Level returns the optimisation level (2 when absent).
func (o *CUDAOptions) Level() int {
	if o == nil || o.Opt == nil {
		return 2
	}
	return *o.Opt
}

// rawSpec is the wire form of a spec (grid and block may be short).
type rawSpec struct {
	Version             int               `json:"version"`
	PTX                 string            `json:"ptx"`
	Source              string            `json:"source"`
	CUDA                string            `json:"cuda"`
	CUDAOptions         *CUDAOptions      `json:"cudaOptions"`
	Entry               string            `json:"entry"`
	Grid                []int             `json:"grid"`
	Block               []int             `json:"block"`
	Cluster             []int             `json:"cluster"`
	DynamicSharedBytes  int               `json:"dynamicSharedBytes"`
	MaxWarpInstructions int64             `json:"maxWarpInstructions"`
	Scheduling          string            `json:"scheduling"`
	Buffers             []rawBuf          `json:"buffers"`
	Params              []json.RawMessage `json:"params"`
	Comment             string            `json:"comment"`
}

type rawBuf struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Count  *int   `json:"count"`
	Init   *Init  `json:"init"`
	Output *bool  `json:"output"`
}

// ParseSpec decodes and validates a spec against DefaultLimits. Unknown
// fields are rejected; the spec is checked as far as possible without the
// program (the parameters are checked against the kernel by Prepare).
func ParseSpec(data []byte) (*Spec, error) {
	return ParseSpecLimits(data, DefaultLimits)
}

// ParseSpecLimits is ParseSpec with explicit limits.
func ParseSpecLimits(data []byte, lim Limits) (*Spec, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r rawSpec
	if err := dec.Decode(&r); err != nil {
		if err == io.EOF {
			return nil, errors.New("empty spec")
		}
		return nil, cleanErrAt(err, data)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the spec object")
	}
	s := &Spec{Version: r.Version, Comment: r.Comment, PTX: r.PTX, Source: r.Source, CUDA: r.CUDA, CUDAOptions: r.CUDAOptions, Entry: r.Entry,
		DynamicSharedBytes: r.DynamicSharedBytes, MaxWarpInstructions: r.MaxWarpInstructions, Scheduling: r.Scheduling}
	for i, raw := range r.Params {
		var p Param
		if err := p.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("params[%d]: %v", i, err)
		}
		s.Params = append(s.Params, p)
	}
	var err error
	if s.Grid, err = dims("grid", r.Grid); err != nil {
		return nil, err
	}
	if s.Block, err = dims("block", r.Block); err != nil {
		return nil, err
	}
	if r.Cluster != nil {
		if s.Cluster, err = dims("cluster", r.Cluster); err != nil {
			return nil, err
		}
	}
	for i, b := range r.Buffers {
		buf := Buffer{Name: b.Name, Type: b.Type, Init: b.Init, Output: b.Output}
		if b.Count != nil {
			buf.Count = *b.Count
		} else if n, ok := impliedCount(b); ok {
			buf.Count = n
		} else {
			return nil, fmt.Errorf("%s: \"count\" is required (it may be omitted only with init values or bytes)", BufWhere(i, b.Name))
		}
		s.Buffers = append(s.Buffers, buf)
	}
	if s.PTX == "" && s.Source == "" && s.CUDA == "" {
		return nil, errors.New("missing \"ptx\" (the PTX file, relative to the spec), \"source\" (the PTX text) or \"cuda\" (a CUDA file)")
	}
	if err := s.Validate(lim); err != nil {
		return nil, err
	}
	return s, nil
}

// impliedCount is the element count given by explicit init values or
// bytes, for a buffer without "count". An unknown type gives 0 (Validate
// reports the type).
func impliedCount(b rawBuf) (int, bool) {
	t, err := LookupType(b.Type)
	if err != nil {
		return 0, true
	}
	switch {
	case b.Init == nil:
	case b.Init.Values != nil:
		return len(b.Init.Values), true
	case b.Init.Bytes != nil:
		n := len(strings.TrimPrefix(strings.TrimPrefix(*b.Init.Bytes, "0x"), "0X"))
		if n%(2*t.Size()) == 0 {
			return n / (2 * t.Size()), true
		}
	}
	return 0, false
}

// dims converts a grid or block array of up to 3 dimensions.
func dims(what string, v []int) ([3]int, error) {
	d := [3]int{1, 1, 1}
	if len(v) > 3 {
		return d, fmt.Errorf("%s has %d dimensions; at most 3 (x, y, z)", what, len(v))
	}
	for i, n := range v {
		if n < 1 {
			return d, fmt.Errorf("%s[%d] is %d; dimensions must be >= 1", what, i, n)
		}
		d[i] = n
	}
	return d, nil
}

// BufWhere names buffer i of a spec in a message ("buffers[i] (name)").
func BufWhere(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("buffers[%d]", i)
	}
	return fmt.Sprintf("buffers[%d] (%q)", i, name)
}

// cleanErrAt is cleanErr with JSON syntax errors located by line and
// column in data.
func cleanErrAt(err error, data []byte) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(data)) {
		before := data[:max(se.Offset-1, 0)]
		line := bytes.Count(before, []byte("\n")) + 1
		col := len(before) - bytes.LastIndexByte(before, '\n')
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, se.Error())
	}
	return cleanErr(err)
}

// cleanErr rewrites encoding/json errors into spec terms.
func cleanErr(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return fmt.Errorf("a spec is a JSON object, not a JSON %s", te.Value)
		}
		return fmt.Errorf("%s: expected %s, got JSON %s", field, jsonKind(te.Type.String()), te.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return fmt.Errorf("%s (see docs/launch-spec.md)", msg)
	}
	return errors.New(msg)
}

func jsonKind(goType string) string {
	switch goType {
	case "int", "int64":
		return "an integer"
	case "uint64":
		return "an integer >= 0"
	case "string", "launch.Value":
		return "a string"
	case "bool":
		return "true or false"
	}
	if strings.HasPrefix(goType, "[]") {
		return "an array"
	}
	return "an object"
}

// Validate checks the spec: everything that does not need the program.
// (A spec built in Go for a program compiled by its caller needs neither
// PTX nor Source; ParseSpec requires one of them.)
func (s *Spec) Validate(lim Limits) error {
	if s.Version != 0 && s.Version != SpecVersion {
		return fmt.Errorf("unsupported spec version %d (this ptxplay reads version %d)", s.Version, SpecVersion)
	}
	if n := btoi(s.PTX != "") + btoi(s.Source != "") + btoi(s.CUDA != ""); n > 1 {
		return errors.New("give one of \"ptx\" (a file), \"source\" (the text) or \"cuda\" (a CUDA file), not both")
	}
	if s.CUDAOptions != nil && s.CUDA == "" {
		return errors.New("\"cudaOptions\" needs \"cuda\"")
	}
	if o := s.CUDAOptions; o != nil && (o.Level() < 0 || o.Level() > 3 || len(o.Arch) > 16) {
		return errors.New("\"cudaOptions\": opt must be 0..3 and arch a target such as \"sm_80\"")
	}
	// (The upper bounds of grid, block and dynamicSharedBytes depend on
	// the kernel: emu.CheckConfig checks them, without overflow.)
	for i, d := range s.Grid {
		if d < 0 {
			return fmt.Errorf("grid[%d] is %d; dimensions must be >= 1", i, d)
		}
	}
	for i, d := range s.Block {
		if d < 0 {
			return fmt.Errorf("block[%d] is %d; dimensions must be >= 1", i, d)
		}
	}
	for i, d := range s.Cluster {
		if d < 0 || d > isa.MaxClusterCTAs {
			return fmt.Errorf("cluster[%d] is %d; cluster dimensions must be between 1 and %d", i, d, isa.MaxClusterCTAs)
		}
	}
	if s.DynamicSharedBytes < 0 {
		return fmt.Errorf("dynamicSharedBytes is %d; must be >= 0", s.DynamicSharedBytes)
	}
	if s.MaxWarpInstructions < 0 {
		return fmt.Errorf("maxWarpInstructions is %d; must be >= 0 (0: no limit)", s.MaxWarpInstructions)
	}
	if _, err := isa.ParseScheduling(s.Scheduling); err != nil {
		return err
	}
	names := map[string]int{}
	var total int64
	for i := range s.Buffers {
		b := &s.Buffers[i]
		where := BufWhere(i, b.Name)
		if b.Name == "" {
			return fmt.Errorf("%s: missing \"name\"", where)
		}
		if j, dup := names[b.Name]; dup {
			return fmt.Errorf("%s: name %q is already used by buffers[%d]", where, b.Name, j)
		}
		names[b.Name] = i
		if b.Type == "" {
			return fmt.Errorf("%s: missing \"type\" (%s)", where, typeList)
		}
		t, err := LookupType(b.Type)
		if err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		if b.Count < 0 {
			return fmt.Errorf("%s: count is %d; must be >= 0", where, b.Count)
		}
		// Bounded before multiplying: count × size must not wrap.
		left := max(lim.MaxBufferBytes-total, 0)
		if int64(b.Count) > left/int64(t.Size()) {
			return fmt.Errorf("%s: count %d of %s (%d-byte elements) exceeds the limit of %d bytes for all buffers together (%d bytes left)", where, b.Count, b.Type, t.Size(), lim.MaxBufferBytes, left)
		}
		total += int64(b.Count) * int64(t.Size())
		if err := CheckInit(b, t); err != nil {
			return fmt.Errorf("%s: init: %v", where, err)
		}
	}
	for i, p := range s.Params {
		if err := checkParam(p, names); err != nil {
			return fmt.Errorf("params[%d]: %v", i, err)
		}
	}
	l := lim
	s.limits = &l
	return nil
}

// CheckInit validates a buffer's init without filling anything.
func CheckInit(b *Buffer, t isa.Type) error {
	in := b.Init
	if in == nil {
		return nil
	}
	n := 0
	for _, set := range []bool{in.Values != nil, in.Iota != nil, in.Fill != nil, in.Bytes != nil, in.Random != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("needs exactly one of \"values\", \"iota\", \"fill\", \"bytes\", \"random\" (got %d)", n)
	}
	switch {
	case in.Values != nil:
		if len(in.Values) > b.Count {
			return fmt.Errorf("%d values for a buffer of %d elements", len(in.Values), b.Count)
		}
		for i, v := range in.Values {
			if _, err := EncodeValue(v, t); err != nil {
				return fmt.Errorf("values[%d]: %v", i, err)
			}
		}
	case in.Fill != nil:
		if _, err := EncodeValue(*in.Fill, t); err != nil {
			return fmt.Errorf("fill: %v", err)
		}
	case in.Bytes != nil:
		raw, err := DecodeHex(*in.Bytes)
		if err != nil {
			return fmt.Errorf("bytes: %v", err)
		}
		if max := int64(b.Count) * int64(t.Size()); int64(len(raw)) > max {
			return fmt.Errorf("bytes: %d bytes for a buffer of %d bytes", len(raw), max)
		}
	case in.Iota != nil:
		if _, err := newIota(in.Iota, t); err != nil {
			return fmt.Errorf("iota: %v", err)
		}
	case in.Random != nil:
		if _, err := newRandom(in.Random, t); err != nil {
			return fmt.Errorf("random: %v", err)
		}
	}
	return nil
}

// DecodeHex decodes a hex string (an optional "0x" prefix is allowed).
func DecodeHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits (%d)", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		var ie hex.InvalidByteError
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("invalid hex digit %q", rune(ie))
		}
		return nil, err
	}
	return b, nil
}

func checkParam(p Param, buffers map[string]int) error {
	switch {
	case p.TensorMap != nil:
		return checkTensorMap(p.TensorMap, buffers)
	case p.Buffer != "":
		if _, ok := buffers[p.Buffer]; !ok {
			return fmt.Errorf("no buffer named %q", p.Buffer)
		}
		if p.Offset < 0 {
			return fmt.Errorf("offset %d is negative", p.Offset)
		}
	case p.Bytes != nil:
		if _, err := DecodeHex(*p.Bytes); err != nil {
			return fmt.Errorf("bytes: %v", err)
		}
	case p.Type != "":
		t, err := LookupType(p.Type)
		if err != nil {
			return err
		}
		if len(p.Values) == 0 {
			return fmt.Errorf("%s: no value", p.Type)
		}
		for i, v := range p.Values {
			if _, err := EncodeValue(v, t); err != nil {
				if len(p.Values) == 1 {
					return fmt.Errorf("%s: %v", p.Type, err)
				}
				return fmt.Errorf("%s[%d]: %v", p.Type, i, err)
			}
		}
	default:
		return errors.New("empty parameter (want {\"buffer\": name}, {\"bytes\": hex} or {TYPE: value})")
	}
	return nil
}

// Load returns the PTX text of the spec and a name for diagnostics: the
// file named by PTX, resolved against baseDir (the spec file's folder)
// unless absolute, or the inline Source (named "<source>").
func (s *Spec) Load(baseDir string) (source []byte, name string, err error) {
	if s.Source != "" {
		return []byte(s.Source), "<source>", nil
	}
	if s.CUDA != "" {
		return nil, "", errors.New("the spec names a CUDA file: compile it (LoadCUDA) and launch its PTX")
	}
	if s.PTX == "" {
		return nil, "", errors.New("the spec names no PTX (\"ptx\" or \"source\")")
	}
	path := s.PTX
	if !filepath.IsAbs(path) && baseDir != "" {
		path = filepath.Join(baseDir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("cannot read the PTX file: %v", err)
	}
	return data, path, nil
}

// LoadCUDA returns the text of the spec's CUDA file (resolved like PTX)
// and its path.
func (s *Spec) LoadCUDA(baseDir string) (source []byte, name string, err error) {
	if s.CUDA == "" {
		return nil, "", errors.New("the spec names no CUDA file (\"cuda\")")
	}
	path := s.CUDA
	if !filepath.IsAbs(path) && baseDir != "" {
		path = filepath.Join(baseDir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("cannot read the CUDA file: %v", err)
	}
	return data, path, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MarshalIndent returns s as JSON laid out like the gallery's specs: one
// member per line, each buffer and each parameter on a line of its own,
// and a final newline. Grid and block dimensions of 0 are written as 1.
func (s *Spec) MarshalIndent() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	first := true
	member := func(key string, v any) error {
		j, err := marshalPlain(v)
		if err != nil {
			return err
		}
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "\n  %q: %s", key, spaceJSON(j))
		return nil
	}
	list := func(key string, n int, elem func(i int) any) error {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "\n  %q: [", key)
		for i := 0; i < n; i++ {
			j, err := marshalPlain(elem(i))
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    %s", spaceJSON(j))
		}
		if n > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]")
		return nil
	}
	type opt struct {
		key string
		v   any
		set bool
	}
	for _, m := range []opt{
		{"version", s.Version, s.Version != 0},
		{"comment", s.Comment, s.Comment != ""},
		{"ptx", s.PTX, s.PTX != ""},
		{"source", s.Source, s.Source != ""},
		{"cuda", s.CUDA, s.CUDA != ""},
		{"cudaOptions", s.CUDAOptions, s.CUDAOptions != nil},
		{"entry", s.Entry, s.Entry != ""},
		{"grid", Ones(s.Grid), true},
		{"block", Ones(s.Block), true},
		{"cluster", Ones(s.Cluster), s.Cluster != [3]int{}},
		{"dynamicSharedBytes", s.DynamicSharedBytes, s.DynamicSharedBytes != 0},
		{"maxWarpInstructions", s.MaxWarpInstructions, s.MaxWarpInstructions != 0},
		{"scheduling", s.Scheduling, s.Scheduling != ""},
	} {
		if m.set {
			if err := member(m.key, m.v); err != nil {
				return nil, err
			}
		}
	}
	if err := list("buffers", len(s.Buffers), func(i int) any { return s.Buffers[i] }); err != nil {
		return nil, err
	}
	if err := list("params", len(s.Params), func(i int) any { return s.Params[i] }); err != nil {
		return nil, err
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// marshalPlain is json.Marshal without the escaping of <, > and & (PTX
// source has plenty of them).
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// spaceJSON puts a space after each colon and comma of compact JSON that
// are outside strings.
func spaceJSON(j []byte) []byte {
	out := make([]byte, 0, len(j)+len(j)/4)
	inStr, esc := false, false
	for _, c := range j {
		out = append(out, c)
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// Ones returns d with its missing (zero) dimensions set to 1.
func Ones(d [3]int) [3]int {
	for i := range d {
		if d[i] == 0 {
			d[i] = 1
		}
	}
	return d
}

// CheckedLimits returns the limits the spec was last validated against
// (ok false: it was never validated).
func (s *Spec) CheckedLimits() (lim Limits, ok bool) {
	if s.limits == nil {
		return Limits{}, false
	}
	return *s.limits, true
}

// SetAllocSlack makes the launch map n zero-filled bytes after every
// global allocation (see emu.Config.AllocSlack). It is not part of the
// JSON format: conformance tests that replay kernels recorded on GPUs use
// it to model the CUDA driver's allocation granularity.
func (s *Spec) SetAllocSlack(n int) { s.allocSlack = n }

// AllocSlack is what SetAllocSlack set.
func (s *Spec) AllocSlack() int { return s.allocSlack }

// IsBufferType says whether t is a type a buffer may have.
func IsBufferType(t isa.Type) bool {
	_, ok := elemTypes[t.String()]
	return ok
}
