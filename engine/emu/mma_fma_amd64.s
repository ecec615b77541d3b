//go:build amd64 && !purego

#include "textflag.h"

// func fmaRows8(a, b, c *float64, rows, k, ldb, ldc int)
TEXT ·fmaRows8(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ c+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ ldb+40(FP), BX
	MOVQ ldc+48(FP), CX
	SHLQ $3, BX                // b row stride in bytes
	SHLQ $3, CX                // c row stride in bytes
	MOVQ R9, R10
	SHLQ $3, R10               // a row stride in bytes
	LEAQ (R10)(R10*2), AX      // three a rows

rows:
	// The four rows of c: Y0..Y7.
	MOVQ DX, R13
	VMOVUPD (R13), Y0
	VMOVUPD 32(R13), Y1
	ADDQ CX, R13
	VMOVUPD (R13), Y2
	VMOVUPD 32(R13), Y3
	ADDQ CX, R13
	VMOVUPD (R13), Y4
	VMOVUPD 32(R13), Y5
	ADDQ CX, R13
	VMOVUPD (R13), Y6
	VMOVUPD 32(R13), Y7
	MOVQ SI, R11               // a[row][kk]
	MOVQ DI, R12               // b[kk]
	MOVQ R9, R13

ks:
	VMOVUPD (R12), Y8
	VMOVUPD 32(R12), Y9
	VBROADCASTSD (R11), Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VBROADCASTSD (R11)(R10*1), Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VBROADCASTSD (R11)(R10*2), Y12
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VBROADCASTSD (R11)(AX*1), Y13
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	ADDQ $8, R11
	ADDQ BX, R12
	DECQ R13
	JNZ ks

	MOVQ DX, R13
	VMOVUPD Y0, (R13)
	VMOVUPD Y1, 32(R13)
	ADDQ CX, R13
	VMOVUPD Y2, (R13)
	VMOVUPD Y3, 32(R13)
	ADDQ CX, R13
	VMOVUPD Y4, (R13)
	VMOVUPD Y5, 32(R13)
	ADDQ CX, R13
	VMOVUPD Y6, (R13)
	VMOVUPD Y7, 32(R13)
	LEAQ (SI)(R10*4), SI
	LEAQ (DX)(CX*4), DX
	SUBQ $4, R8
	JNZ rows
	VZEROUPPER
	RET

// func cpuHasAVXFMA() bool
TEXT ·cpuHasAVXFMA(SB), NOSPLIT, $0-1
	MOVL $1, AX
	XORL CX, CX
	CPUID
	// ECX: FMA (bit 12), OSXSAVE (27), AVX (28), F16C (29).
	ANDL $0x38001000, CX
	CMPL CX, $0x38001000
	JNE no
	// XCR0: the OS saves the XMM (bit 1) and YMM (bit 2) state.
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE no
	MOVB $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET

// func cvtH2D(src unsafe.Pointer, dst *float64, n int)
// dst[i] = the f16 src[i], exactly (F16C); n a positive multiple of 8.
TEXT ·cvtH2D(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX

h2d:
	VCVTPH2PS (SI), Y0
	VCVTPS2PD X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD X2, Y3
	VMOVUPD Y1, (DI)
	VMOVUPD Y3, 32(DI)
	ADDQ $16, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ h2d
	VZEROUPPER
	RET

// func cvtS2D(src *uint32, dst *float64, n int, mask uint32)
// dst[i] = the f32 src[i] & mask, exactly; n a positive multiple of 4.
TEXT ·cvtS2D(SB), NOSPLIT, $0-28
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX
	VBROADCASTSS mask+24(FP), X4

s2d:
	VANDPS (SI), X4, X0
	VCVTPS2PD X0, Y1
	VMOVUPD Y1, (DI)
	ADDQ $16, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JNZ s2d
	VZEROUPPER
	RET

// func cvtD2S(src *float64, dst *uint32, n int)
// dst[i] = src[i] rounded to f32 (to nearest even), a NaN as the
// canonical NaN (0x7fffffff); n a positive multiple of 4.
TEXT ·cvtD2S(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	MOVL AX, X5
	VBROADCASTSS X5, X5

d2s:
	VCVTPD2PSY (SI), X0
	VCMPPS $3, X0, X0, X1      // unordered: NaN lanes
	VBLENDVPS X1, X5, X0, X0   // X0 = NaN lanes ? X5 : X0
	VMOVUPS X0, (DI)
	ADDQ $32, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JNZ d2s
	VZEROUPPER
	RET

// The placements of one register (32 lanes) by a plan of positions, each
// below tensorFloatElems (newTensorForm checks the plans).

// func placeWordsVec(dst *uint32, vals *uint64, pos *uint16)
// dst[pos[l]] = uint32(vals[l]).
TEXT ·placeWordsVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ vals+8(FP), SI
	MOVQ pos+16(FP), DX
	MOVQ $8, CX

pw:
	MOVWLZX (DX), AX
	MOVL (SI), R8
	MOVL R8, (DI)(AX*4)
	MOVWLZX 2(DX), AX
	MOVL 8(SI), R8
	MOVL R8, (DI)(AX*4)
	MOVWLZX 4(DX), AX
	MOVL 16(SI), R8
	MOVL R8, (DI)(AX*4)
	MOVWLZX 6(DX), AX
	MOVL 24(SI), R8
	MOVL R8, (DI)(AX*4)
	ADDQ $8, DX
	ADDQ $32, SI
	DECQ CX
	JNZ pw
	RET

// func placeHalvesVec(dst *uint16, vals *uint64, pos *uint16)
// dst[pos[2l]] = uint16(vals[l]), dst[pos[2l+1]] = uint16(vals[l] >> 16).
TEXT ·placeHalvesVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ vals+8(FP), SI
	MOVQ pos+16(FP), DX
	MOVQ $16, CX

ph:
	MOVQ (SI), R8
	MOVWLZX (DX), AX
	MOVW R8, (DI)(AX*2)
	SHRQ $16, R8
	MOVWLZX 2(DX), AX
	MOVW R8, (DI)(AX*2)
	MOVQ 8(SI), R8
	MOVWLZX 4(DX), AX
	MOVW R8, (DI)(AX*2)
	SHRQ $16, R8
	MOVWLZX 6(DX), AX
	MOVW R8, (DI)(AX*2)
	ADDQ $8, DX
	ADDQ $16, SI
	DECQ CX
	JNZ ph
	RET

// func takeWordsVec(out *uint64, src *uint32, pos *uint16)
// out[l] = uint64(src[pos[l]]).
TEXT ·takeWordsVec(SB), NOSPLIT, $0-24
	MOVQ out+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ pos+16(FP), DX
	MOVQ $8, CX

tw:
	MOVWLZX (DX), AX
	MOVL (SI)(AX*4), R8
	MOVQ R8, (DI)
	MOVWLZX 2(DX), AX
	MOVL (SI)(AX*4), R8
	MOVQ R8, 8(DI)
	MOVWLZX 4(DX), AX
	MOVL (SI)(AX*4), R8
	MOVQ R8, 16(DI)
	MOVWLZX 6(DX), AX
	MOVL (SI)(AX*4), R8
	MOVQ R8, 24(DI)
	ADDQ $8, DX
	ADDQ $32, DI
	DECQ CX
	JNZ tw
	RET
