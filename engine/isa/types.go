// Package isa holds the PTX instruction set as data: types, state spaces,
// modifiers and the opcode table. One table drives the parser, the checker,
// hover documentation and the emulator.
package isa

// Type is a PTX fundamental type (".u32", ".f16x2", ".pred", ...).
type Type uint8

const (
	TNone Type = iota
	B8
	B16
	B32
	B64
	B128
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F16x2
	BF16
	BF16x2
	TF32
	F32
	F64
	E4M3
	E5M2
	E4M3x2
	E5M2x2
	U16x2
	S16x2
	Pred
	NumTypes
)

var typeNames = [NumTypes]string{
	"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "e4m3", "e5m2", "e4m3x2", "e5m2x2",
	"u16x2", "s16x2", "pred",
}

func (t Type) String() string {
	if t < NumTypes {
		return typeNames[t]
	}
	return "?"
}

// TypeKind classifies a Type.
type TypeKind uint8

const (
	KindNone TypeKind = iota
	KindBits
	KindUnsigned
	KindSigned
	KindFloat
	KindPred
)

// Kind returns the kind of t (bit-size, unsigned, signed, float, predicate).
func (t Type) Kind() TypeKind {
	switch t {
	case B8, B16, B32, B64, B128:
		return KindBits
	case U8, U16, U32, U64, U16x2:
		return KindUnsigned
	case S8, S16, S32, S64, S16x2:
		return KindSigned
	case F16, F16x2, BF16, BF16x2, TF32, F32, F64, E4M3, E5M2, E4M3x2, E5M2x2:
		return KindFloat
	case Pred:
		return KindPred
	}
	return KindNone
}

// Bits returns the width of t in bits (predicates count as 1).
func (t Type) Bits() int {
	switch t {
	case B8, U8, S8, E4M3, E5M2:
		return 8
	case B16, U16, S16, F16, BF16, E4M3x2, E5M2x2:
		return 16
	case B32, U32, S32, F32, F16x2, BF16x2, TF32, U16x2, S16x2:
		return 32
	case B64, U64, S64, F64:
		return 64
	case B128:
		return 128
	case Pred:
		return 1
	}
	return 0
}

// Size returns the size of t in bytes (predicates: 1).
func (t Type) Size() int {
	if t == Pred {
		return 1
	}
	return t.Bits() / 8
}

// IsFloat reports whether t is a floating-point type.
func (t Type) IsFloat() bool { return t.Kind() == KindFloat }

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t.Kind() == KindSigned }

// TypeByName maps "u32" (without the dot) to its Type.
var TypeByName = func() map[string]Type {
	m := make(map[string]Type, NumTypes)
	for t := Type(1); t < NumTypes; t++ {
		m[typeNames[t]] = t
	}
	return m
}()

// Space is a PTX state space.
type Space uint8

const (
	SpaceNone Space = iota // generic addressing
	Reg
	SReg
	Const
	Global
	Local
	Param
	Shared        // .shared and .shared::cta
	SharedCluster // .shared::cluster
	Tex
	NumSpaces
)

var spaceNames = [NumSpaces]string{"generic", "reg", "sreg", "const", "global", "local", "param", "shared", "shared::cluster", "tex"}

func (s Space) String() string {
	if s < NumSpaces {
		return spaceNames[s]
	}
	return "?"
}

// SpaceByName maps "global", "shared::cta", ... (without the dot) to a Space.
var SpaceByName = map[string]Space{
	"reg": Reg, "sreg": SReg, "const": Const, "global": Global, "local": Local, "param": Param,
	"shared": Shared, "shared::cta": Shared, "shared::cluster": SharedCluster, "tex": Tex,
}
