//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// The kernel multiplies in the low halves of 64-bit lanes (VPMULUDQ reads
// the even dwords only): the even slots of a 16-slot block straight from
// the block, the odd ones shifted down by 32 bits, or read 4 bytes further
// on, where the even dwords are the odd slots. The digits (one load for
// four rows) and the monomials (memory operands) take the second form,
// the rows the first: the 4-byte-offset read crosses a cache line, and for
// the rows it measured no faster than the shift. That read ends 4 bytes
// past the block, so the last block of a residue shifts everything
// (the *S macros): nothing is read past a slice.
//
// Every row is prefetched 256 bytes (4 blocks) ahead: when the rows
// stream from memory (a new 256 KiB key per step without batching), 16
// concurrent streams are more than the hardware prefetcher follows well
// (measured: 21 -> 15.5 µs per call from memory,
// BenchmarkRNS2DotRowsMono2Stream; 256 beat 512, 768, 1024 and 2048; and
// the prefetches cost nothing measurable when the rows are in L2). A
// prefetch past a row's end is harmless.

// MUL1(P, D, DO, T, E, O): E, O = the first digit's products (no sum yet).
#define MUL1(P, D, DO, T, E, O) \
	PREFETCHT0 256(P)(R11*1) \
	VMOVDQU32  (P)(R11*1), T \
	VPSRLQ     $32, T, O \
	VPMULUDQ   D, T, E \
	VPMULUDQ   DO, O, O

// MAC(P, D, DO, T, TO, E, O): E, O += the next digit's products.
#define MAC(P, D, DO, T, TO, E, O) \
	PREFETCHT0 256(P)(R11*1) \
	VMOVDQU32  (P)(R11*1), T \
	VPSRLQ     $32, T, TO \
	VPMULUDQ   D, T, T \
	VPMULUDQ   DO, TO, TO \
	VPADDQ     T, E, E \
	VPADDQ     TO, O, O

// MUL1S, MACS: the same for the last block, the odd slots shifted down.
#define MUL1S(P, D, DO, T, E, O) \
	VMOVDQU32 (P)(R11*1), T \
	VPSRLQ    $32, T, O \
	VPMULUDQ  D, T, E \
	VPMULUDQ  DO, O, O

#define MACS(P, D, DO, T, TO, E, O) \
	VMOVDQU32 (P)(R11*1), T \
	VPSRLQ    $32, T, TO \
	VPMULUDQ  D, T, T \
	VPMULUDQ  DO, TO, TO \
	VPADDQ    T, E, E \
	VPADDQ    TO, O, O


#define LAZY8 \
	LAZYBAR(Z0, Z10) \
	LAZYBAR(Z1, Z11) \
	LAZYBAR(Z2, Z12) \
	LAZYBAR(Z3, Z13) \
	LAZYBAR(Z4, Z14) \
	LAZYBAR(Z5, Z15) \
	LAZYBAR(Z6, Z16) \
	LAZYBAR(Z7, Z17)

// REDC(X, T): X (< 2^32·Q) -> (X + m·Q)/2^32 in [0, 2Q), congruent to
// X·2^-32, m = X·(-Q^-1) mod 2^32 (Z25 = -Q^-1 mod 2^32): Montgomery's
// reduction, one op fewer than LAZYBAR. The final digit sums take it (the
// monomials come times 2^32, which cancels the 2^-32); the intermediate
// reductions of long digit lists keep LAZYBAR, which does not scale.
#define REDC(X, T) \
	VPMULUDQ Z25, X, T \
	VPMULUDQ Z24, T, T \
	VPADDQ   T, X, X \
	VPSRLQ   $32, X, X

#define REDC8 \
	REDC(Z0, Z10) \
	REDC(Z1, Z11) \
	REDC(Z2, Z12) \
	REDC(Z3, Z13) \
	REDC(Z4, Z14) \
	REDC(Z5, Z15) \
	REDC(Z6, Z16) \
	REDC(Z7, Z17)

