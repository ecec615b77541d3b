//go:build amd64 && !purego

#include "textflag.h"

// ALL8 applies ONE to the eight groups of four lanes, by their byte
// offsets; ALL8SH also gives each its first lane (the shift of its bits
// in a lane mask).
#define ALL8(ONE) \
	ONE(0) \
	ONE(32) \
	ONE(64) \
	ONE(96) \
	ONE(128) \
	ONE(160) \
	ONE(192) \
	ONE(224)

#define ALL8SH(ONE) \
	ONE(0, 0) \
	ONE(32, 4) \
	ONE(64, 8) \
	ONE(96, 12) \
	ONE(128, 16) \
	ONE(160, 20) \
	ONE(192, 24) \
	ONE(224, 28)

// The whole-warp integer routines of lanes_int_amd64.go: 32 lanes of
// 64-bit values, four per 256-bit vector, eight vectors.

// BINM is d[l] = (a[l] OP b[l]) & m for the 32 lanes, unrolled: BIN1
// does the four lanes at byte offset off.
#define BIN1(OP, off) \
	VMOVDQU off(SI), Y0 \
	OP off(DX), Y0, Y0 \
	VPAND Y15, Y0, Y0 \
	VMOVDQU Y0, off(DI)

#define BINM(OP) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	VPBROADCASTQ m+24(FP), Y15 \
	BIN1(OP, 0) \
	BIN1(OP, 32) \
	BIN1(OP, 64) \
	BIN1(OP, 96) \
	BIN1(OP, 128) \
	BIN1(OP, 160) \
	BIN1(OP, 192) \
	BIN1(OP, 224) \
	VZEROUPPER \
	RET

// func vecAndM(d, a, b *[32]uint64, m uint64)
TEXT ·vecAndM(SB), NOSPLIT, $0-32
	BINM(VPAND)

// func vecOrM(d, a, b *[32]uint64, m uint64)
TEXT ·vecOrM(SB), NOSPLIT, $0-32
	BINM(VPOR)

// func vecXorM(d, a, b *[32]uint64, m uint64)
TEXT ·vecXorM(SB), NOSPLIT, $0-32
	BINM(VPXOR)

// func vecAddM(d, a, b *[32]uint64, m uint64)
TEXT ·vecAddM(SB), NOSPLIT, $0-32
	BINM(VPADDQ)

// func vecSubM(d, a, b *[32]uint64, m uint64): VPSUBQ Y1, Y0, Y0 is
// Y0 - Y1, a - b.
TEXT ·vecSubM(SB), NOSPLIT, $0-32
	BINM(VPSUBQ)

// func vecMadLoM(d, a, b, c *[32]uint64, m uint64)
// d[l] = (a[l]·b[l] + c[l]) & m for m < 2^32: the product's low 32 bits
// are those of the low halves' product (VPMULUDQ).
#define MAD1(off) \
	VMOVDQU off(SI), Y0 \
	VPMULUDQ off(DX), Y0, Y0 \
	VPADDQ off(R8), Y0, Y0 \
	VPAND Y15, Y0, Y0 \
	VMOVDQU Y0, off(DI)

TEXT ·vecMadLoM(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), R8
	VPBROADCASTQ m+32(FP), Y15
	ALL8(MAD1)
	VZEROUPPER
	RET

// UNI8 applies ONE (which takes a byte offset) to the 32 lanes and
// returns.
#define UNI8(ONE) \
	ALL8(ONE) \
	VZEROUPPER \
	RET

#define LOW32 \
	MOVQ $0xffffffff, AX \
	MOVQ AX, X15 \
	VPBROADCASTQ X15, Y15

// func vecAddImm32(d, a *[32]uint64, k uint64)
// d[l] = uint32(a[l] + k).
#define ADDK1(off) \
	VPADDQ off(SI), Y14, Y0 \
	VPAND Y15, Y0, Y0 \
	VMOVDQU Y0, off(DI)

TEXT ·vecAddImm32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VPBROADCASTQ k+16(FP), Y14
	LOW32
	UNI8(ADDK1)

