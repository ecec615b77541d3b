package launch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// Note is a line saying what Infer inferred or changed, for display.
type Note struct {
	// Param is the kernel parameter the note is about, or -1.
	Param int    `json:"param"`
	Text  string `json:"text"`
}

func (n Note) String() string { return n.Text }

// FloatDefault is the value Infer gives a floating-point scalar
// parameter: 2 rather than 1, so that a scale factor visibly changes the
// result (saxpy's a*x + y with a = 1 would look like a plain sum).
const FloatDefault = 2

// Infer returns a launch spec for kernel entry of p, keeping what still
// fits of prev (which may be nil), and notes saying what it inferred or
// changed.
//
// With entry "", the kernel is prev's entry when the module still has it,
// else the module's first kernel. When prev already fits that kernel
// (Check reports nothing) Infer returns prev itself and no notes.
// Otherwise the result keeps prev's other fields (ptx, source, comment,
// limits), its grid and block when the kernel allows them, and each
// parameter (with its buffer) that still fits the parameter at the same
// position; the rest is inferred:
//   - a pointer parameter (one the kernel loads, stores or does atomics
//     through) gets a new buffer of the element type of those accesses,
//     with one element per thread of the launch (within the spec limits):
//     when the kernel only reads it, iota 0, 1, 2, ... (the k-th float
//     input counts in steps of k), zeros otherwise;
//   - an integer compared with a thread index (the "n" of a bounds check)
//     gets the number of threads along the dimensions of that index (and
//     at most the element count); an integer only added to addresses (an
//     offset) and an unused parameter get 0; other integers 1; floats
//     FloatDefault;
//   - the block is the kernel's .reqntid, else 64 threads (8x8 when the
//     kernel uses %tid.y, 4x4x4 with %tid.z, within .maxntid); the grid 1.
//
// The error is for a module without kernels, or an entry that names none.
func Infer(p *emu.Program, prev *Spec, entry string) (*Spec, []Note, error) {
	if p == nil {
		return nil, nil, errors.New("no program")
	}
	ks := p.Entries()
	if len(ks) == 0 {
		return nil, nil, errors.New("the module has no kernel (.entry with a body)")
	}
	var fn *emu.Function
	switch {
	case entry != "":
		var err error
		if fn, err = resolveEntry(p, entry); err != nil {
			return nil, nil, err
		}
	case prev != nil && prev.Entry != "" && isKernel(p.Function(prev.Entry)):
		fn = p.Function(prev.Entry)
	default:
		fn = ks[0]
	}
	if prev != nil && (entry == "" || entry == prev.Entry || prev.Entry == "" && len(ks) == 1) && len(Check(p, prev)) == 0 {
		return prev, nil, nil
	}
	in := &inferrer{p: p, prev: prev, fn: fn, kf: analyzeKernel(p, fn), lim: DefaultLimits}
	s, err := in.run(ks, entry)
	return s, in.notes, err
}

type inferrer struct {
	p     *emu.Program
	prev  *Spec
	fn    *emu.Function
	kf    *kernelFacts
	lim   Limits
	s     *Spec
	notes []Note
}

func (in *inferrer) note(param int, format string, args ...any) {
	in.notes = append(in.notes, Note{Param: param, Text: fmt.Sprintf(format, args...)})
}

// paramNote is a note about kernel parameter i.
func (in *inferrer) paramNote(i int, format string, args ...any) {
	in.note(i, "param %d %q: %s", i, in.fn.Params[i].Name, fmt.Sprintf(format, args...))
}

func (in *inferrer) run(ks []*emu.Function, entry string) (*Spec, error) {
	prev, fn := in.prev, in.fn
	s := &Spec{Version: SpecVersion, Entry: fn.Name}
	in.s = s
	if prev != nil {
		s.Version, s.Comment, s.PTX, s.Source = prev.Version, prev.Comment, prev.PTX, prev.Source
		s.DynamicSharedBytes, s.MaxWarpInstructions = max(prev.DynamicSharedBytes, 0), max(prev.MaxWarpInstructions, 0)
		if l, ok := prev.CheckedLimits(); ok {
			in.lim = l
		}
		if s.Version != 0 && s.Version != SpecVersion {
			s.Version = SpecVersion
		}
		if s.PTX != "" && s.Source != "" {
			s.PTX = ""
			in.note(-1, "\"ptx\" dropped: the spec gave both \"ptx\" and \"source\"")
		}
	}
	in.entryNote(ks, entry)
	in.launchShape()
	in.params()
	if err := s.Validate(in.lim); err != nil {
		return nil, fmt.Errorf("internal error: the inferred spec is invalid: %v", err)
	}
	return s, nil
}

