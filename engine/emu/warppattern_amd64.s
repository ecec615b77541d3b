//go:build amd64 && !purego

#include "textflag.h"

// PD1(off, roff): the four lanes at byte offset off of base against
// Y14 + ramp[roff...].
#define PD1(off, roff) \
	VPAND off(SI), Y15, Y0 \
	VPADDQ roff(DX), Y14, Y1 \
	VPXOR Y1, Y0, Y0 \
	VPOR Y0, Y13, Y13

// CLASSIFY(none, run, broadcast, diff): ClassifyWarp of the lanes at SI
// with am in R8 and off in R9: o0 in AX, o16 in BX, and the pattern in DI
// when it falls through; a jump to none when it is PatternNone. The other
// arguments are the labels it uses inside.
#define CLASSIFY(none, run, broadcast, diff) \
	MOVQ 0(SI), R10 \
	ANDQ R8, R10 \
	MOVQ 128(SI), R11 \
	ANDQ R8, R11 \
	LEAQ (R9)(R10*1), AX \
	LEAQ (R9)(R11*1), BX \
	MOVQ AX, CX \
	ORQ BX, CX \
	TESTQ $3, CX \
	JNE none \
	MOVQ 8(SI), CX \
	ANDQ R8, CX \
	CMPQ CX, R10 \
	JEQ broadcast \
	LEAQ 4(R10), DX \
	CMPQ CX, DX \
	JNE none \
	CMPQ BX, AX \
	JEQ run \
	LEAQ 64(AX), DX \
	CMPQ BX, DX \
	JNE none \
run: \
	LEAQ ·rampWords(SB), DX \
	MOVQ $2, DI \
	JMP diff \
broadcast: \
	LEAQ ·rampBroadcast(SB), DX \
	MOVQ $1, DI \
diff: \
	MOVQ R8, X15 \
	VPBROADCASTQ X15, Y15 \
	MOVQ R10, X14 \
	VPBROADCASTQ X14, Y14 \
	VPXOR Y13, Y13, Y13 \
	PD1(0, 0) \
	PD1(32, 32) \
	PD1(64, 64) \
	PD1(96, 96) \
	MOVQ R11, X14 \
	VPBROADCASTQ X14, Y14 \
	PD1(128, 0) \
	PD1(160, 32) \
	PD1(192, 64) \
	PD1(224, 96) \
	VPTEST Y13, Y13 \
	VZEROUPPER \
	JNE none

// func classifyWarpVec(base *[32]uint64, am, off uint64) (p WarpPattern, o0, o16 uint64)
// ClassifyWarp (warppattern.go): patternDiffGo's pass four lanes at a time.
TEXT ·classifyWarpVec(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ am+8(FP), R8
	MOVQ off+16(FP), R9
	MOVB $0, p+24(FP)
	CLASSIFY(cnone, crun, cbroadcast, cdiff)
	MOVB DI, p+24(FP)
cnone:
	MOVQ AX, o0+32(FP)
	MOVQ BX, o16+40(FP)
	RET

// func loadSharedVec(d, base *[32]uint64, am, off uint64, sh *byte, n uint64) (p WarpPattern, o0, o16 uint64)
// A full warp's 4-byte load from the n bytes at sh at offsets
// off + base[l]&am when they follow a pattern of ClassifyWarp inside them
// (loadPattern4; the addresses are all read before d is written, so d may
// be base): the pattern, else PatternNone and nothing loaded.
TEXT ·loadSharedVec(SB), NOSPLIT, $0-72
	MOVQ base+8(FP), SI
	MOVQ am+16(FP), R8
	MOVQ off+24(FP), R9
	MOVB $0, p+48(FP)
	CLASSIFY(lnone, lrun, lbroadcast, ldiff)
	MOVQ sh+32(FP), SI
	MOVQ n+40(FP), CX
	MOVQ d+0(FP), R12
	CMPQ DI, $1
	JNE lwords
	// One word per half-warp.
	SUBQ $4, CX
	JCS lnone
	CMPQ AX, CX
	JHI lnone
	CMPQ BX, CX
	JHI lnone
	MOVL (SI)(AX*1), R10
	MOVL (SI)(BX*1), R11
	MOVQ R10, X0
	VPBROADCASTQ X0, Y0
	MOVQ R11, X1
	VPBROADCASTQ X1, Y1
	VMOVDQU Y0, 0(R12)
	VMOVDQU Y0, 32(R12)
	VMOVDQU Y0, 64(R12)
	VMOVDQU Y0, 96(R12)
	VMOVDQU Y1, 128(R12)
	VMOVDQU Y1, 160(R12)
	VMOVDQU Y1, 192(R12)
	VMOVDQU Y1, 224(R12)
	VZEROUPPER
	MOVB DI, p+48(FP)
	JMP lnone
lwords:
	// Sixteen words per half-warp.
	SUBQ $64, CX
	JCS lnone
	CMPQ AX, CX
	JHI lnone
	CMPQ BX, CX
	JHI lnone
	LEAQ (SI)(AX*1), R10
	LEAQ (SI)(BX*1), R11
	VPMOVZXDQ 0(R10), Y0
	VPMOVZXDQ 16(R10), Y1
	VPMOVZXDQ 32(R10), Y2
	VPMOVZXDQ 48(R10), Y3
	VPMOVZXDQ 0(R11), Y4
	VPMOVZXDQ 16(R11), Y5
	VPMOVZXDQ 32(R11), Y6
	VPMOVZXDQ 48(R11), Y7
	VMOVDQU Y0, 0(R12)
	VMOVDQU Y1, 32(R12)
	VMOVDQU Y2, 64(R12)
	VMOVDQU Y3, 96(R12)
	VMOVDQU Y4, 128(R12)
	VMOVDQU Y5, 160(R12)
	VMOVDQU Y6, 192(R12)
	VMOVDQU Y7, 224(R12)
	VZEROUPPER
	MOVB DI, p+48(FP)
lnone:
	MOVQ AX, o0+56(FP)
	MOVQ BX, o16+64(FP)
	RET
