//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// func rns2DecomposeAVX512(in0, in1 *uint32, n int, outs *[2 * MaxDigits]*uint32, dg int, c *[13]uint64)
//
// RNS2.decompose on 16 coefficients per iteration; n is a multiple of 16,
// outs[2j+i] is digit j's residue-i slice, dg = 2·digits. c = {sub,
// q0InvShoup, q0Inv, Q1, Q0, (Q-1)/2, Q, round + (B/2 << drop), drop, B/2,
// B-1, logB, k64}.
// Needs B/2 <= min(Q0, Q1), so a digit's residue is d or d + Qi. The steps
// are those of the Go loop, lane-wise, so the results agree bit for bit:
//
//   - Garner's t in uint32 lanes (a Shoup product as in the NTT kernels);
//   - x = r0 + Q0·t, the centring and the rounding in int64 lanes, the even
//     coefficients in Z6 and the odd ones in Z7 (VPMULUDQ takes the even
//     dwords, so no zero-extending loads are needed);
//   - the digit loop carries w = v + B/2 instead of the remainder v (the
//     first B/2 added with the rounding constant, (x + round)>>drop + B/2 =
//     (x + round + (B/2 << drop))>>drop): then d = (w & (B-1)) - B/2 and the
//     next v = (v - d) >> logB = w >> logB (arithmetic shifts floor), two
//     ops per digit and register fewer, and the last digit computes no next
//     w;
//   - the first k64 digits in int64 lanes while the remainder v may exceed
//     int32 (the caller's bound), the others in int32 lanes after packing v
//     (identical results: no int32 step can overflow then);
//   - each digit d packed to int32 lanes (one merged VPSHUFD) and its
//     residues d + (Qi if d < 0) stored as whole vectors.
TEXT ·rns2DecomposeAVX512(SB), NOSPLIT, $0-48
	MOVQ in0+0(FP), SI
	MOVQ in1+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ outs+24(FP), R8
	MOVQ dg+32(FP), R9
	MOVQ c+40(FP), R10
	VPBROADCASTD 0(R10), Z16  // sub
	VPBROADCASTD 8(R10), Z17  // q0InvShoup
	VPBROADCASTD 16(R10), Z18 // q0Inv
	VPBROADCASTD 24(R10), Z30 // Q1
	VPBROADCASTD 32(R10), Z20 // Q0
	VPBROADCASTQ 40(R10), Z21 // (Q-1)/2
	VPBROADCASTQ 48(R10), Z22 // Q
	VPBROADCASTQ 56(R10), Z23 // round
	VPBROADCASTQ 64(R10), Z24 // drop (shift count in X24)
	VPBROADCASTQ 72(R10), Z25 // B/2, int64 lanes
	VPBROADCASTD 72(R10), Z26 // B/2, int32 lanes
	VPBROADCASTQ 80(R10), Z27 // B-1, int64 lanes
	VPBROADCASTD 80(R10), Z28 // B-1, int32 lanes
	VPBROADCASTQ 88(R10), Z29 // logB (shift count in X29)
	MOVQ 96(R10), R13         // k64
	SHLQ $1, R13
	VPXORD Z19, Z19, Z19      // zero
	VPTERNLOGD $0xff, Z31, Z31, Z31
	VPSRLQ $32, Z31, Z31      // low-dword mask of each qword
	MOVL $0xAAAA, AX
	KMOVW AX, K1
	MOVL $0x5555, AX
	KMOVW AX, K2
	XORQ R11, R11             // byte offset into the uint32 slices
	SHRQ $4, CX
	JZ   rdone

