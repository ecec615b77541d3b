package launch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Mismatch is a way a launch spec does not fit a program's kernel.
type Mismatch struct {
	// Field is the part of the spec concerned: "spec" (the spec itself is
	// invalid), "entry", "grid", "block", "dynamicSharedBytes", "params"
	// (their number) or "params[i]".
	Field string `json:"field"`
	// Param is the kernel parameter concerned, or -1.
	Param int `json:"param"`
	// ID is the mismatch's stable diagnostic ID (ptx.IDs: spec-invalid,
	// spec-entry, spec-launch-config, spec-param-count,
	// spec-param-mismatch, spec-param-advice).
	ID      ptx.DiagID `json:"id"`
	Message string     `json:"message"`
	// Blocking is true when Prepare rejects the spec for this reason;
	// the other mismatches let the launch start but it is unlikely to do
	// what the kernel expects (a buffer passed where the kernel reads an
	// integer, an f32 buffer where it loads s32, ...).
	Blocking bool `json:"blocking"`
}

func (m Mismatch) String() string { return m.Message }

// Check returns the ways s does not fit program p: no kernel named as
// s.Entry, a grid or block the kernel does not allow, a wrong number of
// parameters, a parameter of the wrong size, a buffer bound to a
// parameter the kernel uses as an integer, an integer passed where the
// kernel loads through a pointer, element or scalar types of the wrong
// kind. Every reason for which Prepare would reject s is a Blocking
// mismatch; a spec without mismatches is one Infer returns unchanged.
// Check does not modify s.
func Check(p *emu.Program, s *Spec) []Mismatch {
	var out []Mismatch
	add := func(id ptx.DiagID, field string, param int, blocking bool, msg string) {
		for _, m := range out {
			if m.Message == msg {
				return
			}
		}
		out = append(out, Mismatch{Field: field, Param: param, ID: id, Message: msg, Blocking: blocking})
	}
	if p == nil || s == nil {
		add(ptx.DiagSpecInvalid, "spec", -1, true, "no program or no spec")
		return out
	}
	lim := DefaultLimits
	if l, ok := s.CheckedLimits(); ok {
		lim = l
	}
	c := *s
	if err := c.Validate(lim); err != nil {
		add(ptx.DiagSpecInvalid, "spec", -1, true, err.Error())
	}
	fn, err := resolveEntry(p, s.Entry)
	if err != nil {
		add(ptx.DiagSpecEntry, "entry", -1, true, err.Error())
		return out
	}
	cfg := emu.Config{Grid: s.Grid, Block: s.Block, Cluster: s.Cluster, DynamicSharedBytes: s.DynamicSharedBytes}
	if err := emu.CheckConfig(p, fn, &cfg); err != nil {
		field := "grid"
		var ce *emu.ConfigError
		if errors.As(err, &ce) {
			field = ce.Field
		}
		add(ptx.DiagSpecConfig, field, -1, true, err.Error())
	}
	kf := analyzeKernel(p, fn)
	if len(s.Params) != len(fn.Params) {
		add(ptx.DiagSpecParamCnt, "params", -1, true, paramCountMessage(fn, len(s.Params)))
	}
	bufs := specBuffers(s)
	for i := 0; i < len(s.Params) && i < len(fn.Params); i++ {
		where := fmt.Sprintf("params[%d]", i)
		if msg := paramBlocking(fn, i, s.Params[i], bufs.bytes); msg != "" {
			add(ptx.DiagSpecParam, where, i, true, msg)
		} else if msg := paramAdvice(kf, i, s.Params[i], bufs); msg != "" {
			add(ptx.DiagSpecParamHint, where, i, false, msg)
		}
	}
	return out
}

// resolveEntry finds the kernel a spec names: entry, or the module's only
// kernel when entry is "".
func resolveEntry(p *emu.Program, entry string) (*emu.Function, error) {
	ks := p.Entries()
	if entry == "" {
		switch len(ks) {
		case 1:
			return ks[0], nil
		case 0:
			return nil, errors.New("the module has no kernel (.entry with a body)")
		}
		return nil, fmt.Errorf("the module has %d kernels; choose one with \"entry\": %s", len(ks), kernelNames(ks))
	}
	fn := p.Function(entry)
	if !isKernel(fn) {
		if len(ks) == 0 {
			return nil, fmt.Errorf("no kernel named %q (the module has no kernel)", entry)
		}
		return nil, fmt.Errorf("no kernel named %q (kernels: %s)", entry, kernelNames(ks))
	}
	return fn, nil
}

func kernelNames(ks []*emu.Function) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