func (in *inferrer) entryNote(ks []*emu.Function, entry string) {
	prev, name := in.prev, in.fn.Name
	switch {
	case prev != nil && prev.Entry == name:
	case entry != "":
		in.note(-1, "entry %q", name)
	case prev != nil && prev.Entry != "":
		in.note(-1, "entry %q: the module has no kernel %q (kernels: %s)", name, prev.Entry, kernelNames(ks))
	case len(ks) == 1:
		in.note(-1, "entry %q (the module's only kernel)", name)
	default:
		in.note(-1, "entry %q (the first of %d kernels: %s)", name, len(ks), kernelNames(ks))
	}
}

// launchShape sets the grid, the block and the dynamic shared memory.
func (in *inferrer) launchShape() {
	s, fn := in.s, in.fn
	block, why := defaultBlock(fn, in.kf)
	if in.prev == nil {
		s.Grid, s.Block = [3]int{1, 1, 1}, block
		in.note(-1, "block %s (%s), grid %s", dimsText(s.Block), why, dimsText(s.Grid))
		in.dynamicShared()
	} else {
		s.Grid, s.Block = launchspec.Ones(in.prev.Grid), launchspec.Ones(in.prev.Block)
		s.Cluster = in.prev.Cluster
	}
	for try := 0; try < 4; try++ {
		cfg := emu.Config{Grid: s.Grid, Block: s.Block, Cluster: s.Cluster, DynamicSharedBytes: s.DynamicSharedBytes}
		err := emu.CheckConfig(in.p, fn, &cfg)
		var ce *emu.ConfigError
		if err == nil || !errors.As(err, &ce) {
			break
		}
		switch ce.Field {
		case "module":
			return // no launch configuration can fix it
		case "block":
			s.Block = block
			in.note(-1, "block %s (%s): %v", dimsText(block), why, err)
		case "grid":
			s.Grid = [3]int{1, 1, 1}
			in.note(-1, "grid %s: %v", dimsText(s.Grid), err)
		case "cluster":
			// One cluster: of the kernel's .reqnctapercluster, else of
			// one CTA (explicit when the kernel asks for it).
			s.Cluster = [3]int{}
			if fn.ExplicitCluster && fn.ReqCluster[0] <= 0 {
				s.Cluster = [3]int{1, 1, 1}
			}
			c := emu.Config{Cluster: s.Cluster}
			s.Grid, _ = emu.ClusterDims(fn, &c)
			in.note(-1, "grid %s (one cluster): %v", dimsText(s.Grid), err)
		default:
			s.DynamicSharedBytes = 0
			in.note(-1, "dynamicSharedBytes 0: %v", err)
		}
	}
}

// dynamicShared gives a kernel of a module with an extern .shared array
// the program's default dynamic shared memory (48 KiB, what CUDA allows
// without opting in; the size the kernel needs cannot be read from its
// code).
func (in *inferrer) dynamicShared() {
	if n := in.p.DefaultDynamicShared(); n > 0 {
		in.s.DynamicSharedBytes = n
		in.note(-1, "dynamicSharedBytes %d (48 KiB for the extern .shared array %s)", n, in.p.DynamicSharedArray().Name)
	}
}

// defaultBlock is the block Infer gives kernel fn, and why.
func defaultBlock(fn *emu.Function, kf *kernelFacts) ([3]int, string) {
	if r := fn.ReqNTID; r[0] > 0 {
		return [3]int{r[0], max(r[1], 1), max(r[2], 1)}, "the kernel's .reqntid"
	}
	b, why := [3]int{64, 1, 1}, "default"
	switch {
	case kf.idxUsed&4 != 0:
		b, why = [3]int{4, 4, 4}, "the kernel uses %tid.z"
	case kf.idxUsed&2 != 0:
		b, why = [3]int{8, 8, 1}, "the kernel uses %tid.y"
	}
	if m := fn.MaxNTID; m[0] > 0 && b[0]*b[1]*b[2] > emu.NTIDThreads(m) {
		b, why = [3]int{m[0], max(m[1], 1), max(m[2], 1)}, "the kernel's .maxntid"
	}
	return b, why
}

func dimsText(d [3]int) string { return fmt.Sprintf("[%d, %d, %d]", d[0], d[1], d[2]) }

