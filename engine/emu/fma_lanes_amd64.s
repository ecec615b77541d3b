//go:build amd64 && !purego

#include "textflag.h"

// Dwords 0, 2, 4 and 6: the low halves of four qwords (VPERMD).
DATA lowDwords<>+0(SB)/4, $0
DATA lowDwords<>+4(SB)/4, $2
DATA lowDwords<>+8(SB)/4, $4
DATA lowDwords<>+12(SB)/4, $6
DATA lowDwords<>+16(SB)/4, $0
DATA lowDwords<>+20(SB)/4, $0
DATA lowDwords<>+24(SB)/4, $0
DATA lowDwords<>+28(SB)/4, $0
GLOBL lowDwords<>(SB), RODATA|NOPTR, $32

// func fmaF32Warp(d, a, b, c *[32]uint64) (slow uint32)
// See fma_lanes_amd64.go.
TEXT ·fmaF32Warp(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ c+24(FP), R9
	VMOVDQU lowDwords<>(SB), Y15
	MOVQ $0x7ff, AX
	MOVQ AX, X10
	VPBROADCASTQ X10, Y10          // exponent mask
	MOVQ $896, AX
	MOVQ AX, X11
	VPBROADCASTQ X11, Y11          // exponents above it are in range
	MOVQ $2047, AX
	MOVQ AX, X12
	VPBROADCASTQ X12, Y12          // and below it
	MOVQ $0x1fffffff, AX
	MOVQ AX, X13
	VPBROADCASTQ X13, Y13          // the bits below f32's mantissa
	MOVQ $0x10000000, AX
	MOVQ AX, X14
	VPBROADCASTQ X14, Y14          // a tie there
	XORL R10, R10                  // slow
	XORL CX, CX                    // the group's first lane

loop:
	VPERMD (SI), Y15, Y0
	VCVTPS2PD X0, Y0
	VPERMD (R8), Y15, Y1
	VCVTPS2PD X1, Y1
	VPERMD (R9), Y15, Y2
	VCVTPS2PD X2, Y2
	VMULPD Y1, Y0, Y0              // a·b, exact
	VADDPD Y2, Y0, Y0              // s = a·b + c, rounded once
	VPSRLQ $52, Y0, Y3
	VPAND Y10, Y3, Y3              // s's exponent
	VPCMPGTQ Y11, Y3, Y4           // above 896
	VPCMPGTQ Y3, Y12, Y5           // below 2047
	VPAND Y5, Y4, Y4
	VPAND Y13, Y0, Y6
	VPCMPEQQ Y14, Y6, Y6           // a tie for f32
	VPANDN Y4, Y6, Y4              // ok: in range and no tie
	VCVTPD2PSY Y0, X7
	VPMOVZXDQ X7, Y7
	VPMASKMOVQ Y7, Y4, (DI)        // the lanes that are ok
	VMOVMSKPD Y4, BX
	XORL $15, BX
	SHLL CX, BX
	ORL BX, R10
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, DI
	ADDL $4, CX
	CMPL CX, $32
	JNE loop
	VZEROUPPER
	MOVL R10, slow+32(FP)
	RET

// func cpuHasAVX2() bool
TEXT ·cpuHasAVX2(SB), NOSPLIT, $0-1
	MOVL $7, AX
	XORL CX, CX
	CPUID
	// EBX: AVX2 (bit 5).
	SHRL $5, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)
	RET
