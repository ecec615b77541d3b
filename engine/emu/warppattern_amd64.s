//go:build amd64 && !purego

#include "textflag.h"

// PD1(off, roff): the four lanes at byte offset off of base against
// Y14 + ramp[roff...].
#define PD1(off, roff) \
	VPAND off(SI), Y15, Y0 \
	VPADDQ roff(DX), Y14, Y1 \
	VPXOR Y1, Y0, Y0 \
	VPOR Y0, Y13, Y13

// func classifyWarpVec(base *[32]uint64, am, off uint64) (p WarpPattern, o0, o16 uint64)
// ClassifyWarp (warppattern.go): patternDiffGo's pass four lanes at a time.
TEXT ·classifyWarpVec(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ am+8(FP), R8
	MOVQ off+16(FP), R9
	MOVQ 0(SI), R10
	ANDQ R8, R10 // x0
	MOVQ 128(SI), R11
	ANDQ R8, R11 // x16
	LEAQ (R9)(R10*1), AX // o0
	LEAQ (R9)(R11*1), BX // o16
	MOVQ AX, o0+32(FP)
	MOVQ BX, o16+40(FP)
	MOVB $0, p+24(FP)
	MOVQ AX, CX
	ORQ BX, CX
	TESTQ $3, CX
	JNE none
	MOVQ 8(SI), CX
	ANDQ R8, CX // x1
	CMPQ CX, R10
	JEQ broadcast
	LEAQ 4(R10), DX
	CMPQ CX, DX
	JNE none
	// A run: each half-warp from its first offset, the halves at the same
	// offsets or 64 bytes apart.
	CMPQ BX, AX
	JEQ run
	LEAQ 64(AX), DX
	CMPQ BX, DX
	JNE none
run:
	LEAQ ·rampWords(SB), DX
	MOVB $2, DI
	JMP diff
broadcast:
	LEAQ ·rampBroadcast(SB), DX
	MOVB $1, DI
diff:
	MOVQ R8, X15
	VPBROADCASTQ X15, Y15
	MOVQ R10, X14
	VPBROADCASTQ X14, Y14
	VPXOR Y13, Y13, Y13
	PD1(0, 0)
	PD1(32, 32)
	PD1(64, 64)
	PD1(96, 96)
	MOVQ R11, X14
	VPBROADCASTQ X14, Y14
	PD1(128, 0)
	PD1(160, 32)
	PD1(192, 64)
	PD1(224, 96)
	VPTEST Y13, Y13
	VZEROUPPER
	JNE none
	MOVB DI, p+24(FP)
none:
	RET