// params builds the buffers and parameters.
func (in *inferrer) params() {
	s, prev, fn, kf := in.s, in.prev, in.fn, in.kf
	n := len(fn.Params)
	s.Params = make([]Param, n)
	kept := make([]bool, n)
	var prevBufs bufferSet
	var keptBytes int64
	keptBuf := map[string]bool{}
	var extra []Buffer // prev's buffers that no parameter named: kept at the end
	if prev != nil {
		prevBufs = specBuffers(prev)
		if len(prev.Params) != n {
			in.note(-1, "kernel %s takes %d parameters; the spec gave %d", fn.Name, n, len(prev.Params))
		}
		for i := 0; i < n && i < len(prev.Params); i++ {
			pp := prev.Params[i]
			if paramBlocking(fn, i, pp, prevBufs.bytes) != "" || paramAdvice(kf, i, pp, prevBufs) != "" {
				continue
			}
			if pp.Buffer != "" && !keptBuf[pp.Buffer] {
				size, ok := in.bufferFits(prevBufs[pp.Buffer], keptBytes)
				if !ok {
					continue
				}
				keptBytes += size
				keptBuf[pp.Buffer] = true
			}
			s.Params[i], kept[i] = cloneParam(pp), true
		}
		named := map[string]bool{}
		for _, p := range prev.Params {
			named[p.Buffer] = true
		}
		for i := range prev.Buffers {
			b := &prev.Buffers[i]
			switch {
			case keptBuf[b.Name] || prevBufs[b.Name] != b:
			case named[b.Name]:
				in.note(-1, "buffer %q dropped (no parameter uses it any more)", b.Name)
			default:
				size, ok := in.bufferFits(b, keptBytes)
				if !ok {
					in.note(-1, "buffer %q dropped (it is invalid or does not fit the limits)", b.Name)
					continue
				}
				keptBytes += size
				keptBuf[b.Name] = true
				extra = append(extra, cloneBuffer(b))
			}
		}
	}
	// New buffers share what the limit leaves.
	var newBufs, tmaps []int
	var tmapBytes int64
	for i := range fn.Params {
		switch {
		case kept[i]:
		case kf.isTensorMap(i):
			tmaps = append(tmaps, i)
			tmapBytes += in.tensorMapBytes(i)
		case kf.role(i) == RolePointer && kf.bindable(i):
			newBufs = append(newBufs, i)
		}
	}
	room := max(in.lim.MaxBufferBytes-keptBytes-tmapBytes, 0)
	if room == 0 {
		// Tensor maps that do not fit get default boxes (small).
		room = max(in.lim.MaxBufferBytes-keptBytes, 0)
	}
	threads := int64(s.Grid[0]) * int64(s.Grid[1]) * int64(s.Grid[2]) * int64(s.Block[0]) * int64(s.Block[1]) * int64(s.Block[2])
	count := threads
	per := int64(0)
	if len(newBufs) > 0 {
		per = room / int64(len(newBufs))
		for _, i := range newBufs {
			count = min(count, per/int64(in.elemType(i).Size()))
		}
		count = max(count, 0)
	}
	// A buffer holds at least what one access through its pointer is
	// known to span (a 16x16 wmma fragment at stride 16: 256 elements).
	bufCount := func(i int) int64 {
		size := int64(in.elemType(i).Size())
		need := (kf.params[i].reach + size - 1) / size
		return max(count, min(need, per/size))
	}
	// A count compared with the thread index stays within every buffer
	// the kernel addresses.
	bound := count
	for i := range fn.Params {
		if kept[i] && kf.role(i) == RolePointer && s.Params[i].Buffer != "" {
			bound = min(bound, int64(prevBufs[s.Params[i].Buffer].Count))
		}
	}
	names := in.bufferNames(append(append([]int(nil), newBufs...), tmaps...), keptBuf)
	floatInputs := 0
	for i := range fn.Params {
		if kept[i] {
			if b := s.Params[i].Buffer; b != "" && keptBuf[b] && !in.nameTaken(b, s.Buffers) {
				s.Buffers = append(s.Buffers, cloneBuffer(prevBufs[b]))
			}
			continue
		}
		was := ""
		if prev != nil && i < len(prev.Params) {
			was = ", replacing " + describeSpecParam(prev.Params[i])
		}
		if kf.isTensorMap(i) {
			p, b, notes := in.tensorMap(i, names[i], in.lim.MaxBufferBytes-keptBytes)
			s.Buffers = append(s.Buffers, b)
			s.Params[i] = p
			in.tensorMapNote(i, p, b, notes, was)
			continue
		}
		if kf.role(i) == RolePointer && kf.bindable(i) {
			name := names[i]
			b := in.newBuffer(i, name, int(bufCount(i)))
			init := "zeros"
			if b.Init != nil {
				// The k-th float input counts in steps of k+1, so that the
				// inputs differ (a+b is then 3i, not 2i); integer inputs
				// count in steps of 1 (they may be indices).
				step := 1
				if t, _ := lookupType(b.Type); t.IsFloat() {
					floatInputs++
					step = floatInputs
				}
				b.Init.Iota.Step = Value(strconv.Itoa(step))
				init = fmt.Sprintf("iota 0, %d, %d, …", step, 2*step)
			}
			s.Buffers = append(s.Buffers, b)
			s.Params[i] = BufferParam(name)
			in.paramNote(i, "pointer (%s) → buffer %q: %d × %s, %s%s", in.accessText(i), name, b.Count, b.Type, init, was)
			continue
		}
		p, why := in.scalar(i, bound)
		s.Params[i] = p
		in.paramNote(i, "%s%s%s", describeSpecParam(p), why, was)
	}
	// Buffers in the order of the parameters that use them, then the kept
	// buffers no parameter uses.
	s.Buffers = append(s.Buffers, extra...)
}