rloop:
	VMOVDQU32 (SI)(R11*1), Z0 // r0
	VMOVDQU32 (DI)(R11*1), Z1 // r1
	// Garner: u = r1 + sub - r0 < 2^32; t = u·q0Inv mod Q1 by Shoup,
	// then to [0, Q1).
	VPADDD   Z16, Z1, Z2
	VPSUBD   Z0, Z2, Z2
	VPMULUDQ Z17, Z2, Z3
	VPSRLQ   $32, Z2, Z4
	VPMULUDQ Z17, Z4, Z4
	VPSHUFD  $0xf5, Z3, K2, Z4
	VPMULLD  Z18, Z2, Z5
	VPMULLD  Z30, Z4, Z4
	VPSUBD   Z4, Z5, Z5
	VPSUBD   Z30, Z5, Z3
	VPMINUD  Z3, Z5, Z5
	// x = r0 + Q0·t in [0, Q): even coefficients in Z6, odd in Z7.
	VPMULUDQ Z20, Z5, Z6
	VPANDQ   Z31, Z0, Z3
	VPADDQ   Z3, Z6, Z6
	VPSRLQ   $32, Z5, Z7
	VPMULUDQ Z20, Z7, Z7
	VPSRLQ   $32, Z0, Z3
	VPADDQ   Z3, Z7, Z7
	// Centre: x - Q where x > (Q-1)/2; round off drop bits, + B/2: w.
	VPCMPGTQ Z21, Z6, K3
	VPSUBQ   Z22, Z6, K3, Z6
	VPCMPGTQ Z21, Z7, K4
	VPSUBQ   Z22, Z7, K4, Z7
	VPADDQ   Z23, Z6, Z6
	VPSRAQ   X24, Z6, Z6
	VPADDQ   Z23, Z7, Z7
	VPSRAQ   X24, Z7, Z7
	XORQ     R12, R12         // 2·digit
	TESTQ    R13, R13
	JZ       rpack

rdig64:
	// d = (w & (B-1)) - B/2; w = (w >> logB) + B/2, int64 lanes.
	VPANDQ  Z27, Z6, Z8
	VPSUBQ  Z25, Z8, Z8
	VPSRAQ  X29, Z6, Z6
	VPADDQ  Z25, Z6, Z6
	VPANDQ  Z27, Z7, Z9
	VPSUBQ  Z25, Z9, Z9
	VPSRAQ  X29, Z7, Z7
	VPADDQ  Z25, Z7, Z7
	VPSHUFD $0xa0, Z9, K1, Z8 // the odd digits into the odd dwords
	// Residues d + (Qi & (d < 0)).
	VPCMPGTD  Z8, Z19, K5
	VMOVDQA32 Z8, Z10
	VPADDD    Z20, Z8, K5, Z10
	VPADDD    Z30, Z8, K5, Z8
	MOVQ      (R8)(R12*8), R14
	MOVQ      8(R8)(R12*8), R15
	VMOVDQU32 Z10, (R14)(R11*1)
	VMOVDQU32 Z8, (R15)(R11*1)
	ADDQ    $2, R12
	CMPQ    R12, R13
	JLT     rdig64

rpack:
	CMPQ    R12, R9
	JGE     rnext
	VPSHUFD $0xa0, Z7, K1, Z6 // w into int32 lanes, coefficient order
	JMP     rd32

rnext32:
	VPSRAD  X29, Z6, Z6       // the next digit's w
	VPADDD  Z26, Z6, Z6

rd32:
	VPANDD  Z28, Z6, Z8
	VPSUBD  Z26, Z8, Z8
	VPCMPGTD  Z8, Z19, K5
	VMOVDQA32 Z8, Z10
	VPADDD    Z20, Z8, K5, Z10
	VPADDD    Z30, Z8, K5, Z8
	MOVQ      (R8)(R12*8), R14
	MOVQ      8(R8)(R12*8), R15
	VMOVDQU32 Z10, (R14)(R11*1)
	VMOVDQU32 Z8, (R15)(R11*1)
	ADDQ    $2, R12
	CMPQ    R12, R9
	JLT     rnext32

rnext:
	ADDQ $64, R11
	DECQ CX
	JNZ  rloop

rdone:
	VZEROUPPER
	RET

