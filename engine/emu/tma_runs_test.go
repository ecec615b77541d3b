package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The copies move runs of elements (TMARunsTile, TMARunsIm2col) instead of
// single elements. These tests define the runs as the element-wise
// placement (TMAPlaceTile, TMAPlaceIm2col): over random tensor maps (ranks
// 1-5, element types, element strides, interleave, every swizzle, boxes
// partly out of bounds, im2col) the runs expand to exactly the elements,
// and loads, stores and reductions leave the shared-memory and global
// bytes, faults, observer accesses and transaction bytes the element-wise
// copy defines.

// randTensorMap draws a valid map (tile or im2col), coordinates, im2col
// offsets and a 128-byte aligned destination offset whose swizzle pattern
// blocks stay inside the first 2 KiB; GlobalAddress is 0.
func randTensorMap(rng *rand.Rand, im2col bool) (isa.TensorMap, []int32, []uint16, uint64) {
	types := []isa.TensorElemType{isa.TensorU8, isa.TensorU16, isa.TensorU32, isa.TensorS32, isa.TensorU64, isa.TensorS64,
		isa.TensorF16, isa.TensorF32, isa.TensorF64, isa.TensorBF16, isa.TensorTF32}
	for {
		var m isa.TensorMap
		m.ElemType = types[rng.Intn(len(types))]
		es := uint64(m.ElemType.Bytes())
		if im2col {
			m.Mode = isa.TensorModeIm2col
			m.Rank = 3 + rng.Intn(3)
		} else {
			m.Rank = 1 + rng.Intn(5)
		}
		if m.Rank >= 3 && !im2col && rng.Intn(4) == 0 {
			m.Interleave = isa.TensorInterleave(1 + rng.Intn(2))
		}
		m.SwizzleMode = uint8(rng.Intn(4))
		if m.SwizzleMode == isa.TMSwizzle128B {
			m.SwizzleAtom = isa.SwizzleAtom(rng.Intn(4))
		}
		if m.Interleave == isa.Interleave32B {
			m.SwizzleMode, m.SwizzleAtom = isa.TMSwizzle32B, isa.Atom16B
		}
		m.FillNaN = m.ElemType.Float() && rng.Intn(2) == 0
		ext := uint64(0)
		for d := 0; d < m.Rank; d++ {
			m.GlobalDim[d] = uint64(1 + rng.Intn(6))
			if d == 0 {
				m.GlobalDim[0] = uint64(1 + rng.Intn(40))
				ext = m.GlobalDim[0] * es
			} else {
				s := (ext + 15) / 16 * 16
				if rng.Intn(3) == 0 {
					s += 16 * uint64(rng.Intn(3))
				}
				if m.Interleave == isa.Interleave32B {
					s = (s + 31) / 32 * 32
				}
				m.GlobalStrides[d-1] = s
				ext = s * m.GlobalDim[d]
			}
			m.BoxDim[d] = uint32(1 + rng.Intn(8))
			m.ElementStrides[d] = uint32(1 + rng.Intn(3))
			if rng.Intn(2) == 0 {
				m.ElementStrides[d] = 1
			}
		}
		// The box's inner dimension: a multiple of 16 bytes.
		inner := uint32(16/es) * uint32(1+rng.Intn(4))
		if inner == 0 {
			inner = 1
		}
		m.BoxDim[0] = inner
		if im2col {
			for i := 0; i < m.Rank-2; i++ {
				m.PixelBoxLower[i] = int16(rng.Intn(3) - 1)
				m.PixelBoxUpper[i] = int16(rng.Intn(3) - 1)
			}
			m.ChannelsPerPixel = uint16(16 / es * uint64(1+rng.Intn(4)))
			m.PixelsPerColumn = uint16(1 + rng.Intn(16))
		}
		if m.Validate() != nil || m.BoxBytes() > 1024 {
			continue
		}
		coords := make([]int32, m.Rank)
		for d := range coords {
			coords[d] = int32(rng.Intn(int(m.GlobalDim[d])+6) - 3)
		}
		var offs []uint16
		if im2col {
			for d := 1; d < m.Rank-1; d++ {
				lo, hi := m.Im2colBox(d)
				coords[d] = int32(lo) + int32(rng.Intn(int(hi-lo)+1))
				if rng.Intn(10) == 0 {
					coords[d] = int32(hi) + 1 // outside the bounding box: an error
				}
				offs = append(offs, uint16(rng.Intn(3)))
			}
		}
		blocks := (uint64(m.BoxBytes()) + 1023) / 1024
		dst := 128 * uint64(rng.Intn(int((2048-blocks*1024)/128)+1))
		if (dst+uint64(m.BoxBytes())+1023)/1024*1024 > 2048 {
			dst = 0
		}
		return m, coords, offs, dst
	}
}