// cloneBuffer returns a copy of b that shares nothing with it.
func cloneBuffer(b *Buffer) Buffer {
	c := *b
	if b.Output != nil {
		o := *b.Output
		c.Output = &o
	}
	if in := b.Init; in != nil {
		ci := *in
		ci.Values = append([]Value(nil), in.Values...)
		if in.Iota != nil {
			x := *in.Iota
			ci.Iota = &x
		}
		if in.Fill != nil {
			x := *in.Fill
			ci.Fill = &x
		}
		if in.Bytes != nil {
			x := *in.Bytes
			ci.Bytes = &x
		}
		if in.Random != nil {
			x := *in.Random
			if in.Random.Min != nil {
				m := *in.Random.Min
				x.Min = &m
			}
			if in.Random.Max != nil {
				m := *in.Random.Max
				x.Max = &m
			}
			ci.Random = &x
		}
		c.Init = &ci
	}
	return c
}

// cloneParam returns a copy of p that shares nothing with it.
func cloneParam(p Param) Param {
	p.Values = append([]Value(nil), p.Values...)
	if p.Bytes != nil {
		x := *p.Bytes
		p.Bytes = &x
	}
	return p
}

// bufferFits reports whether prev buffer b is valid and fits in the
// limit next to used bytes, and returns its size.
func (in *inferrer) bufferFits(b *Buffer, used int64) (int64, bool) {
	if b == nil || b.Name == "" || b.Count < 0 {
		return 0, false
	}
	t, err := lookupType(b.Type)
	if err != nil || checkInit(b, t) != nil {
		return 0, false
	}
	size := int64(b.Count) * int64(t.Size())
	if size > in.lim.MaxBufferBytes-used {
		return 0, false
	}
	return size, true
}

func (in *inferrer) nameTaken(name string, bufs []Buffer) bool {
	for _, b := range bufs {
		if b.Name == name {
			return true
		}
	}
	return false
}

// elemType is the element type of a new buffer for parameter i.
func (in *inferrer) elemType(i int) isa.Type {
	if t := in.kf.params[i].elemType(); t != isa.TNone {
		return t
	}
	return isa.U32
}

// accessText says how the kernel accesses pointer parameter i.
func (in *inferrer) accessText(i int) string {
	pf := &in.kf.params[i]
	if pf.reads == 0 && pf.writes == 0 {
		return "declared .ptr.global; no access found"
	}
	if t := pf.elemType(); t != isa.TNone {
		return fmt.Sprintf("the kernel %s %s through it", pf.accessVerb(), t)
	}
	return fmt.Sprintf("the kernel %s through it; no typed access found", pf.accessVerb())
}

func (in *inferrer) newBuffer(i int, name string, count int) Buffer {
	pf := &in.kf.params[i]
	b := Buffer{Name: name, Type: in.elemType(i).String(), Count: count}
	if pf.reads > 0 && pf.writes == 0 {
		b.Init = &Init{Iota: &Iota{Start: "0", Step: "1"}}
	}
	return b
}

