package isa

import "fmt"

// Rnd is a rounding modifier.
type Rnd uint8

const (
	RndNone Rnd = iota
	RN          // .rn  round to nearest even
	RZ          // .rz  round toward zero
	RM          // .rm  round toward -inf
	RP          // .rp  round toward +inf
	RNA         // .rna round to nearest, ties away from zero (cvt to tf32)
	RNI         // .rni integer rounding, nearest even
	RZI         // .rzi integer rounding toward zero
	RMI         // .rmi integer rounding toward -inf
	RPI         // .rpi integer rounding toward +inf
	RS          // .rs  stochastic rounding (cvt with a random operand)
	NumRnd
)

var rndNames = [NumRnd]string{"", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "rs"}

func (r Rnd) String() string { return rndNames[r] }

// IsInt reports whether r is an integer rounding mode (.rni, .rzi, .rmi, .rpi).
func (r Rnd) IsInt() bool { return r >= RNI && r <= RPI }

// Cmp is a comparison operator of set/setp/slct.
type Cmp uint8

const (
	CmpNone Cmp = iota
	EQ
	NE
	LT
	LE
	GT
	GE
	LO
	LS
	HI
	HS
	EQU
	NEU
	LTU
	LEU
	GTU
	GEU
	NUM
	NAN
	NumCmp
)

var cmpNames = [NumCmp]string{"", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}

func (c Cmp) String() string { return cmpNames[c] }

// SubOp is a mutually exclusive operation selector: the operation of atom,
// red and bar.red, the boolean combiner of setp, the mode of shfl, vote and
// prmt, the class of testp.
type SubOp uint8

const (
	SubNone SubOp = iota
	// atom / red / redux / bar.red / setp boolean operators
	SubAdd
	SubMin
	SubMax
	SubInc
	SubDec
	SubAnd
	SubOr
	SubXor
	SubExch
	SubCas
	SubPopc
	// shfl modes
	SubUp
	SubDown
	SubBfly
	SubIdx
	// vote modes (.uni is the flag FUni)
	SubAll
	SubAny
	SubBallot
	// prmt modes
	SubF4E
	SubB4E
	SubRC8
	SubECL
	SubECR
	SubRC16
	// testp classes
	SubFinite
	SubInfinite
	SubNumber
	SubNotANumber
	SubNormal
	SubSubnormal
	// bar / barrier forms
	SubArrive
	SubRed
	SubSync
	// barrier.cluster forms (.arrive is SubArrive)
	SubWait
	NumSubOps
)

var subNames = [NumSubOps]string{"", "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas", "popc",
	"up", "down", "bfly", "idx", "all", "any", "ballot", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16",
	"finite", "infinite", "number", "notanumber", "normal", "subnormal", "arrive", "red", "sync", "wait"}

func (s SubOp) String() string { return subNames[s] }

// Flag is a boolean modifier; a set of them is a Flags bitset.
type Flag uint8

const (
	FFtz Flag = iota
	FSat
	FApprox
	FFull
	FWide
	FHi
	FLo
	FCC
	FUni
	FSync
	FAligned
	FRelu
	FSatfinite
	FNaN
	FXorsign
	FAbs
	FShiftAmt
	FClamp
	FWrap
	FL // shf.l
	FR // shf.r
	FNoftz
	FPack
	FVolatile
	FNC // ld.global.nc
	FTrans
	FTo // cvta.to
	FAsync
	NumFlags
)

var flagNames = [NumFlags]string{"ftz", "sat", "approx", "full", "wide", "hi", "lo", "cc", "uni", "sync", "aligned",
	"relu", "satfinite", "NaN", "xorsign", "abs", "shiftamt", "clamp", "wrap", "l", "r", "noftz", "pack",
	"volatile", "nc", "trans", "to", "async"}

func (f Flag) String() string { return flagNames[f] }

// Flags is a set of Flag.
type Flags uint64

// Has reports whether f is in the set.
func (s Flags) Has(f Flag) bool { return s&(1<<f) != 0 }

// With returns the set with f added.
func (s Flags) With(f Flag) Flags { return s | 1<<f }

// ModKind classifies a modifier word.
type ModKind uint8

const (
	ModUnknown    ModKind = iota
	ModType               // a Type (value: Type)
	ModSpace              // a Space (value: Space)
	ModRnd                // a Rnd
	ModCmp                // a Cmp
	ModSub                // a SubOp
	ModFlag               // a Flag
	ModVec                // .v2 .v4 .v8 (value: the width)
	ModHint               // a hint with no effect on results in the emulator: cache operators, eviction priorities, memory-order and scope qualifiers
	ModShape              // a matrix shape (value: Shape): .m8n8, .m16n8k16, ...
	ModLayout             // .row / .col (value: Layout)
	ModNum                // .x1 .x2 .x4 (value: the number of matrices)
	ModElem               // a narrow element type of tensor instructions (value: Elem): .s4 .u4 .b1 .e2m1 .e3m2 .e2m3 .ue8m0 .ue4m3
	ModTensor             // other tensor-instruction words (value: TensorWord): .tile, .im2col, .1d ... .5d, .sp, .kind::..., .block_scale, .scale_vec::...
	ModWgmmaShape         // a wgmma shape .m64nNkK (value: WgmmaShapeValue(n, k))
)