func placeElements(m isa.TensorMap, coords []int32, offs []uint16, dst uint64) (TMAPlacement, error) {
	if m.Mode == isa.TensorModeIm2col {
		return TMAPlaceIm2col(m, coords, offs, dst)
	}
	return TMAPlaceTile(m, coords, dst)
}

func placeRuns(m isa.TensorMap, coords []int32, offs []uint16, dst uint64) (TMAPlacement, []TMARun, error) {
	if m.Mode == isa.TensorModeIm2col {
		return TMARunsIm2col(m, coords, offs, dst, nil)
	}
	return TMARunsTile(m, coords, dst, nil)
}

// The runs expand to the elements, in order; each run is maximal; the
// placements agree in everything else (and in their errors).
func TestTMARunsAreTheElements(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	for i := 0; i < 3000; i++ {
		m, coords, offs, dst := randTensorMap(rng, i%3 == 2)
		m.GlobalAddress = 0x10000
		p, err := placeElements(m, coords, offs, dst)
		q, runs, err2 := placeRuns(m, coords, offs, dst)
		if fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatalf("%+v %v: elements error %v, runs error %v", m, coords, err, err2)
		}
		if err != nil {
			continue
		}
		els := p.Elements
		p.Elements = nil
		if fmt.Sprint(p) != fmt.Sprint(q) {
			t.Fatalf("placements differ: %+v vs %+v", p, q)
		}
		es := uint64(p.ElemBytes)
		k := 0
		for j, r := range runs {
			if r.First != k || r.N < 1 {
				t.Fatalf("%+v: run %d %+v starts at element %d", m, j, r, k)
			}
			for n := 0; n < r.N; n++ {
				e := els[k]
				g := r.Global + uint64(n)*es
				if r.OOB {
					g = 0
				}
				if e.OOB != r.OOB || e.Global != g || e.Shared != r.Shared+uint64(n)*es {
					t.Fatalf("%+v %v: element %d %+v is not run %d %+v's element %d", m, coords, k, e, j, r, n)
				}
				k++
			}
			if j > 0 {
				a := runs[j-1]
				next := uint64(a.N) * es
				if a.OOB == r.OOB && (r.OOB || a.Global+next == r.Global) && a.Shared+next == r.Shared {
					t.Fatalf("%+v: runs %d and %d could be one", m, j-1, j)
				}
			}
		}
		if k != len(els) {
			t.Fatalf("the runs hold %d elements, the placement %d", k, len(els))
		}
	}
}

// accessLog records every access byte by byte.
type accessLog struct {
	tmapLo, tmapHi uint64
	outLo, outHi   uint64
	gload          []string // global loads outside the tensor map, per element access
	gwrite         []string // global stores and reductions
	asyncLoad      []string // shared bytes read by the asynchronous proxy
	asyncStore     []string // shared bytes written by the asynchronous proxy
	pcs            map[int]bool
}

func (a *accessLog) Observes() ObserveFlags { return ObserveAccesses }