// plainName reports whether a parameter's name reads well as a buffer's:
// a letter or underscore, then up to 31 letters, digits and underscores.
func plainName(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c|0x20 < 'a' || c|0x20 > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// bufferNames names the new buffers (by parameter index): the parameter's
// name when it reads well, else in, out or inout by how the kernel uses
// it (numbered when there are several). The names of the buffers kept
// from prev are avoided.
func (in *inferrer) bufferNames(newBufs []int, kept map[string]bool) map[int]string {
	names := map[int]string{}
	taken := map[string]bool{}
	for name := range kept {
		taken[name] = true
	}
	if in.prev != nil {
		// Buffers no parameter named are kept too.
		named := map[string]bool{}
		for _, p := range in.prev.Params {
			named[p.Buffer] = true
		}
		for _, b := range in.prev.Buffers {
			if !named[b.Name] {
				taken[b.Name] = true
			}
		}
	}
	base := map[int]string{}
	roles := map[string]int{}
	for _, i := range newBufs {
		name := in.fn.Params[i].Name
		if !plainName(name) || strings.Contains(name, "_param_") || strings.HasPrefix(name, "_Z") {
			pf := &in.kf.params[i]
			switch {
			case in.kf.isTensorMap(i):
				name = "tensor"
			case pf.reads > 0 && pf.writes > 0:
				name = "inout"
			case pf.writes > 0:
				name = "out"
			default:
				name = "in"
			}
			roles[name]++
		}
		base[i] = name
	}
	seen := map[string]int{}
	for _, i := range newBufs {
		name := base[i]
		if roles[name] > 1 {
			name += strconv.Itoa(seen[name])
			seen[base[i]]++
		}
		for k := 2; taken[name]; k++ {
			name = base[i] + strconv.Itoa(k)
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// scalar is the value Infer gives non-buffer parameter i, and why; count
// bounds the value of a count.
func (in *inferrer) scalar(i int, count int64) (Param, string) {
	kp := in.fn.Params[i]
	kf := in.kf
	pf := &kf.params[i]
	t := paramValueType(kf, i)
	if !launchspec.IsBufferType(t) || kp.Size != t.Size() {
		what := "an array"
		if kp.Size == t.Size() {
			what = "of type ." + kp.Type.String()
		}
		return BytesParam(make([]byte, kp.Size)), fmt.Sprintf(" (zero bytes: the parameter is %s)", what)
	}
	role := kf.role(i)
	zero := ScalarParam(t.String(), "0")
	switch {
	case role == RolePointer:
		return zero, " (a pointer, but the emulator's 64-bit global addresses do not fit in it: the kernel faults if it uses it)"
	case role == RoleUnused:
		return zero, " (unused by the kernel)"
	}
	switch kf.use(i) {
	case UseFloat:
		return ScalarParam(t.String(), Value(strconv.Itoa(FloatDefault))), " (floating-point parameters default to 2)"
	case UseCount:
		n := count
		for _, m := range pf.cmpMasks() {
			n = min(n, indexExtent(m, in.s.Grid, in.s.Block))
		}
		n = min(n, maxOfType(t))
		return ScalarParam(t.String(), Value(strconv.FormatInt(n, 10))), " (compared with the thread index)"
	case UseOffset:
		return zero, " (added to an address: an offset)"
	}
	return ScalarParam(t.String(), "1"), ""
}

// indexExtent is the number of values a thread index of mask m takes in
// the launch: along each dimension it uses, the block size for %tid alone,
// the grid size times the block size with %ctaid, %ntid or %nctaid.
func indexExtent(m uint8, grid, block [3]int) int64 {
	n := int64(1)
	dims := false
	for d := 0; d < 3; d++ {
		switch {
		case m>>(4+d)&1 != 0:
			n *= int64(grid[d]) * int64(block[d])
			dims = true
		case m>>d&1 != 0:
			n *= int64(block[d])
			dims = true
		}
	}
	if !dims {
		return int64(grid[0]) * int64(grid[1]) * int64(grid[2]) * int64(block[0]) * int64(block[1]) * int64(block[2])
	}
	return n
}

// maxOfType is the largest value of integer type t that fits in an int64.
func maxOfType(t isa.Type) int64 {
	b := t.Bits()
	if t.IsSigned() {
		b--
	}
	if b >= 63 {
		return 1<<63 - 1
	}
	return 1<<b - 1
}

// describeSpecParam renders a spec parameter for notes.
func describeSpecParam(p Param) string {
	switch {
	case p.TensorMap != nil:
		return fmt.Sprintf("a tensor map of buffer %q", p.TensorMap.Buffer)
	case p.Buffer != "":
		return fmt.Sprintf("the address of buffer %q", p.Buffer)
	case p.Bytes != nil:
		return "raw bytes"
	case len(p.Values) == 1:
		return fmt.Sprintf("scalar %s = %s", p.Type, p.Values[0])
	}
	return fmt.Sprintf("%d %s values", len(p.Values), p.Type)
}
