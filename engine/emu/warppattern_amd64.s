//go:build amd64 && !purego

#include "textflag.h"

// PD1(off, roff): the four lanes at byte offset off of base against
// Y14 + ramp[roff...].
#define PD1(off, roff) \
	VPAND off(SI), Y15, Y0 \
	VPADDQ roff(DX), Y14, Y1 \
	VPXOR Y1, Y0, Y0 \
	VPOR Y0, Y13, Y13

// func patternDiffVec(base *[32]uint64, am, x0, x16 uint64, ramp *[16]uint64) uint64
// See warppattern.go.
TEXT ·patternDiffVec(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ ramp+32(FP), DX
	VPBROADCASTQ am+8(FP), Y15
	VPBROADCASTQ x0+16(FP), Y14
	VPXOR Y13, Y13, Y13
	PD1(0, 0)
	PD1(32, 32)
	PD1(64, 64)
	PD1(96, 96)
	VPBROADCASTQ x16+24(FP), Y14
	PD1(128, 0)
	PD1(160, 32)
	PD1(192, 64)
	PD1(224, 96)
	VEXTRACTI128 $1, Y13, X0
	VPOR X0, X13, X13
	VPSHUFD $0x4e, X13, X0
	VPOR X0, X13, X13
	VMOVQ X13, AX
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET
