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
	// ECX: FMA (bit 12), OSXSAVE (27), AVX (28).
	ANDL $0x18001000, CX
	CMPL CX, $0x18001000
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