func paramCountMessage(k *emu.Function, given int) string {
	var names []string
	for _, p := range k.Params {
		names = append(names, describeParam(p))
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	return fmt.Sprintf("kernel %s takes %d parameters (%s); the spec gives %d", k.Name, len(k.Params), list, given)
}

func paramWhere(k *emu.Function, i int) string {
	kp := k.Params[i]
	return fmt.Sprintf("params[%d]: parameter %s of kernel %s (%s)", i, kp.Name, k.Name, describeParam(kp))
}

// bufferSet finds a spec's buffers by name (the first of a name).
type bufferSet map[string]*Buffer

func specBuffers(s *Spec) bufferSet {
	m := bufferSet{}
	for i := range s.Buffers {
		if _, dup := m[s.Buffers[i].Name]; !dup {
			m[s.Buffers[i].Name] = &s.Buffers[i]
		}
	}
	return m
}

// bytes returns the size of the named buffer.
func (m bufferSet) bytes(name string) (int64, bool) {
	b := m[name]
	if b == nil {
		return 0, false
	}
	t, err := lookupType(b.Type)
	if err != nil {
		return 0, true
	}
	return int64(b.Count) * int64(t.Size()), true
}

// paramBlocking returns why spec parameter p cannot be passed as kernel
// parameter i ("" if it can): the checks Prepare makes.
func paramBlocking(k *emu.Function, i int, p Param, bufBytes func(string) (int64, bool)) string {
	kp := k.Params[i]
	where := paramWhere(k, i)
	switch {
	case p.TensorMap != nil:
		t := p.TensorMap
		size, ok := bufBytes(t.Buffer)
		if !ok {
			return fmt.Sprintf("%s: tensorMap.buffer: no buffer named %q", where, t.Buffer)
		}
		if kp.Size != isa.TensorMapBytes && kp.Size != 8 {
			return fmt.Sprintf("%s: a tensor map is passed as a .param .align 64 .b8 %s[128] parameter (by value) or as a .u64 (its address); this parameter is %d bytes", where, kp.Name, kp.Size)
		}
		if kp.Size == isa.TensorMapBytes && kp.Align != 0 && kp.Align < 64 {
			return fmt.Sprintf("%s: a tensor map passed by value needs .align 64, the parameter has .align %d", where, kp.Align)
		}
		m, err := t.Map(launchspec.TensorMapBufferAlign)
		if err != nil {
			return fmt.Sprintf("%s: %v", where, err)
		}
		if msg := launchspec.TensorMapFits(m, t.Offset, size); msg != "" {
			return fmt.Sprintf("%s: %s", where, strings.Replace(msg, "buffer's", fmt.Sprintf("buffer %q's", t.Buffer), 1))
		}
	case p.Buffer != "":
		size, ok := bufBytes(p.Buffer)
		if !ok {
			return fmt.Sprintf("%s: no buffer named %q", where, p.Buffer)
		}
		if kp.Size != 8 {
			return fmt.Sprintf("%s: is not 8 bytes wide, so it cannot hold the address of buffer %q", where, p.Buffer)
		}
		if p.Offset < 0 {
			return fmt.Sprintf("%s: offset %d is negative", where, p.Offset)
		}
		if p.Offset > size {
			return fmt.Sprintf("%s: offset %d is past the end of buffer %q (%d bytes)", where, p.Offset, p.Buffer, size)
		}
	case p.Bytes != nil:
		raw, err := decodeHex(*p.Bytes)
		if err != nil {
			return fmt.Sprintf("%s: bytes: %v", where, err)
		}
		if len(raw) != kp.Size {
			return fmt.Sprintf("%s: %d bytes given, the parameter has %d", where, len(raw), kp.Size)
		}
	case p.Type != "":
		t, err := lookupType(p.Type)
		if err != nil {
			return fmt.Sprintf("%s: %v", where, err)
		}
		if n := len(p.Values) * t.Size(); n != kp.Size {
			what := fmt.Sprintf("a %s value gives %d bytes", p.Type, n)
			if len(p.Values) != 1 {
				what = fmt.Sprintf("%d %s values give %d bytes", len(p.Values), p.Type, n)
			}
			return fmt.Sprintf("%s: %s, the parameter has %d", where, what, kp.Size)
		}
		for _, v := range p.Values {
			if _, err := encodeValue(v, t); err != nil {
				return fmt.Sprintf("%s: %v", where, err)
			}
		}
	default:
		return fmt.Sprintf("%s: empty parameter", where)
	}
	return ""
}

// paramAdvice returns why spec parameter p, which Prepare accepts for
// kernel parameter i, does not fit the way the kernel uses it ("" if it
// fits).
func paramAdvice(kf *kernelFacts, i int, p Param, bufs bufferSet) string {
	k := kf.fn
	kp := k.Params[i]
	where := paramWhere(k, i)
	role := kf.role(i)
	if p.TensorMap != nil {
		return "" // checked by paramBlocking
	}
	if kf.isTensorMap(i) {
		return fmt.Sprintf("%s: the kernel uses it as a tensor map (in %s), but it gets %s, not a tensor map", where, kf.params[i].tmap[0].what, describeSpecParam(p))
	}
	if p.Buffer != "" {
		b := bufs[p.Buffer]
		switch {
		case b == nil:
		case role == RoleScalar:
			return fmt.Sprintf("%s: the kernel uses it as an integer, not as an address, but it gets the address of buffer %q", where, p.Buffer)
		case role == RolePointer:
			want := kf.params[i].elemType()
			got, err := lookupType(b.Type)
			if err == nil && want != isa.TNone && !typesFit(want, got) && !kf.params[i].holdsPacked(want, got) {
				return fmt.Sprintf("%s: the kernel accesses it as %s, but buffer %q holds %s", where, want, p.Buffer, b.Type)
			}
		}
		return ""
	}
	if role == RolePointer && kf.bindable(i) {
		what := "raw bytes"
		if p.Type != "" {
			what = "a " + p.Type + " value"
		}
		return fmt.Sprintf("%s: the kernel %s through it, but it gets %s, not a buffer", where, kf.params[i].accessVerb(), what)
	}
	if p.Type == "" || kp.Size != kp.Type.Size() {
		return "" // raw bytes and arrays: only sizes are checked
	}
	got, err := lookupType(p.Type)
	if err != nil || typesFit(paramValueType(kf, i), got) {
		return ""
	}
	if kp.Type.IsFloat() {
		return fmt.Sprintf("%s: is a floating-point parameter, but it gets %s value", where, article(p.Type))
	}
	return fmt.Sprintf("%s: is an integer parameter, but it gets %s value", where, article(p.Type))
}

// paramValueType is the type of the value kernel parameter i takes: its
// PTX type, except that a bit-size parameter the kernel uses as a float
// takes the float type of its size.
func paramValueType(kf *kernelFacts, i int) isa.Type {
	t := kf.fn.Params[i].Type
	if t.Kind() == isa.KindBits && kf.use(i) == UseFloat {
		switch t.Size() {
		case 2:
			return isa.F16
		case 4:
			return isa.F32
		case 8:
			return isa.F64
		}
	}
	return t
}

// typesFit reports whether a value or buffer of type got suits type want:
// the same size, and not a float for an integer or the other way round
// (bit-size types suit either).
func typesFit(want, got isa.Type) bool {
	if want.Size() != got.Size() {
		return false
	}
	wk, gk := want.Kind(), got.Kind()
	if wk == isa.KindBits || gk == isa.KindBits {
		return true
	}
	return (wk == isa.KindFloat) == (gk == isa.KindFloat)
}

// holdsPacked reports whether a buffer of type got suits a pointer whose
// accesses are all bit-size (.b32, .v4.b32, ...) of type want's size: such
// accesses move raw bits, e.g. packed pairs of halves (Triton and CUTLASS
// store f16 results with st.global.v4.b32), so any element that divides
// them fits.
func (pf *paramFacts) holdsPacked(want, got isa.Type) bool {
	if got.Size() == 0 || want.Size()%got.Size() != 0 {
		return false
	}
	for t := isa.Type(1); t < isa.NumTypes; t++ {
		if pf.votes[t] == 0 || t.Kind() == isa.KindBits {
			continue
		}
		// Compiled code moves raw data through unsigned integers wider
		// than an element (clang loads a uint4 of halves as .u64 pairs).
		if t.Kind() == isa.KindUnsigned && t.Size() > got.Size() && t.Size()%got.Size() == 0 {
			continue
		}
		return false
	}
	return true
}

func article(t string) string {
	if t != "" && (t[0] == 'f' || t[0] == 's') {
		return "an " + t
	}
	return "a " + t
}

// accessVerb says how the kernel accesses a pointer.
func (pf *paramFacts) accessVerb() string {
	switch {
	case pf.reads > 0 && pf.writes > 0:
		return "loads and stores"
	case pf.writes > 0:
		return "stores"
	case pf.reads > 0:
		return "loads"
	}
	return "addresses memory"
}