func (a *accessLog) Step(in *StepInfo) {
	for i := range in.Accesses {
		x := &in.Accesses[i]
		for m := x.Lanes; m != 0; m &= m - 1 {
			l := 0
			for m>>l&1 == 0 {
				l++
			}
			addr := x.Addr[l]
			rec := fmt.Sprintf("lane %d kind %v size %d at %#x", l, x.Kind, x.Size, addr)
			switch {
			case x.Space == isa.Global && x.Kind == AccessLoad && !(addr >= a.tmapLo && addr < a.tmapHi):
				a.gload = append(a.gload, rec)
			case x.Space == isa.Global && x.Kind != AccessLoad && !(addr >= a.outLo && addr < a.outHi):
				a.gwrite = append(a.gwrite, rec)
			case x.Async && x.Kind == AccessLoad:
				a.asyncLoad = append(a.asyncLoad, rec)
				a.pcs[x.AsyncPC] = true
			case x.Async && x.Kind == AccessStore:
				a.asyncStore = append(a.asyncStore, rec)
				a.pcs[x.AsyncPC] = true
			}
		}
	}
}

// tensorCase is one random copy run through the engine.
type tensorCase struct {
	m       isa.TensorMap
	coords  []int32
	offs    []uint16
	dst     uint64
	tensor  []byte
	kind    TMAKind // TMALoad, TMAStore or TMAReduce
	red     isa.SubOp
	redType isa.Type
}

func (c tensorCase) kernel() string {
	var b strings.Builder
	regs := make([]string, len(c.coords))
	for d, v := range c.coords {
		fmt.Fprintf(&b, "\tmov.u32 %%r%d, %d;\n", 20+d, v)
		regs[d] = fmt.Sprintf("%%r%d", 20+d)
	}
	orr := make([]string, len(c.offs))
	for i, v := range c.offs {
		fmt.Fprintf(&b, "\tmov.u16 %%rs%d, %d;\n", 1+i, v)
		orr[i] = fmt.Sprintf("%%rs%d", 1+i)
	}
	set := b.String()
	nd := fmt.Sprintf("%dd", c.m.Rank)
	tensor := fmt.Sprintf("[%%rd2, {%s}]", strings.Join(regs, ", "))
	im2col := c.m.Mode == isa.TensorModeIm2col
	if c.kind == TMALoad {
		mode, extra := "tile", ""
		if im2col {
			mode, extra = "im2col", fmt.Sprintf(", {%s}", strings.Join(orr, ", "))
		}
		return tmaKernel(`	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra WAIT;
	mbarrier.init.shared.b64 [bar], 1;
` + set + fmt.Sprintf(`	mbarrier.arrive.expect_tx.shared.b64 %%rd3, [bar], %d;
	cp.async.bulk.tensor.%s.shared::cluster.global.%s.mbarrier::complete_tx::bytes [buf+%d], %s, [bar]%s;
`, c.m.BoxBytes(), nd, mode, c.dst, tensor, extra) + `WAIT:
	bar.sync 0;
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;
	mov.u32 %r10, %r1;
COPY:
	shl.b32 %r11, %r10, 2;
	mov.u32 %r12, buf;
	add.u32 %r12, %r12, %r11;
	ld.shared.u32 %r13, [%r12];
	cvt.u64.u32 %rd4, %r11;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, 512;
	@%p3 bra COPY;
`)
	}
	mode := "tile"
	if im2col {
		mode = "im2col_no_offs"
	}
	instr := fmt.Sprintf("cp.async.bulk.tensor.%s.global.shared::cta.%s.bulk_group", nd, mode)
	if c.kind == TMAReduce {
		instr = fmt.Sprintf("cp.reduce.async.bulk.tensor.%s.global.shared::cta.%s.%s.bulk_group", nd, c.red, mode)
	}
	return tmaKernel(`	mov.u32 %r10, %r1;
FILL:
	shl.b32 %r11, %r10, 2;
	mov.u32 %r12, buf;
	add.u32 %r12, %r12, %r11;
	mul.lo.u32 %r13, %r10, 0x9E3779B1;
	add.u32 %r13, %r13, 12345;
	st.shared.u32 [%r12], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, 512;
	@%p3 bra FILL;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra END;
` + set + fmt.Sprintf("\t%s %s, [buf+%d];\n", instr, tensor, c.dst) + `	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
END:
`)
}

// sharedPattern is the store kernel's shared memory: word i is
// i*0x9E3779B1 + 12345.
func sharedPattern() []byte {
	b := make([]byte, 2048)
	for i := 0; i < 512; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(i)*0x9E3779B1+12345)
	}
	return b
}

