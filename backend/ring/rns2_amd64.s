//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// func rns2DecomposeAVX512(in0, in1 *uint32, n int, outs *[2 * MaxDigits]*uint32, dg int, c *[12]uint64)
//
// RNS2.decompose on 8 coefficients per iteration in int64 lanes (AVX-512F
// only); n is a multiple of 8, outs[2j+i] is digit j's residue-i slice.
// c = {sub, q0InvShoup, q0Inv, Q1, Q0, (Q-1)/2, Q, round, drop, B/2, B-1,
// logB}. Needs B/2 <= min(Q0, Q1), so a digit's residue is d or d + Qi.
// The steps are those of the Go loop, lane-wise, so the results agree bit
// for bit.
TEXT ·rns2DecomposeAVX512(SB), NOSPLIT, $0-48
	MOVQ in0+0(FP), SI
	MOVQ in1+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ outs+24(FP), R8
	MOVQ dg+32(FP), R9
	MOVQ c+40(FP), R10
	VPBROADCASTQ 0(R10), Z16  // sub
	VPBROADCASTQ 8(R10), Z17  // q0InvShoup
	VPBROADCASTQ 16(R10), Z18 // q0Inv
	VPBROADCASTQ 24(R10), Z19 // Q1
	VPBROADCASTQ 32(R10), Z20 // Q0
	VPBROADCASTQ 40(R10), Z21 // (Q-1)/2
	VPBROADCASTQ 48(R10), Z22 // Q
	VPBROADCASTQ 56(R10), Z23 // round
	VPBROADCASTQ 64(R10), Z24 // drop
	VPBROADCASTQ 72(R10), Z25 // B/2
	VPBROADCASTQ 80(R10), Z26 // B-1
	VPBROADCASTQ 88(R10), Z27 // logB
	XORQ R11, R11             // byte offset into the uint32 slices
	SHRQ $3, CX
	JZ   rdone

rloop:
	VPMOVZXDQ (SI)(R11*1), Z0 // r0
	VPMOVZXDQ (DI)(R11*1), Z1 // r1
	// Garner: u = r1 + sub - r0 < 2^32; t = u·q0Inv mod Q1 (Shoup, exact
	// in 64-bit lanes, so equal to the wrapping uint32 arithmetic in Go).
	VPADDQ   Z16, Z1, Z2
	VPSUBQ   Z0, Z2, Z2
	VPMULUDQ Z17, Z2, Z3
	VPSRLQ   $32, Z3, Z3
	VPMULUDQ Z18, Z2, Z4
	VPMULUDQ Z19, Z3, Z3
	VPSUBQ   Z3, Z4, Z4
	VPSUBQ   Z19, Z4, Z3
	VPMINUQ  Z3, Z4, Z4
	// x = r0 + Q0·t in [0, Q).
	VPMULUDQ Z20, Z4, Z4
	VPADDQ   Z0, Z4, Z4
	// Centre: x -= Q & ((halfQ - x) >> 63); round off drop bits.
	VPSUBQ   Z4, Z21, Z5
	VPSRAQ   $63, Z5, Z5
	VPANDQ   Z22, Z5, Z5
	VPSUBQ   Z5, Z4, Z4
	VPADDQ   Z23, Z4, Z4
	VPSRAVQ  Z24, Z4, Z4
	XORQ R12, R12

rdigit:
	// d = ((v + B/2) & (B-1)) - B/2; v = (v - d) >> logB.
	VPADDQ  Z25, Z4, Z5
	VPANDQ  Z26, Z5, Z5
	VPSUBQ  Z25, Z5, Z5
	VPSUBQ  Z5, Z4, Z4
	VPSRAVQ Z27, Z4, Z4
	// Residues: d + (Qi & (d >> 63)).
	VPSRAQ  $63, Z5, Z6
	VPANDQ  Z20, Z6, Z7
	VPADDQ  Z5, Z7, Z7
	VPANDQ  Z19, Z6, Z8
	VPADDQ  Z5, Z8, Z8
	MOVQ    (R8)(R12*8), R13
	MOVQ    8(R8)(R12*8), R14
	VPMOVQD Z7, (R13)(R11*1)
	VPMOVQD Z8, (R14)(R11*1)
	ADDQ    $2, R12
	CMPQ    R12, R9
	JLT     rdigit

	ADDQ $32, R11
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