// The wgmma shapes: M is 64, N a multiple of 8 from 8 to 256, K 8, 16, 32,
// 256 or 64 (the 8-bit types of wgmma.mma_async.sp; the element type
// decides which, the binder checks it). A shape is a modifier of kind
// ModWgmmaShape whose value packs N/8-1 (5 bits) and the index of K in
// wgmmaKs (3 bits; the unused entries are 0).
var wgmmaKs = [8]int{8, 16, 32, 256, 64}

// WgmmaShapeValue packs shape m64nNkK as a ModWgmmaShape value (ok false
// for a shape that is not one).
func WgmmaShapeValue(n, k int) (v uint8, ok bool) {
	if n < 8 || n > 256 || n%8 != 0 {
		return 0, false
	}
	for i, x := range wgmmaKs {
		if x == k && k > 0 {
			return uint8(i<<5 | (n/8 - 1)), true
		}
	}
	return 0, false
}

// WgmmaShape unpacks a ModWgmmaShape value: N and K.
func WgmmaShape(v uint8) (n, k int) { return int(v&31+1) * 8, wgmmaKs[v>>5&7] }

// Shape is the matrix shape of a tensor-core instruction.
type Shape uint8

const (
	ShapeNone Shape = iota
	M8N8
	M16N16
	M8N16
	M16N8
	M8N8K4
	M8N8K16
	M8N8K32
	M8N8K128
	M16N8K4
	M16N8K8
	M16N8K16
	M16N8K32
	M16N8K64
	M16N8K128
	M16N8K256
	M16N16K16
	M32N8K16
	M8N32K16
	M16N16K8
	NumShapes
)

var shapeNames = [NumShapes]string{"", "m8n8", "m16n16", "m8n16", "m16n8",
	"m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128", "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64",
	"m16n8k128", "m16n8k256", "m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8"}

func (s Shape) String() string { return shapeNames[s] }

// Layout is the .row / .col layout of an mma operand.
type Layout uint8

const (
	LayoutNone Layout = iota
	Row
	Col
)

func (l Layout) String() string { return [...]string{"", "row", "col"}[l] }

// Elem is a sub-byte element type of mma (no register type has these sizes).
type Elem uint8

const (
	ElemNone Elem = iota
	ElemS4
	ElemU4
	ElemB1
	ElemE2M1  // 4-bit float (mma .kind::f8f6f4, .kind::mxf4...)
	ElemE3M2  // 6-bit float
	ElemE2M3  // 6-bit float
	ElemUE8M0 // block-scale factor types (mma .block_scale)
	ElemUE4M3
	NumElems
)

var elemNames = [NumElems]string{"", "s4", "u4", "b1", "e2m1", "e3m2", "e2m3", "ue8m0", "ue4m3"}

func (e Elem) String() string { return elemNames[e] }

// TensorWord is a modifier of the Hopper tensor copies (cp.async.bulk.tensor).
type TensorWord uint8

const (
	TensorNone TensorWord = iota
	TensorTile
	TensorIm2col
	Tensor1D
	Tensor2D
	Tensor3D
	Tensor4D
	Tensor5D
	TensorSp           // mma.sp: sparse A with metadata and selector
	TensorSpOrdered    // mma.sp::ordered_metadata
	TensorKindF8F6F4   // mma .kind::f8f6f4 (sm_120a)
	TensorKindMxF8F6F4 // mma .kind::mxf8f6f4 (block scaling)
	TensorKindMxF4     // mma .kind::mxf4
	TensorKindMxF4NvF4 // mma .kind::mxf4nvf4
	TensorBlockScale   // mma .block_scale
	TensorScaleVec1X   // mma .scale_vec::1X
	TensorScaleVec2X   // mma .scale_vec::2X
	TensorScaleVec4X   // mma .scale_vec::4X
	TensorB8x16        // ldmatrix .m8n16: .b8x16 (destination format)
	TensorB6x16P32     // ldmatrix .m8n16/.m16n16: .b6x16_p32 (packed source format)
	TensorB4x16P64     // ldmatrix .m8n16/.m16n16: .b4x16_p64
	TensorFragA        // wmma.load .a: the matrix a fragment holds
	TensorFragB        // wmma.load .b
	TensorFragC        // wmma.load .c
	TensorFragD        // wmma.store .d
	NumTensorWords
)

