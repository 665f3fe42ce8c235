//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// MAC(P, D, DO, T, TO, E, O): loads 16 uint32 at P (+R11), multiplies the
// even entries by D's and the odd ones by DO's (the digit's odd entries
// shifted down) and adds the products to E and O. It first prefetches the
// row 256 bytes (4 iterations) ahead: in a blind rotation the rows stream
// from memory (a new 256 KiB key per step), and 16 concurrent streams are
// more than the hardware prefetcher follows well (measured: 21 -> 15.5 µs
// per call from memory, BenchmarkRNS2DotRowsMono2Stream; 256 beat 512,
// 768, 1024 and 2048). A prefetch past a row's end is harmless.
#define MAC(P, D, DO, T, TO, E, O) \
	PREFETCHT0 256(P)(R11*1) \
	VMOVDQU32 (P)(R11*1), T \
	VPSRLQ    $32, T, TO \
	VPMULUDQ  D, T, T \
	VPMULUDQ  DO, TO, TO \
	VPADDQ    T, E, E \
	VPADDQ    TO, O, O

// func rns2DotRowsMono2AVX512(ptrs *[5 * maxFusedDigits]*uint32, np int, n int, mono1, mono2, accB, accA *uint32, c *[8]uint64)
//
// One residue of RNS2.DotRowsMono2, 16 slots per iteration: ptrs holds
// (digit, rowB1, rowA1, rowB2, rowA2) per digit, np = 5·digits. As in
// rns2DotRowsAVX512, even and odd slots are multiplied in the low halves
// of 64-bit lanes; the eight sums (B1, A1, B2, A2; even, odd) stay in
// registers across all digits and are reduced once (BARRETT32: the caller
// checked digits·(Q-1)^2 < 2^(31+b)). Then acc + mono1·sum1 + mono2·sum2
// (< (Q-1) + 2(Q-1)^2, also checked) is reduced once per slot and stored
// back as even | odd<<32. n is a multiple of 16. c = Modulus32.vecConst,
// b-1, mu.
TEXT ·rns2DotRowsMono2AVX512(SB), NOSPLIT, $0-64
	MOVQ ptrs+0(FP), R8
	MOVQ np+8(FP), R9
	MOVQ n+16(FP), CX
	MOVQ mono1+24(FP), SI
	MOVQ mono2+32(FP), DI
	MOVQ accB+40(FP), DX
	MOVQ accA+48(FP), BX
	MOVQ c+56(FP), R10
	VPBROADCASTQ 0(R10), Z24  // Q
	VPBROADCASTQ 8(R10), Z25  // 2Q
	VPBROADCASTQ 40(R10), Z28 // 2^32-1
	VPBROADCASTQ 48(R10), Z22 // b-1
	VPBROADCASTQ 56(R10), Z23 // mu
	XORQ R11, R11             // byte offset into the uint32 slices
	SHRQ $4, CX
	JZ   mdone

mloop:
	VPXORQ Z0, Z0, Z0 // B1 even
	VPXORQ Z1, Z1, Z1 // B1 odd
	VPXORQ Z2, Z2, Z2 // A1 even
	VPXORQ Z3, Z3, Z3 // A1 odd
	VPXORQ Z4, Z4, Z4 // B2 even
	VPXORQ Z5, Z5, Z5 // B2 odd
	VPXORQ Z6, Z6, Z6 // A2 even
	VPXORQ Z7, Z7, Z7 // A2 odd
	XORQ   R12, R12

mdigit:
	MOVQ      (R8)(R12*8), R13
	VMOVDQU32 (R13)(R11*1), Z8
	VPSRLQ    $32, Z8, Z9
	MOVQ      8(R8)(R12*8), R13
	MOVQ      16(R8)(R12*8), R14
	MAC(R13, Z8, Z9, Z10, Z11, Z0, Z1)
	MAC(R14, Z8, Z9, Z12, Z13, Z2, Z3)
	MOVQ      24(R8)(R12*8), R13
	MOVQ      32(R8)(R12*8), R14
	MAC(R13, Z8, Z9, Z14, Z15, Z4, Z5)
	MAC(R14, Z8, Z9, Z16, Z17, Z6, Z7)
	ADDQ      $5, R12
	CMPQ      R12, R9
	JLT       mdigit

	BARRETT32(Z0, Z10)
	BARRETT32(Z1, Z11)
	BARRETT32(Z2, Z12)
	BARRETT32(Z3, Z13)
	BARRETT32(Z4, Z14)
	BARRETT32(Z5, Z15)
	BARRETT32(Z6, Z16)
	BARRETT32(Z7, Z17)

	// Monomials: even entries in the low halves (VPMULUDQ ignores the
	// high ones), odd entries shifted down.
	VMOVDQU32 (SI)(R11*1), Z18
	VPSRLQ    $32, Z18, Z19
	VMOVDQU32 (DI)(R11*1), Z20
	VPSRLQ    $32, Z20, Z21
	VPMULUDQ  Z18, Z0, Z0
	VPMULUDQ  Z19, Z1, Z1
	VPMULUDQ  Z18, Z2, Z2
	VPMULUDQ  Z19, Z3, Z3
	VPMULUDQ  Z20, Z4, Z4
	VPMULUDQ  Z21, Z5, Z5
	VPMULUDQ  Z20, Z6, Z6
	VPMULUDQ  Z21, Z7, Z7
	VPADDQ    Z4, Z0, Z0
	VPADDQ    Z5, Z1, Z1
	VPADDQ    Z6, Z2, Z2
	VPADDQ    Z7, Z3, Z3

	// Accumulators: even entries masked, odd ones shifted down.
	VMOVDQU32 (DX)(R11*1), Z26
	VPSRLQ    $32, Z26, Z27
	VPANDQ    Z28, Z26, Z26
	VMOVDQU32 (BX)(R11*1), Z29
	VPSRLQ    $32, Z29, Z30
	VPANDQ    Z28, Z29, Z29
	VPADDQ    Z26, Z0, Z0
	VPADDQ    Z27, Z1, Z1
	VPADDQ    Z29, Z2, Z2
	VPADDQ    Z30, Z3, Z3
	BARRETT32(Z0, Z10)
	BARRETT32(Z1, Z11)
	BARRETT32(Z2, Z12)
	BARRETT32(Z3, Z13)
	VPSLLQ    $32, Z1, Z1
	VPORQ     Z1, Z0, Z0
	VPSLLQ    $32, Z3, Z3
	VPORQ     Z3, Z2, Z2
	VMOVDQU32 Z0, (DX)(R11*1)
	VMOVDQU32 Z2, (BX)(R11*1)
	ADDQ $64, R11
	DECQ CX
	JNZ  mloop

mdone:
	VZEROUPPER
	RET
