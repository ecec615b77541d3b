package launch

import (
	"fmt"
	"math"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// Tensor maps Infer gives the parameters the kernel uses as tensor maps
// (analyze_tensormap.go). Each gets a new buffer holding exactly one box
// (globalDim = boxDim, packed: globalStrides the sizes of the inner
// dimensions in bytes) and a map of it with no swizzle, no interleave and
// zero fill:
//   - the rank is the .Nd of the instructions using it (2 when none says);
//   - the element type is that of the shared-memory loads and stores the
//     kernel makes (the most common), else TensorMapDefaultType;
//   - the box holds the bytes of the expect_tx that the copies through
//     the map complete on (the mbarrier.arrive.expect_tx or
//     mbarrier.expect_tx with a constant count on the same mbarrier
//     operand, divided by the number of copies completing on it; else the
//     kernel's only constant expect_tx divided by its number of copies),
//     shaped as close to square as the box limits allow (the innermost
//     side a multiple of 16 bytes), else TensorMapDefaultBox.
//
// Every guess is a note.

// TensorMapDefaultType is the element type of an inferred tensor map when
// the kernel's shared-memory accesses do not tell.
const TensorMapDefaultType = "f16"

// TensorMapDefaultBox is the box of an inferred tensor map (innermost
// first, cut to the rank; 1 in the dimensions past it) when the kernel
// states no expect_tx byte count for its copies.
var TensorMapDefaultBox = [isa.TensorMaxRank]uint32{64, 8, 1, 1, 1}

// tensorDataType is the tensor-map dataType for the element type of a
// shared-memory access (bit-size and signed 8/16-bit types by size).
func tensorDataType(t isa.Type) string {
	switch t {
	case isa.F16, isa.F16x2:
		return "f16"
	case isa.BF16, isa.BF16x2:
		return "bf16"
	case isa.F32:
		return "f32"
	case isa.TF32:
		return "tf32"
	case isa.F64:
		return "f64"
	case isa.S32:
		return "s32"
	case isa.S64:
		return "s64"
	case isa.U32:
		return "u32"
	case isa.U64:
		return "u64"
	}
	switch t.Size() {
	case 1:
		return "u8"
	case 2:
		return "u16"
	case 4:
		return "u32"
	case 8:
		return "u64"
	}
	return ""
}

// tensorBufferType is the buffer element type for a tensor-map dataType.
func tensorBufferType(dt string) string {
	if dt == "tf32" {
		return "f32"
	}
	return dt
}

// isTensorMap reports whether the kernel uses parameter i as a tensor map
// (and the parameter can hold one: 128 bytes by value, or an 8-byte
// address).
func (kf *kernelFacts) isTensorMap(i int) bool {
	p := kf.fn.Params[i]
	return len(kf.params[i].tmap) > 0 && (p.Size == isa.TensorMapBytes || p.Size == 8)
}

// tmapLine is the source line of the instruction at pc (0: unknown).
func (in *inferrer) line(pc int) int {
	if in.p.Src == nil || pc < 0 || pc >= len(in.p.Spans) {
		return 0
	}
	return in.p.Src.Position(in.p.Spans[pc].Start).Line
}

func (in *inferrer) at(pc int) string {
	if l := in.line(pc); l > 0 {
		return fmt.Sprintf(" at line %d", l)
	}
	return ""
}

// tensorMapUse describes the first use of parameter i, for notes.
func (in *inferrer) tensorMapUse(i int) string {
	u := in.kf.params[i].tmap[0]
	n := len(in.kf.params[i].tmap)
	s := u.what + in.at(u.pc)
	if n > 1 {
		s += fmt.Sprintf(" and %d more", n-1)
	}
	return s
}

// tensorMapElem is the dataType of parameter i's map, and whether it is a
// guess to note (always: the map's type is not in the instructions).
func (in *inferrer) tensorMapElem() (string, string) {
	kf := in.kf
	best, n := isa.TNone, 0
	for t := isa.Type(1); t < isa.NumTypes; t++ {
		if c := kf.sharedTypes[t]; c > n && tensorDataType(t) != "" && (t.Kind() != isa.KindBits || best == isa.TNone) {
			best, n = t, c
		}
	}
	if best == isa.TNone {
		return TensorMapDefaultType, fmt.Sprintf("dataType %s is a default (no typed shared-memory access tells the element type)", TensorMapDefaultType)
	}
	dt := tensorDataType(best)
	return dt, fmt.Sprintf("dataType %s guessed from the kernel's shared-memory accesses (%d of .%s)", dt, n, best)
}

// tensorMapBoxBytes is the box of parameter i in bytes from the expect_tx
// counts, and how it was found; 0 when the kernel does not tell.
func (in *inferrer) tensorMapBoxBytes(i int) (int64, string) {
	kf := in.kf
	// The expect_tx on the mbarrier of one of the map's loads.
	for _, u := range kf.params[i].tmap {
		if !u.hasMbar {
			continue
		}
		var tx *txExpect
		for k := range kf.expectTx {
			if sameAddr(kf.expectTx[k].mbar, u.mbar) {
				tx = &kf.expectTx[k]
				break
			}
		}
		if tx == nil {
			continue
		}
		copies, others := 0, false
		for _, c := range kf.txCopies {
			if sameAddr(c.mbar, u.mbar) {
				copies++
				if !c.tensor || len(c.params) != 1 || c.params[0] != i {
					others = true
				}
			}
		}
		copies = max(copies, 1)
		why := fmt.Sprintf("the expect_tx of %d bytes%s on the mbarrier of the copy%s", tx.bytes, in.at(tx.pc), in.at(u.pc))
		if copies > 1 {
			why += fmt.Sprintf(", shared by the %d copies completing on it", copies)
			if others {
				why += " (assumed to be of the same size)"
			}
		}
		return tx.bytes / int64(copies), why
	}
	// The kernel's only constant expect_tx count.
	if len(kf.expectTx) > 0 && len(kf.txCopies) > 0 {
		b := kf.expectTx[0].bytes
		for _, t := range kf.expectTx[1:] {
			if t.bytes != b {
				return 0, ""
			}
		}
		n := int64(len(kf.txCopies))
		why := fmt.Sprintf("the kernel's expect_tx of %d bytes%s (its mbarrier could not be matched with the copy's)", b, in.at(kf.expectTx[0].pc))
		if n > 1 {
			why += fmt.Sprintf(", divided among its %d copies that complete on mbarriers", n)
		}
		return b / n, why
	}
	return 0, ""
}

// boxShape splits elems elements of es bytes into a box of rank
// dimensions (each at most 256; the innermost a multiple of 16 bytes), as
// close to square in its two innermost dimensions as it can; false when
// no such box has exactly elems elements.
func boxShape(elems int64, es int64, rank int) ([]uint32, bool) {
	const maxDim = 256
	if elems <= 0 || es <= 0 {
		return nil, false
	}
	if rank == 1 {
		if elems > maxDim || elems*es%16 != 0 {
			return nil, false
		}
		return []uint32{uint32(elems)}, true
	}
	var best []uint32
	bestScore := math.Inf(1)
	for inner := int64(1); inner <= maxDim && inner <= elems; inner++ {
		if elems%inner != 0 || inner*es%16 != 0 {
			continue
		}
		box := []uint32{uint32(inner)}
		rest := elems / inner
		for d := 1; d < rank; d++ {
			n := int64(1)
			if d < rank-1 {
				// the largest divisor of rest at most 256
				for k := min(rest, maxDim); k >= 1; k-- {
					if rest%k == 0 {
						n = k
						break
					}
				}
			} else {
				n = rest
			}
			box = append(box, uint32(min(n, math.MaxUint32)))
			rest /= n
		}
		if rest != 1 || int64(box[rank-1]) > maxDim {
			continue
		}
		score := math.Abs(math.Log(float64(box[0])) - math.Log(float64(box[1])))
		if score <= bestScore {
			best, bestScore = box, score
		}
	}
	return best, best != nil
}

// tensorMap builds the tensor map and buffer for parameter i, within
// room bytes of buffers.
func (in *inferrer) tensorMap(i int, name string, room int64) (Param, Buffer, []string) {
	kf := in.kf
	var notes []string
	rank := 0
	for _, u := range kf.params[i].tmap {
		if u.rank > 0 {
			if rank != 0 && u.rank != rank {
				notes = append(notes, fmt.Sprintf("the instructions using it disagree on the rank (%dd and %dd); %dd taken", rank, u.rank, rank))
				break
			}
			rank = u.rank
		}
	}
	if rank == 0 {
		rank = 2
		notes = append(notes, "rank 2 is a default (no instruction using it has an .Nd)")
	}
	dt, why := in.tensorMapElem()
	notes = append(notes, why)
	et, _ := lookupType(tensorBufferType(dt))
	es := int64(et.Size())
	var box []uint32
	if bytes, how := in.tensorMapBoxBytes(i); bytes > 0 {
		if bytes%es == 0 {
			if b, ok := boxShape(bytes/es, es, rank); ok && bytes <= room {
				box = b
				notes = append(notes, fmt.Sprintf("box %v: %d bytes from %s; the shape is a guess", b, bytes, how))
			}
		}
		if box == nil {
			notes = append(notes, fmt.Sprintf("%d bytes from %s make no valid box of %s elements", bytes, how, dt))
		}
	}
	if box == nil {
		box = append([]uint32(nil), TensorMapDefaultBox[:rank]...)
		notes = append(notes, fmt.Sprintf("box %v is a default (no expect_tx byte count tells its size)", box))
	}
	dims := make([]uint64, rank)
	count := int64(1)
	var strides []uint64
	for d := 0; d < rank; d++ {
		dims[d] = uint64(box[d])
		if d > 0 {
			strides = append(strides, uint64(count*es))
		}
		count *= int64(box[d])
	}
	b := Buffer{Name: name, Type: tensorBufferType(dt), Count: int(count)}
	reads, writes := false, false
	for _, u := range kf.params[i].tmap {
		reads, writes = reads || u.reads, writes || u.writes
	}
	if reads {
		b.Init = &Init{Iota: &Iota{Start: "0", Step: "1"}}
	}
	tm := launchspec.TensorMapSpec{Buffer: name, DataType: dt, GlobalDim: dims, GlobalStrides: strides, BoxDim: box}
	return launchspec.TensorMapParam(tm), b, notes
}

// tensorMapNote is the note for tensor-map parameter i.
func (in *inferrer) tensorMapNote(i int, p Param, b Buffer, notes []string, was string) {
	t := p.TensorMap
	init := "zeros"
	if b.Init != nil {
		init = "iota 0, 1, 2, …"
	}
	how := "passed by value"
	if in.fn.Params[i].Size == 8 {
		how = "its address passed"
	}
	in.paramNote(i, "tensor map (the kernel uses it in %s; %s) of buffer %q: %d × %s, %s; %dd, globalDim %v, boxDim %v, swizzle none, oobFill zero%s; %s",
		in.tensorMapUse(i), how, b.Name, b.Count, b.Type, init, len(t.GlobalDim), t.GlobalDim, t.BoxDim, was, strings.Join(notes, "; "))
}

// tensorMapBytes is the size of the buffer tensorMap would give
// parameter i with unlimited room (for sharing the limit).
func (in *inferrer) tensorMapBytes(i int) int64 {
	_, b, _ := in.tensorMap(i, "x", math.MaxInt64)
	t, _ := lookupType(b.Type)
	return int64(b.Count) * int64(t.Size())
}