// func rns2DotRowsAVX512(ptrs *[3 * maxFusedDigits]*uint32, np int, n int, outB, outA *uint32, c *[9]uint64)
//
// One residue of RNS2.dotRows, 16 slots per iteration: ptrs holds
// (digit, rowB, rowA) per digit, np = 3·digits. Each operand is loaded as
// 16 uint32; VPMULUDQ multiplies the even entries (low halves of the
// 64-bit lanes) and, after a 32-bit shift, the odd ones, so no
// zero-extending shuffles are needed. The four sums (B, A; even, odd) stay
// in uint64 registers across all digits (the caller ensures
// digits <= MaxLazyTerms) and are reduced once: by BARRETT32 when c[8] != 0
// (the caller checked digits·(Q-1)^2 < 2^(31+b)), else by REDUCE64. Then
// even | odd<<32 is the output in natural order. n is a multiple of 16.
// c = Modulus32.vecConst, b-1, mu, flag.
TEXT ·rns2DotRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ ptrs+0(FP), R8
	MOVQ np+8(FP), R9
	MOVQ n+16(FP), CX
	MOVQ outB+24(FP), SI
	MOVQ outA+32(FP), DI
	MOVQ c+40(FP), R10
	VPBROADCASTQ 0(R10), Z24
	VPBROADCASTQ 8(R10), Z25
	VPBROADCASTQ 16(R10), Z26
	VPBROADCASTQ 24(R10), Z27
	VPBROADCASTQ 32(R10), Z28
	VPBROADCASTQ 40(R10), Z29
	VPBROADCASTQ 48(R10), Z22
	VPBROADCASTQ 56(R10), Z23
	MOVQ 64(R10), BX
	XORQ R11, R11 // byte offset into the uint32 slices
	SHRQ $4, CX
	JZ   tdone

tloop:
	VPXORQ Z0, Z0, Z0 // B, even slots
	VPXORQ Z1, Z1, Z1 // B, odd slots
	VPXORQ Z2, Z2, Z2 // A, even slots
	VPXORQ Z3, Z3, Z3 // A, odd slots
	XORQ   R12, R12

tdigit:
	MOVQ      (R8)(R12*8), R13
	MOVQ      8(R8)(R12*8), R14
	MOVQ      16(R8)(R12*8), DX
	VMOVDQU32 (R13)(R11*1), Z4
	VMOVDQU32 (R14)(R11*1), Z6
	VMOVDQU32 (DX)(R11*1), Z8
	VPSRLQ    $32, Z4, Z5
	VPSRLQ    $32, Z6, Z7
	VPSRLQ    $32, Z8, Z9
	VPMULUDQ  Z4, Z6, Z6
	VPMULUDQ  Z5, Z7, Z7
	VPMULUDQ  Z4, Z8, Z8
	VPMULUDQ  Z5, Z9, Z9
	VPADDQ    Z6, Z0, Z0
	VPADDQ    Z7, Z1, Z1
	VPADDQ    Z8, Z2, Z2
	VPADDQ    Z9, Z3, Z3
	ADDQ      $3, R12
	CMPQ      R12, R9
	JLT       tdigit

	TESTQ BX, BX
	JZ    tlong
	BARRETT32(Z0, Z10)
	BARRETT32(Z1, Z11)
	BARRETT32(Z2, Z12)
	BARRETT32(Z3, Z13)
	JMP   tstore

tlong:
	REDUCE64(Z0, Z10, Z11, Z12)
	REDUCE64(Z1, Z13, Z14, Z15)
	REDUCE64(Z2, Z16, Z17, Z18)
	REDUCE64(Z3, Z19, Z20, Z21)

tstore:
	VPSLLQ    $32, Z1, Z1
	VPORQ     Z1, Z0, Z0
	VPSLLQ    $32, Z3, Z3
	VPORQ     Z3, Z2, Z2
	VMOVDQU32 Z0, (SI)(R11*1)
	VMOVDQU32 Z2, (DI)(R11*1)
	ADDQ $64, R11
	DECQ CX
	JNZ  tloop

tdone:
	VZEROUPPER
	RET
