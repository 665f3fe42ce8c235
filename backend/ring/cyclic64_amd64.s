//go:build amd64 && !purego

#include "textflag.h"
#include "cyclic64_amd64.h"

// Stages, fused middle and final reduction of CyclicNTT64.Convolve.
// Conventions and MULSHOUP: cyclic64_amd64.h.

// func cycFwdStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)
// One decimation-in-frequency stage of half-span h (a multiple of 8) over
// a[0:n]; tw, twS point at the stage's twiddles (entries h..2h-1).
TEXT ·cycFwdStageAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ h+16(FP), DX
	MOVQ tw+24(FP), R8
	MOVQ twS+32(FP), R9
	MOVQ q+40(FP), AX
	SETUP_Q
	SHLQ $3, DX         // h in bytes
	SHLQ $3, CX
	ADDQ DI, CX         // end of a
	MOVQ DI, R12        // block start

fblock:
	LEAQ (R12)(DX*1), R13
	XORQ R14, R14

finner:
	VMOVDQU64 (R12)(R14*1), Z0
	VMOVDQU64 (R13)(R14*1), Z1
	VMOVDQU64 (R8)(R14*1), Z2
	VMOVDQU64 (R9)(R14*1), Z3
	VPSRLQ    $32, Z3, Z4
	GS(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (R12)(R14*1)
	VMOVDQU64 Z1, (R13)(R14*1)
	ADDQ $64, R14
	CMPQ R14, DX
	JLT  finner
	LEAQ (R13)(DX*1), R12
	CMPQ R12, CX
	JLT  fblock
	VZEROUPPER
	RET

// func cycInvStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)
// One decimation-in-time stage of half-span h (a multiple of 8), [0, 4q) in
// and out.
TEXT ·cycInvStageAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ h+16(FP), DX
	MOVQ tw+24(FP), R8
	MOVQ twS+32(FP), R9
	MOVQ q+40(FP), AX
	SETUP_Q
	SHLQ $3, DX
	SHLQ $3, CX
	ADDQ DI, CX
	MOVQ DI, R12

iblock:
	LEAQ (R12)(DX*1), R13
	XORQ R14, R14

iinner:
	VMOVDQU64 (R12)(R14*1), Z0
	VMOVDQU64 (R13)(R14*1), Z1
	VMOVDQU64 (R8)(R14*1), Z2
	VMOVDQU64 (R9)(R14*1), Z3
	VPSRLQ    $32, Z3, Z4
	CT(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (R12)(R14*1)
	VMOVDQU64 Z1, (R13)(R14*1)
	ADDQ $64, R14
	CMPQ R14, DX
	JLT  iinner
	LEAQ (R13)(DX*1), R12
	CMPQ R12, CX
	JLT  iblock
	VZEROUPPER
	RET

// func cycReduce4AVX(a *uint64, n int, q uint64)
// a[0:n] from [0, 4q) to [0, q); n a multiple of 8.
TEXT ·cycReduce4AVX(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ q+16(FP), AX
	SETUP_Q

rloop:
	VMOVDQU64 (DI), Z0
	RED2(Z0, Z1)
	VPSUBQ    Z30, Z0, Z1
	VPMINUQ   Z1, Z0, Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  rloop
	VZEROUPPER
	RET

// TRANSPOSE8: the 8×8 transpose of the qword matrix whose rows are
// R0..R7 into C0..C7 (distinct registers): unpack pairs of rows, then
// recombine 128-bit and 256-bit lanes with VSHUFI64X2.
#define TRANSPOSE8(R0, R1, R2, R3, R4, R5, R6, R7, C0, C1, C2, C3, C4, C5, C6, C7) \
	VPUNPCKLQDQ R1, R0, C0 \
	VPUNPCKHQDQ R1, R0, C1 \
	VPUNPCKLQDQ R3, R2, C2 \
	VPUNPCKHQDQ R3, R2, C3 \
	VPUNPCKLQDQ R5, R4, C4 \
	VPUNPCKHQDQ R5, R4, C5 \
	VPUNPCKLQDQ R7, R6, C6 \
	VPUNPCKHQDQ R7, R6, C7 \
	VSHUFI64X2 $0x88, C2, C0, R0 \
	VSHUFI64X2 $0x88, C3, C1, R1 \
	VSHUFI64X2 $0xDD, C2, C0, R2 \
	VSHUFI64X2 $0xDD, C3, C1, R3 \
	VSHUFI64X2 $0x88, C6, C4, R4 \
	VSHUFI64X2 $0x88, C7, C5, R5 \
	VSHUFI64X2 $0xDD, C6, C4, R6 \
	VSHUFI64X2 $0xDD, C7, C5, R7 \
	VSHUFI64X2 $0x88, R4, R0, C0 \
	VSHUFI64X2 $0xDD, R4, R0, C4 \
	VSHUFI64X2 $0x88, R5, R1, C1 \
	VSHUFI64X2 $0xDD, R5, R1, C5 \
	VSHUFI64X2 $0x88, R6, R2, C2 \
	VSHUFI64X2 $0xDD, R6, R2, C6 \
	VSHUFI64X2 $0x88, R7, R3, C3 \
	VSHUFI64X2 $0xDD, R7, R3, C7

// LOADTW: broadcast the three twiddles of a size-8 transform from c: Z20..22
// = ω^(N/8), Z23..25 = ω^(N/4), Z26..28 = ω^(3N/8) (value, w', w' >> 32).
#define LOADTW(R) \
	VPBROADCASTQ 0(R), Z20 \
	VPBROADCASTQ 8(R), Z21 \
	VPBROADCASTQ 16(R), Z22 \
	VPBROADCASTQ 24(R), Z23 \
	VPBROADCASTQ 32(R), Z24 \
	VPBROADCASTQ 40(R), Z25 \
	VPBROADCASTQ 48(R), Z26 \
	VPBROADCASTQ 56(R), Z27 \
	VPBROADCASTQ 64(R), Z28

// KMUL: column register X times the kernel row at off(R9)/off(R10).
#define KMUL(X, off) \
	VMOVDQU64 off(R9), Z0 \
	VMOVDQU64 off(R10), Z1 \
	VPSRLQ    $32, Z1, Z2 \
	MULSHOUP(X, Z0, Z1, Z2, X, Z3, Z4)

// func cycMiddleAVX(a *uint64, n int, k, ks *uint64, c *[18]uint64, q uint64)
// Per group of 64 entries (8 blocks of 8): the last three forward stages
// (h = 4, 2, 1), the pointwise product with the kernel k (with Shoup
// companions ks) and the first three inverse stages (h = 1, 2, 4). The
// group is transposed so that each register holds one position of all 8
// blocks; the kernel is stored in that transposed layout. [0, 2q) in,
// [0, 4q) out. c = forward then inverse twiddles, as LOADTW reads them.
TEXT ·cycMiddleAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ k+16(FP), R9
	MOVQ ks+24(FP), R10
	MOVQ c+32(FP), R8
	MOVQ q+40(FP), AX
	SETUP_Q
	LEAQ 72(R8), R11

mloop:
	VMOVDQU64 0(DI), Z0
	VMOVDQU64 64(DI), Z1
	VMOVDQU64 128(DI), Z2
	VMOVDQU64 192(DI), Z3
	VMOVDQU64 256(DI), Z4
	VMOVDQU64 320(DI), Z5
	VMOVDQU64 384(DI), Z6
	VMOVDQU64 448(DI), Z7
	TRANSPOSE8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	LOADTW(R8)
	// Forward h = 4: (0,4) w=1, (1,5) ω^(N/8), (2,6) ω^(N/4), (3,7) ω^(3N/8).
	GS1(Z8, Z12, Z0, Z1)
	GS(Z9, Z13, Z20, Z21, Z22, Z0, Z1, Z2)
	GS(Z10, Z14, Z23, Z24, Z25, Z0, Z1, Z2)
	GS(Z11, Z15, Z26, Z27, Z28, Z0, Z1, Z2)
	// Forward h = 2: (0,2), (4,6) w=1; (1,3), (5,7) ω^(N/4).
	GS1(Z8, Z10, Z0, Z1)
	GS(Z9, Z11, Z23, Z24, Z25, Z0, Z1, Z2)
	GS1(Z12, Z14, Z0, Z1)
	GS(Z13, Z15, Z23, Z24, Z25, Z0, Z1, Z2)
	// Forward h = 1: w = 1.
	GS1(Z8, Z9, Z0, Z1)
	GS1(Z10, Z11, Z0, Z1)
	GS1(Z12, Z13, Z0, Z1)
	GS1(Z14, Z15, Z0, Z1)
	// Pointwise product with the kernel.
	KMUL(Z8, 0)
	KMUL(Z9, 64)
	KMUL(Z10, 128)
	KMUL(Z11, 192)
	KMUL(Z12, 256)
	KMUL(Z13, 320)
	KMUL(Z14, 384)
	KMUL(Z15, 448)
	LOADTW(R11)
	// Inverse h = 1: w = 1.
	CT1(Z8, Z9, Z0, Z1)
	CT1(Z10, Z11, Z0, Z1)
	CT1(Z12, Z13, Z0, Z1)
	CT1(Z14, Z15, Z0, Z1)
	// Inverse h = 2: (0,2), (4,6) w=1; (1,3), (5,7) ω^(-N/4).
	CT1(Z8, Z10, Z0, Z1)
	CT(Z9, Z11, Z23, Z24, Z25, Z0, Z1, Z2)
	CT1(Z12, Z14, Z0, Z1)
	CT(Z13, Z15, Z23, Z24, Z25, Z0, Z1, Z2)
	// Inverse h = 4.
	CT1(Z8, Z12, Z0, Z1)
	CT(Z9, Z13, Z20, Z21, Z22, Z0, Z1, Z2)
	CT(Z10, Z14, Z23, Z24, Z25, Z0, Z1, Z2)
	CT(Z11, Z15, Z26, Z27, Z28, Z0, Z1, Z2)
	TRANSPOSE8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z4, 256(DI)
	VMOVDQU64 Z5, 320(DI)
	VMOVDQU64 Z6, 384(DI)
	VMOVDQU64 Z7, 448(DI)
	ADDQ $512, DI
	ADDQ $512, R9
	ADDQ $512, R10
	SUBQ $64, CX
	JNZ  mloop
	VZEROUPPER
	RET