// expect is what the element-wise copy does: the shared bytes (a load),
// the tensor's bytes (a store or reduction), the fault (its message's
// distinctive part and address) and the accesses.
func (c tensorCase) expect(m *Machine) (shared, tensor []byte, fault string, faultAddr uint64, log accessLog) {
	var ten *Alloc
	for _, a := range m.Global.Allocs() {
		if a.Name == "tensor" {
			ten = a
		}
	}
	inAlloc := func(addr, n uint64) bool {
		for _, a := range m.Global.Allocs() {
			if addr >= a.Base && addr+n <= a.Base+uint64(len(a.Data)) && addr+n >= addr {
				return true
			}
		}
		return false
	}
	read := func(addr, n uint64) []byte {
		for _, a := range m.Global.Allocs() {
			if addr >= a.Base && addr+n <= a.Base+uint64(len(a.Data)) {
				return a.Data[addr-a.Base : addr-a.Base+n]
			}
		}
		return nil
	}
	tm := c.m
	tm.GlobalAddress = ten.Base
	p, err := placeElements(tm, c.coords, c.offs, c.dst)
	tensor = append([]byte(nil), ten.Data...)
	if err != nil {
		return nil, tensor, err.Error(), 0, log
	}
	es := uint64(p.ElemBytes)
	rec := func(kind AccessKind, addr uint64) string {
		return fmt.Sprintf("lane 0 kind %v size %d at %#x", kind, es, addr)
	}
	if c.kind == TMALoad {
		shared = make([]byte, 2048)
		lo, hi := uint64(1<<62), uint64(0)
		for _, e := range p.Elements {
			d := shared[c.dst+e.Shared : c.dst+e.Shared+es]
			lo, hi = min(lo, e.Shared), max(hi, e.Shared+es)
			if e.OOB {
				copy(d, p.Fill)
				continue
			}
			if !inAlloc(e.Global, es) {
				return nil, tensor, fmt.Sprintf("element at tensor coordinate %v of the box", e.Coord[:p.Rank]), e.Global, log
			}
			log.gload = append(log.gload, rec(AccessLoad, e.Global))
			copy(d, read(e.Global, es))
		}
		log.asyncStore = []string{fmt.Sprintf("lane 0 kind %v size %d at %#x", AccessStore, hi-lo, c.dst+lo)}
		return shared, tensor, "", 0, log
	}
	src := sharedPattern()
	for _, e := range p.Elements {
		if !e.OOB && !inAlloc(e.Global, es) {
			return nil, tensor, fmt.Sprintf("element at tensor coordinate %v of the box", e.Coord[:p.Rank]), e.Global, log
		}
	}
	kind := AccessStore
	if c.kind == TMAReduce {
		kind = AccessAtomic
	}
	for _, e := range p.Elements {
		if e.OOB {
			continue
		}
		s := src[c.dst+e.Shared : c.dst+e.Shared+es]
		log.asyncLoad = append(log.asyncLoad, rec(AccessLoad, c.dst+e.Shared))
		log.gwrite = append(log.gwrite, rec(kind, e.Global))
		g := tensor[e.Global-ten.Base : e.Global-ten.Base+es]
		if c.kind == TMAStore {
			copy(g, s)
			continue
		}
		for k := uint64(0); k < es; k += uint64(c.redType.Size()) {
			bulkReduce(c.red, c.redType, g[k:k+uint64(c.redType.Size())], s[k:k+uint64(c.redType.Size())])
		}
	}
	return nil, tensor, "", 0, log
}

