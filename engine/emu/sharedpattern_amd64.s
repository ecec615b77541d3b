//go:build amd64 && !purego

#include "textflag.h"

// The whole-warp shared-memory routines of sharedpattern.go in AVX2; each
// does what its Go loop there does (TestSharedPatternVec).

// BCASTD(v, x, y): the eight dwords of y (and the low one of x) are the
// 32-bit v (an immediate or a memory operand).
#define BCASTD(v, x, y) \
	MOVL v, AX \
	MOVD AX, x \
	VPBROADCASTD x, y

// Lane numbers 0-7 as dwords.
DATA laneDwords<>+0(SB)/4, $0
DATA laneDwords<>+4(SB)/4, $1
DATA laneDwords<>+8(SB)/4, $2
DATA laneDwords<>+12(SB)/4, $3
DATA laneDwords<>+16(SB)/4, $4
DATA laneDwords<>+20(SB)/4, $5
DATA laneDwords<>+24(SB)/4, $6
DATA laneDwords<>+28(SB)/4, $7
GLOBL laneDwords<>(SB), RODATA|NOPTR, $32

// PACK8(off, off+32, off/2): the low dwords of the eight qwords at src +
// off to the eight dwords at dst + off/2.
#define PACK8(off, off2, doff) \
	VMOVDQU off(SI), Y0 \
	VMOVDQU off2(SI), Y1 \
	VSHUFPS $0x88, Y1, Y0, Y2 \
	VPERMQ $0xd8, Y2, Y2 \
	VMOVDQU Y2, doff(DI)

// func storeRowVec(dst *byte, src *[32]uint64)
// The low words of src to the 32 words at dst.
TEXT ·storeRowVec(SB), NOSPLIT, $0-16
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	PACK8(0, 32, 0)
	PACK8(64, 96, 32)
	PACK8(128, 160, 64)
	PACK8(192, 224, 96)
	VZEROUPPER
	RET

// func allManyVec(acc *uint32) bool
// Whether the 16 words at acc are all sfMany (0xfff).
TEXT ·allManyVec(SB), NOSPLIT, $0-9
	MOVQ acc+0(FP), SI
	BCASTD($0xfff, X15, Y15)
	VPCMPEQD 0(SI), Y15, Y0
	VPCMPEQD 32(SI), Y15, Y1
	VPAND Y1, Y0, Y0
	VPMOVMSKB Y0, AX
	VZEROUPPER
	CMPL AX, $0xffffffff
	SETEQ ret+8(FP)
	RET

// Registers of the own-word routines: SI acc, DX wr, Y15 sfMany/sfReaderMask
// (0xfff), Y14 me0 + lane (this block's eight threads), Y13 8 (the step
// to the next block), Y12 zero; Y11 0xf (reads), Y10 sfPend and Y9
// sfReaderMask|sfPart (writes).

// OWNSETUP: the registers above common to both, me0 in BX.
#define OWNSETUP \
	BCASTD($0xfff, X15, Y15) \
	BCASTD($8, X13, Y13) \
	BCASTD(BX, X14, Y14) \
	VPADDD laneDwords<>(SB), Y14, Y14 \
	VPXOR Y12, Y12, Y12

// OWNREAD(off, off/4): sfRead of words off/4 .. off/4+7 by threads Y14: stores
// their new accesses, or jumps to fail (nothing stored) when one may be
// suspect.
#define OWNREAD(off, woff) \
	VMOVDQU off(SI), Y0 \
	VPMOVZXBD woff(DX), Y1 \
	VPCMPEQD Y15, Y0, Y2 \
	VPCMPEQD Y11, Y1, Y1 \
	VPSRLD $16, Y0, Y3 \
	VPCMPEQD Y12, Y3, Y4 \
	VPCMPEQD Y14, Y3, Y3 \
	VPOR Y4, Y3, Y3 \
	VPAND Y3, Y1, Y1 \
	VPOR Y2, Y1, Y1 \
	VPMOVMSKB Y1, AX \
	CMPL AX, $0xffffffff \
	JNE fail \
	VPAND Y15, Y0, Y3 \
	VPCMPEQD Y12, Y3, Y4 \
	VPCMPEQD Y14, Y3, Y5 \
	VPAND Y14, Y4, Y6 \
	VPOR Y5, Y4, Y5 \
	VPANDN Y15, Y5, Y5 \
	VPOR Y6, Y0, Y0 \
	VPOR Y5, Y0, Y0 \
	VMOVDQU Y0, off(SI) \
	VPADDD Y13, Y14, Y14

// func ownReadsVec(acc *uint32, wr *uint8, me0 uint32) bool
TEXT ·ownReadsVec(SB), NOSPLIT, $0-25
	MOVQ acc+0(FP), SI
	MOVQ wr+8(FP), DX
	MOVL me0+16(FP), BX
	OWNSETUP
	BCASTD($0xf, X11, Y11)
	OWNREAD(0, 0)
	OWNREAD(32, 8)
	OWNREAD(64, 16)
	OWNREAD(96, 24)
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET
fail:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

// OWNWRITE(off, off/4): sfWrites' rule for words off/4 .. off/4+7 by threads Y14:
// stores their new accesses and 0xf to their wr, or jumps to failw
// (nothing stored) when one may be suspect.
#define OWNWRITE(off, woff) \
	VMOVDQU off(SI), Y0 \
	VPMOVZXBD woff(DX), Y1 \
	VPSRLD $16, Y0, Y2 \
	VPCMPEQD Y12, Y2, Y3 \
	VPCMPEQD Y14, Y2, Y2 \
	VPOR Y3, Y2, Y2 \
	VPAND Y15, Y0, Y3 \
	VPCMPEQD Y12, Y3, Y4 \
	VPCMPEQD Y14, Y3, Y3 \
	VPOR Y4, Y3, Y3 \
	VPAND Y3, Y2, Y2 \
	VPAND Y10, Y1, Y1 \
	VPCMPEQD Y12, Y1, Y1 \
	VPAND Y1, Y2, Y2 \
	VPMOVMSKB Y2, AX \
	CMPL AX, $0xffffffff \
	JNE failw \
	VPAND Y9, Y0, Y0 \
	VPSLLD $16, Y14, Y1 \
	VPOR Y1, Y0, Y0 \
	VMOVDQU Y0, off(SI) \
	MOVQ R8, woff(DX) \
	VPADDD Y13, Y14, Y14

// func ownWritesVec(acc *uint32, wr *uint8, me0 uint32) bool
TEXT ·ownWritesVec(SB), NOSPLIT, $0-25
	MOVQ acc+0(FP), SI
	MOVQ wr+8(FP), DX
	MOVL me0+16(FP), BX
	OWNSETUP
	BCASTD($0x1fff, X9, Y9) // sfReaderMask | sfPart
	BCASTD($0x10, X10, Y10) // sfPend
	MOVQ $0x0f0f0f0f0f0f0f0f, R8
	OWNWRITE(0, 0)
	OWNWRITE(32, 8)
	OWNWRITE(64, 16)
	OWNWRITE(96, 24)
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET
failw:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