// MONO: the sums times the monomials (memory operands, odd slots 4 bytes
// on), B1 + B2 and A1 + A2.
#define MONO \
	VPMULUDQ (SI)(R11*1), Z0, Z0 \
	VPMULUDQ 4(SI)(R11*1), Z1, Z1 \
	VPMULUDQ (SI)(R11*1), Z2, Z2 \
	VPMULUDQ 4(SI)(R11*1), Z3, Z3 \
	VPMULUDQ (DI)(R11*1), Z4, Z4 \
	VPMULUDQ 4(DI)(R11*1), Z5, Z5 \
	VPMULUDQ (DI)(R11*1), Z6, Z6 \
	VPMULUDQ 4(DI)(R11*1), Z7, Z7 \
	VPADDQ   Z4, Z0, Z0 \
	VPADDQ   Z5, Z1, Z1 \
	VPADDQ   Z6, Z2, Z2 \
	VPADDQ   Z7, Z3, Z3

#define MONOS \
	VMOVDQU32 (SI)(R11*1), Z18 \
	VPSRLQ    $32, Z18, Z19 \
	VMOVDQU32 (DI)(R11*1), Z20 \
	VPSRLQ    $32, Z20, Z21 \
	VPMULUDQ  Z18, Z0, Z0 \
	VPMULUDQ  Z19, Z1, Z1 \
	VPMULUDQ  Z18, Z2, Z2 \
	VPMULUDQ  Z19, Z3, Z3 \
	VPMULUDQ  Z20, Z4, Z4 \
	VPMULUDQ  Z21, Z5, Z5 \
	VPMULUDQ  Z20, Z6, Z6 \
	VPMULUDQ  Z21, Z7, Z7 \
	VPADDQ    Z4, Z0, Z0 \
	VPADDQ    Z5, Z1, Z1 \
	VPADDQ    Z6, Z2, Z2 \
	VPADDQ    Z7, Z3, Z3

// ACCSTORE: + the accumulators (even slots masked, odd ones shifted down),
// reduced once, even | odd<<32 (one VPSHUFD merged under K2 = odd dwords)
// stored back.
#define ACCSTORE \
	VMOVDQU32 (DX)(R11*1), Z26 \
	VPSRLQ    $32, Z26, Z27 \
	VPANDQ    Z28, Z26, Z26 \
	VMOVDQU32 (BX)(R11*1), Z29 \
	VPSRLQ    $32, Z29, Z30 \
	VPANDQ    Z28, Z29, Z29 \
	VPADDQ    Z26, Z0, Z0 \
	VPADDQ    Z27, Z1, Z1 \
	VPADDQ    Z29, Z2, Z2 \
	VPADDQ    Z30, Z3, Z3 \
	BARRETT1(Z0, Z10) \
	BARRETT1(Z1, Z11) \
	BARRETT1(Z2, Z12) \
	BARRETT1(Z3, Z13) \
	VPSHUFD   $0xb1, Z1, K2, Z0 \
	VPSHUFD   $0xb1, Z3, K2, Z2 \
	VMOVDQU32 Z0, (DX)(R11*1) \
	VMOVDQU32 Z2, (BX)(R11*1)