var tensorWordNames = [NumTensorWords]string{"", "tile", "im2col", "1d", "2d", "3d", "4d", "5d",
	"sp", "sp::ordered_metadata", "kind::f8f6f4", "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4",
	"block_scale", "scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "b8x16", "b6x16_p32", "b4x16_p64",
	"a", "b", "c", "d"}

func (w TensorWord) String() string { return tensorWordNames[w] }

// Mod is a decoded modifier: its kind and its value (a Type, Space, Rnd,
// Cmp, SubOp, Flag, vector width, Shape, Layout, matrix count, Elem or
// TensorWord depending on Kind).
type Mod struct {
	Kind  ModKind
	Value uint8
}

var modTable = func() map[string]Mod {
	m := map[string]Mod{}
	for t := Type(1); t < NumTypes; t++ {
		m[t.String()] = Mod{ModType, uint8(t)}
	}
	for name, s := range SpaceByName {
		m[name] = Mod{ModSpace, uint8(s)}
	}
	for r := Rnd(1); r < NumRnd; r++ {
		m[r.String()] = Mod{ModRnd, uint8(r)}
	}
	for c := Cmp(1); c < NumCmp; c++ {
		m[c.String()] = Mod{ModCmp, uint8(c)}
	}
	for s := SubOp(1); s < NumSubOps; s++ {
		m[s.String()] = Mod{ModSub, uint8(s)}
	}
	// ".sync" is always the flag FSync (shfl.sync, vote.sync, bar.sync ...),
	// overriding the sub-operation of the same name.
	for f := Flag(0); f < NumFlags; f++ {
		m[f.String()] = Mod{ModFlag, uint8(f)}
	}
	m["v2"], m["v4"], m["v8"] = Mod{ModVec, 2}, Mod{ModVec, 4}, Mod{ModVec, 8}
	for _, h := range []string{
		"ca", "cg", "cs", "lu", "cv", "wb", "wt", "weak", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio",
		"cta", "gpu", "sys", "cluster", "gl", "unified", "level::cache_hint", "L2::cache_hint", "L1::evict_normal",
		"L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
		"L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B", "proxy", "alias", "async_proxy",
		"noinc", "mbarrier", "expect_tx", "complete_tx", "bytes", "parity", "noComplete", "global_to_shared", "read", "write",
		"noreturn", "shared::cta", "level::eviction_priority", "level::prefetch_size",
		"L1", "L2", "fractional", "L2::evict_unchanged", "L2::primary", "L2::secondary", "L2::evict_first_tensor",
		"L2::evict_normal_tensor", "evict_last", "evict_first", "evict_normal", "evict_unchanged", "no_allocate",
		"range", "ignore_src",
		// fence.mbarrier_init.release.cluster, fence.proxy.tensormap::generic.*,
		// fence.proxy.async::generic.*, fence.*.sync_restrict::shared::{cta,cluster}.*
		// and prefetch{.const,.param}.tensormap (PTX 8.0+).
		"mbarrier_init", "tensormap", "tensormap::generic", "async::generic",
		"sync_restrict::shared::cluster", "sync_restrict::shared::cta",
		// griddepcontrol.launch_dependents.
		"launch_dependents",
		// tensormap.replace.tile.field.b1024: the object size and the fields.
		"b1024", "global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
		"elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode",
		// cp.async.bulk{.tensor}, cp.reduce.async.bulk{.tensor} and
		// prefetch.tensor.
		"tensor", "bulk_group", "mbarrier::complete_tx::bytes", "multicast::cluster", "prefetch", "noftz",
		"cta_group::1", "cta_group::2", "im2col_no_offs", "im2col::w", "im2col::w::128",
	} {
		if _, ok := m[h]; !ok {
			m[h] = Mod{ModHint, 0}
		}
	}
	for sh := Shape(1); sh < NumShapes; sh++ {
		m[sh.String()] = Mod{ModShape, uint8(sh)}
	}
	m["row"], m["col"] = Mod{ModLayout, uint8(Row)}, Mod{ModLayout, uint8(Col)}
	m["x1"], m["x2"], m["x4"] = Mod{ModNum, 1}, Mod{ModNum, 2}, Mod{ModNum, 4}
	for e := Elem(1); e < NumElems; e++ {
		m[e.String()] = Mod{ModElem, uint8(e)}
	}
	for w := TensorWord(1); w < NumTensorWords; w++ {
		m[w.String()] = Mod{ModTensor, uint8(w)}
	}
	for _, k := range wgmmaKs {
		for n := 8; n <= 256 && k > 0; n += 8 {
			v, _ := WgmmaShapeValue(n, k)
			m[fmt.Sprintf("m64n%dk%d", n, k)] = Mod{ModWgmmaShape, v}
		}
	}
	return m
}()

// LookupMod decodes a modifier word (without its dot).
func LookupMod(name string) (Mod, bool) {
	m, ok := modTable[name]
	return m, ok
}