func runTensorCase(t *testing.T, i int, c tensorCase) {
	t.Helper()
	l := tmaLaunch{src: c.kernel(), block: 32, words: 512, tensor: c.tensor}
	l.tmap = c.m
	for _, sched := range bothScheds {
		m := l.machine(t, sched)
		wantShared, wantTensor, wantFault, wantAddr, wantLog := c.expect(m)
		byName := map[string]*Alloc{}
		for _, a := range m.Global.Allocs() {
			byName[a.Name] = a
		}
		tmap, out := byName["tmap"], byName["out"]
		log := &accessLog{tmapLo: tmap.Base, tmapHi: tmap.Base + 128, outLo: out.Base, outHi: out.Base + uint64(len(out.Data)), pcs: map[int]bool{}}
		m.AddObserver(log)
		r := m.Run(context.Background())
		what := fmt.Sprintf("case %d (%s, %v %s): map %+v coords %v offs %v dst %d", i, sched, c.kind, c.red, c.m, c.coords, c.offs, c.dst)
		f := m.Fault()
		if wantFault != "" {
			if f == nil || !strings.Contains(f.Message, wantFault) || wantAddr != 0 && f.Addr != wantAddr {
				t.Fatalf("%s: fault %v, want one with %q at %#x", what, f, wantFault, wantAddr)
			}
			if c.kind == TMALoad && !slices.Equal(log.gload, wantLog.gload) {
				t.Fatalf("%s: global loads before the fault\n%.2000v\nwant\n%.2000v", what, log.gload, wantLog.gload)
			}
			continue
		}
		if f != nil || r != StopDone {
			t.Fatalf("%s: stopped with %v, fault %v", what, r, f)
		}
		if wantShared != nil && string(out.Data) != string(wantShared) {
			t.Fatalf("%s: shared memory differs", what)
		}
		if string(byName["tensor"].Data) != string(wantTensor) {
			t.Fatalf("%s: global memory differs", what)
		}
		for _, x := range []struct {
			name      string
			got, want []string
		}{{"global loads", log.gload, wantLog.gload}, {"global writes", log.gwrite, wantLog.gwrite},
			{"asynchronous shared reads", log.asyncLoad, wantLog.asyncLoad}, {"asynchronous shared writes", log.asyncStore, wantLog.asyncStore}} {
			if !slices.Equal(x.got, x.want) {
				t.Fatalf("%s: %s\n%.2000v\nwant\n%.2000v", what, x.name, x.got, x.want)
			}
		}
		if len(log.pcs) > 1 {
			t.Fatalf("%s: asynchronous accesses of %d instructions", what, len(log.pcs))
		}
	}
}

// Loads, stores and reductions of random maps (tile and im2col) through
// the engine, in both scheduling models, against the element-wise copy:
// the load's expect_tx is the whole box, so a wrong transaction byte count
// deadlocks or completes the mbarrier early and fails the comparison.
func TestTMARunsCopyAsElementwise(t *testing.T) {
	rng := rand.New(rand.NewSource(2323))
	kinds := []TMAKind{TMALoad, TMAStore, TMAReduce}
	for i := 0; i < 240; i++ {
		c := tensorCase{kind: kinds[i%3]}
		c.m, c.coords, c.offs, c.dst = randTensorMap(rng, i%4 == 3)
		if c.kind != TMALoad && c.offs != nil {
			// .im2col_no_offs: the offsets are zero.
			c.offs = make([]uint16, len(c.offs))
		}
		if c.kind == TMAReduce {
			rt, ok := tensorRedType(c.m.ElemType)
			if !ok {
				c.kind = TMAStore
			} else {
				c.red, c.redType = isa.SubAdd, rt
				if rt == isa.U32 || rt == isa.S32 || rt == isa.U64 || rt == isa.S64 {
					c.red = []isa.SubOp{isa.SubAdd, isa.SubMin, isa.SubMax, isa.SubXor}[rng.Intn(4)]
				}
				if c.red == isa.SubXor {
					if rt == isa.S32 {
						c.red = isa.SubOr
					}
				}
			}
		}
		// The tensor's extent, and sometimes less (an element outside
		// every allocation faults).
		tm := c.m
		tm.GlobalAddress = 0
		ext := uint64(16)
		if p, err := placeElements(tm, c.coords, c.offs, c.dst); err == nil {
			for _, e := range p.Elements {
				if !e.OOB {
					ext = max(ext, e.Global+uint64(p.ElemBytes))
				}
			}
		}
		if rng.Intn(5) == 0 {
			ext = ext * uint64(1+rng.Intn(4)) / 5
		}
		c.tensor = make([]byte, max(ext, 1))
		rng.Read(c.tensor)
		runTensorCase(t, i, c)
	}
}