// func rns2DotRowsMono2AVX512(ptrs *[5 * maxFusedDigits]*uint32, np int, n int, mono1, mono2, accB, accA *uint32, c *[11]uint64)
//
// One residue of RNS2.DotRowsMono2, 16 slots per iteration: ptrs holds
// (digit, rowB1, rowA1, rowB2, rowA2) per digit, np = 5·digits. Even and
// odd slots are multiplied in the low halves of 64-bit lanes; the eight
// sums (B1, A1, B2, A2; even, odd) stay in registers across all digits
// (the first digit's products initialise them) and are reduced to [0, 3Q)
// (LAZYBAR) after each group of c[9]/5 digits (R15: the next group's
// pointer index), and at the end to [0, 2Q) times 2^-32 (REDC). Then
// acc + mono1·sum1 + mono2·sum2 (the monomials times 2^32) is reduced once
// per slot (BARRETT1) and stored back; dotRowsMono2Group checked the bounds
// for digits below 4Q. n is a multiple of 16. c = Modulus32.vecConst, b-1,
// mu, b-2, 5·group, -Q^-1 mod 2^32.
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
	VPBROADCASTQ 80(R10), Z25 // -Q^-1 mod 2^32
	VPBROADCASTQ 40(R10), Z28 // 2^32-1
	VPBROADCASTQ 48(R10), Z22 // b-1
	VPBROADCASTQ 56(R10), Z23 // mu
	VPBROADCASTQ 64(R10), Z31 // b-2
	MOVL  $0xaaaa, AX
	KMOVW AX, K2
	XORQ  R11, R11            // byte offset into the uint32 slices
	SHRQ  $4, CX
	JZ    mdone
	DECQ  CX                  // blocks before the last
	JZ    mlast

mloop:
	MOVQ      72(R10), R15        // the first intermediate reduction's digit
	MOVQ      (R8), R13
	VMOVDQU32 (R13)(R11*1), Z8
	VMOVDQU32 4(R13)(R11*1), Z9
	MOVQ      8(R8), R13
	MOVQ      16(R8), R14
	MUL1(R13, Z8, Z9, Z10, Z0, Z1)
	MUL1(R14, Z8, Z9, Z12, Z2, Z3)
	MOVQ      24(R8), R13
	MOVQ      32(R8), R14
	MUL1(R13, Z8, Z9, Z14, Z4, Z5)
	MUL1(R14, Z8, Z9, Z16, Z6, Z7)
	MOVQ      $5, R12
	CMPQ      R12, R9
	JGE       mreduce

mdigit:
	CMPQ      R12, R15
	JLT       mmac
	LAZY8                         // a group of digits summed: back to [0, 3Q)
	ADDQ      72(R10), R15

mmac:
	MOVQ      (R8)(R12*8), R13
	VMOVDQU32 (R13)(R11*1), Z8
	VMOVDQU32 4(R13)(R11*1), Z9
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

mreduce:
	REDC8
	MONO
	ACCSTORE
	ADDQ $64, R11
	DECQ CX
	JNZ  mloop

mlast:
	MOVQ      72(R10), R15
	MOVQ      (R8), R13
	VMOVDQU32 (R13)(R11*1), Z8
	VPSRLQ    $32, Z8, Z9
	MOVQ      8(R8), R13
	MOVQ      16(R8), R14
	MUL1S(R13, Z8, Z9, Z10, Z0, Z1)
	MUL1S(R14, Z8, Z9, Z12, Z2, Z3)
	MOVQ      24(R8), R13
	MOVQ      32(R8), R14
	MUL1S(R13, Z8, Z9, Z14, Z4, Z5)
	MUL1S(R14, Z8, Z9, Z16, Z6, Z7)
	MOVQ      $5, R12
	CMPQ      R12, R9
	JGE       lreduce

ldigit:
	CMPQ      R12, R15
	JLT       lmac
	LAZY8
	ADDQ      72(R10), R15

lmac:
	MOVQ      (R8)(R12*8), R13
	VMOVDQU32 (R13)(R11*1), Z8
	VPSRLQ    $32, Z8, Z9
	MOVQ      8(R8)(R12*8), R13
	MOVQ      16(R8)(R12*8), R14
	MACS(R13, Z8, Z9, Z10, Z11, Z0, Z1)
	MACS(R14, Z8, Z9, Z12, Z13, Z2, Z3)
	MOVQ      24(R8)(R12*8), R13
	MOVQ      32(R8)(R12*8), R14
	MACS(R13, Z8, Z9, Z14, Z15, Z4, Z5)
	MACS(R14, Z8, Z9, Z16, Z17, Z6, Z7)
	ADDQ      $5, R12
	CMPQ      R12, R9
	JLT       ldigit

lreduce:
	REDC8
	MONOS
	ACCSTORE

mdone:
	VZEROUPPER
	RET