// func vecShlImm32(d, a *[32]uint64, s uint64)
// d[l] = uint32(a[l] << s), s < 32.
#define SHL1(off) \
	VMOVDQU off(SI), Y0 \
	VPSLLQ X14, Y0, Y0 \
	VPAND Y15, Y0, Y0 \
	VMOVDQU Y0, off(DI)

TEXT ·vecShlImm32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ s+16(FP), X14
	LOW32
	UNI8(SHL1)

// func vecShrImm32(d, a *[32]uint64, s uint64)
// d[l] = uint32(a[l]) >> s, s < 32.
#define SHR1(off) \
	VPAND off(SI), Y15, Y0 \
	VPSRLQ X14, Y0, Y0 \
	VMOVDQU Y0, off(DI)

TEXT ·vecShrImm32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ s+16(FP), X14
	LOW32
	UNI8(SHR1)

// The compares of up to 32 bits (exec_cmp_gen.go): lane l's bit of x < y
// is the sign of x - y, x = (a[l] & w) ^ bias and y being below 2^32 + 1
// (the bias turns a signed order into the unsigned one), collected four
// lanes at a time (VMOVMSKPD).

// XLANES(off): x of the four lanes at byte offset off in Y0; SIGNS(sh):
// the signs of Y0 into AX from bit sh.
#define XLANES(off) \
	VPAND off(SI), Y15, Y0 \
	VPXOR Y14, Y0, Y0

#define SIGNS(sh) \
	VMOVMSKPD Y0, BX \
	SHLL $sh, BX \
	ORL BX, AX

// LT1: Y0 = x - ((b[l] & w) ^ bias).
#define LT1(off, sh) \
	XLANES(off) \
	VPAND off(DX), Y15, Y1 \
	VPXOR Y14, Y1, Y1 \
	VPSUBQ Y1, Y0, Y0 \
	SIGNS(sh)

// func vecCmpLT(a, b *[32]uint64, w, bias uint64) uint32
// bit l: x < (b[l] & w) ^ bias.
TEXT ·vecCmpLT(SB), NOSPLIT, $0-36
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	VPBROADCASTQ w+16(FP), Y15
	VPBROADCASTQ bias+24(FP), Y14
	XORL AX, AX
	ALL8SH(LT1)
	VZEROUPPER
	MOVL AX, ret+32(FP)
	RET

// LTK1: Y0 = x - y with Y12 = y.
#define LTK1(off, sh) \
	XLANES(off) \
	VPSUBQ Y12, Y0, Y0 \
	SIGNS(sh)

// func vecCmpLTK(a *[32]uint64, y, w, bias uint64) uint32
// bit l: x < y.
TEXT ·vecCmpLTK(SB), NOSPLIT, $0-36
	MOVQ a+0(FP), SI
	VPBROADCASTQ y+8(FP), Y12
	VPBROADCASTQ w+16(FP), Y15
	VPBROADCASTQ bias+24(FP), Y14
	XORL AX, AX
	ALL8SH(LTK1)
	VZEROUPPER
	MOVL AX, ret+32(FP)
	RET

// EQ1: Y0 = all ones where (a[l] & w) == Y12.
#define EQ1(off, sh) \
	VPAND off(SI), Y15, Y0 \
	VPCMPEQQ Y12, Y0, Y0 \
	SIGNS(sh)

// EQB1: Y12 = b[l] & w first.
#define EQB1(off, sh) \
	VPAND off(DX), Y15, Y12 \
	EQ1(off, sh)

// func vecCmpEq(a, b *[32]uint64, w uint64) uint32
// bit l: a[l] & w == b[l] & w.
TEXT ·vecCmpEq(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	VPBROADCASTQ w+16(FP), Y15
	XORL AX, AX
	ALL8SH(EQB1)
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func vecCmpEqK(a *[32]uint64, y, w uint64) uint32
// bit l: a[l] & w == y.
TEXT ·vecCmpEqK(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	VPBROADCASTQ w+16(FP), Y15
	VPBROADCASTQ y+8(FP), Y12
	XORL AX, AX
	ALL8SH(EQ1)
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET
