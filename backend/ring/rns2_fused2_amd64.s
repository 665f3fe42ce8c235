//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// The pair kernel of RNS2.DotRowsMono2Pair: rns2DotRowsMono2AVX512
// (rns2_fused_amd64.s, whose comments explain the lane layout, the
// 4-byte-offset reads and the reductions) for two accumulators at once,
// each row block loaded, shifted and prefetched once for both digit sets.
// Registers: Z0-Z7 the first accumulator's eight sums, Z8-Z15 the
// second's, Z16/Z17 and Z18/Z19 the two digits (even, odd), Z20/Z21 the
// row block (even, odd), Z25-Z27, Z29, Z30 temporaries; Z22 = b-1,
// Z23 = mu, Z24 = Q, Z28 = 2^32-1, Z31 = b-2.

// MUL2(P, E0, O0, E1, O1): the first digit pair's products.
#define MUL2(P, E0, O0, E1, O1) \
	PREFETCHT0 256(P)(R11*1) \
	VMOVDQU32  (P)(R11*1), Z20 \
	VPSRLQ     $32, Z20, Z21 \
	VPMULUDQ   Z16, Z20, E0 \
	VPMULUDQ   Z17, Z21, O0 \
	VPMULUDQ   Z18, Z20, E1 \
	VPMULUDQ   Z19, Z21, O1

// MAC2(P, E0, O0, E1, O1): += the next digit pair's products.
#define MAC2(P, E0, O0, E1, O1) \
	PREFETCHT0 256(P)(R11*1) \
	VMOVDQU32  (P)(R11*1), Z20 \
	VPSRLQ     $32, Z20, Z21 \
	VPMULUDQ   Z16, Z20, Z25 \
	VPMULUDQ   Z17, Z21, Z26 \
	VPMULUDQ   Z18, Z20, Z27 \
	VPMULUDQ   Z19, Z21, Z29 \
	VPADDQ     Z25, E0, E0 \
	VPADDQ     Z26, O0, O0 \
	VPADDQ     Z27, E1, E1 \
	VPADDQ     Z29, O1, O1

// DIGITS: the digit pair at ptrs[R12], ptrs[R12+1], odd slots read 4
// bytes on; DIGITSS: the same, odd slots shifted (last block). ROWS1,
// ROWS: the four rows at ptrs[R12+2..R12+5] times the pair.
#define DIGITS \
	MOVQ      (R8)(R12*8), R13 \
	MOVQ      8(R8)(R12*8), R14 \
	VMOVDQU32 (R13)(R11*1), Z16 \
	VMOVDQU32 4(R13)(R11*1), Z17 \
	VMOVDQU32 (R14)(R11*1), Z18 \
	VMOVDQU32 4(R14)(R11*1), Z19

#define DIGITSS \
	MOVQ      (R8)(R12*8), R13 \
	MOVQ      8(R8)(R12*8), R14 \
	VMOVDQU32 (R13)(R11*1), Z16 \
	VPSRLQ    $32, Z16, Z17 \
	VMOVDQU32 (R14)(R11*1), Z18 \
	VPSRLQ    $32, Z18, Z19

#define ROWS1 \
	MOVQ 16(R8)(R12*8), R13 \
	MUL2(R13, Z0, Z1, Z8, Z9) \
	MOVQ 24(R8)(R12*8), R13 \
	MUL2(R13, Z2, Z3, Z10, Z11) \
	MOVQ 32(R8)(R12*8), R13 \
	MUL2(R13, Z4, Z5, Z12, Z13) \
	MOVQ 40(R8)(R12*8), R13 \
	MUL2(R13, Z6, Z7, Z14, Z15)

#define ROWS \
	MOVQ 16(R8)(R12*8), R13 \
	MAC2(R13, Z0, Z1, Z8, Z9) \
	MOVQ 24(R8)(R12*8), R13 \
	MAC2(R13, Z2, Z3, Z10, Z11) \
	MOVQ 32(R8)(R12*8), R13 \
	MAC2(R13, Z4, Z5, Z12, Z13) \
	MOVQ 40(R8)(R12*8), R13 \
	MAC2(R13, Z6, Z7, Z14, Z15)

// REDC(X, T): X -> X·2^-32 in [0, 2Q), as in rns2_fused_amd64.s, -Q^-1
// mod 2^32 broadcast from c[10].
#define REDC(X, T) \
	VPMULUDQ.BCST 80(R10), X, T \
	VPMULUDQ      Z24, T, T \
	VPADDQ        T, X, X \
	VPSRLQ        $32, X, X

#define REDC8(S0, S1, S2, S3, S4, S5, S6, S7) \
	REDC(S0, Z16) \
	REDC(S1, Z17) \
	REDC(S2, Z18) \
	REDC(S3, Z19) \
	REDC(S4, Z20) \
	REDC(S5, Z21) \
	REDC(S6, Z25) \
	REDC(S7, Z26)

// REDC8, MONOMUL (odd slots read 4 bytes on) or MONOMULS (shifted, last
// block), ACCSTORE: one accumulator's sums reduced, times the monomials at
// M1, M2, B1 + B2 and A1 + A2, plus the accumulators at AB, AA, reduced and
// stored; FINISH: both accumulators.
#define LAZY8(S0, S1, S2, S3, S4, S5, S6, S7) \
	LAZYBAR(S0, Z16) \
	LAZYBAR(S1, Z17) \
	LAZYBAR(S2, Z18) \
	LAZYBAR(S3, Z19) \
	LAZYBAR(S4, Z20) \
	LAZYBAR(S5, Z21) \
	LAZYBAR(S6, Z25) \
	LAZYBAR(S7, Z26)

#define MONOMUL(M1, M2, S0, S1, S2, S3, S4, S5, S6, S7) \
	VPMULUDQ (M1)(R11*1), S0, S0 \
	VPMULUDQ 4(M1)(R11*1), S1, S1 \
	VPMULUDQ (M1)(R11*1), S2, S2 \
	VPMULUDQ 4(M1)(R11*1), S3, S3 \
	VPMULUDQ (M2)(R11*1), S4, S4 \
	VPMULUDQ 4(M2)(R11*1), S5, S5 \
	VPMULUDQ (M2)(R11*1), S6, S6 \
	VPMULUDQ 4(M2)(R11*1), S7, S7

#define MONOMULS(M1, M2, S0, S1, S2, S3, S4, S5, S6, S7) \
	VMOVDQU32 (M1)(R11*1), Z16 \
	VPSRLQ    $32, Z16, Z17 \
	VMOVDQU32 (M2)(R11*1), Z18 \
	VPSRLQ    $32, Z18, Z19 \
	VPMULUDQ  Z16, S0, S0 \
	VPMULUDQ  Z17, S1, S1 \
	VPMULUDQ  Z16, S2, S2 \
	VPMULUDQ  Z17, S3, S3 \
	VPMULUDQ  Z18, S4, S4 \
	VPMULUDQ  Z19, S5, S5 \
	VPMULUDQ  Z18, S6, S6 \
	VPMULUDQ  Z19, S7, S7

#define ACCSTORE(AB, AA, S0, S1, S2, S3, S4, S5, S6, S7) \
	VPADDQ    S4, S0, S0 \
	VPADDQ    S5, S1, S1 \
	VPADDQ    S6, S2, S2 \
	VPADDQ    S7, S3, S3 \
	VMOVDQU32 (AB)(R11*1), Z26 \
	VPSRLQ    $32, Z26, Z27 \
	VPANDQ    Z28, Z26, Z26 \
	VMOVDQU32 (AA)(R11*1), Z29 \
	VPSRLQ    $32, Z29, Z30 \
	VPANDQ    Z28, Z29, Z29 \
	VPADDQ    Z26, S0, S0 \
	VPADDQ    Z27, S1, S1 \
	VPADDQ    Z29, S2, S2 \
	VPADDQ    Z30, S3, S3 \
	BARRETT1(S0, Z16) \
	BARRETT1(S1, Z17) \
	BARRETT1(S2, Z18) \
	BARRETT1(S3, Z19) \
	VPSHUFD   $0xb1, S1, K2, S0 \
	VPSHUFD   $0xb1, S3, K2, S2 \
	VMOVDQU32 S0, (AB)(R11*1) \
	VMOVDQU32 S2, (AA)(R11*1)

// MIDRED: both accumulators' sums back to [0, 3Q) after a group of digits
// (dotRowsMono2Group: none for the CBS's 4 digits).
#define MIDRED \
	LAZY8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	LAZY8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// FINISH(MUL): both accumulators' sums reduced (REDC8), times their
// monomials by MUL (MONOMUL, or MONOMULS for the last block), plus the
// accumulators, stored (ACCSTORE).
#define FINISH(MUL) \
	MOVQ 0(SI), R13 \
	MOVQ 8(SI), R14 \
	REDC8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	MUL(R13, R14, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	MOVQ 0(DI), R13 \
	MOVQ 8(DI), R14 \
	ACCSTORE(R13, R14, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	MOVQ 16(SI), R13 \
	MOVQ 24(SI), R14 \
	REDC8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15) \
	MUL(R13, R14, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15) \
	MOVQ 16(DI), R13 \
	MOVQ 24(DI), R14 \
	ACCSTORE(R13, R14, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// func rns2DotRowsMono2x2AVX512(ptrs *[6 * maxFusedDigits]*uint32, np int, n int, monos, accs *[4]*uint32, c *[11]uint64)
//
// One residue of RNS2.DotRowsMono2Pair, 16 slots per iteration: ptrs
// holds (digit0, digit1, rowB1, rowA1, rowB2, rowA2) per digit,
// np = 6·digits; monos = (mono1, mono2) of the first accumulator, then of
// the second; accs = (accB, accA) of the first, then of the second. n is
// a multiple of 16; c as for rns2DotRowsMono2AVX512 but c[9] = 6·group.
TEXT ·rns2DotRowsMono2x2AVX512(SB), NOSPLIT, $0-48
	MOVQ ptrs+0(FP), R8
	MOVQ np+8(FP), R9
	MOVQ n+16(FP), CX
	MOVQ monos+24(FP), SI
	MOVQ accs+32(FP), DI
	MOVQ c+40(FP), R10
	VPBROADCASTQ 0(R10), Z24  // Q
	VPBROADCASTQ 40(R10), Z28 // 2^32-1
	VPBROADCASTQ 48(R10), Z22 // b-1
	VPBROADCASTQ 56(R10), Z23 // mu
	VPBROADCASTQ 64(R10), Z31 // b-2
	MOVL  $0xaaaa, AX
	KMOVW AX, K2
	XORQ  R11, R11
	SHRQ  $4, CX
	JZ    pdone
	DECQ  CX
	JZ    plast

ploop:
	MOVQ 72(R10), R15 // the first intermediate reduction's digit
	XORQ R12, R12
	DIGITS
	ROWS1
	MOVQ $6, R12
	CMPQ R12, R9
	JGE  preduce

pdigit:
	CMPQ R12, R15
	JLT  pmac
	MIDRED
	ADDQ 72(R10), R15

pmac:
	DIGITS
	ROWS
	ADDQ $6, R12
	CMPQ R12, R9
	JLT  pdigit

preduce:
	FINISH(MONOMUL)
	ADDQ $64, R11
	DECQ CX
	JNZ  ploop

plast:
	MOVQ 72(R10), R15
	XORQ R12, R12
	DIGITSS
	ROWS1
	MOVQ $6, R12
	CMPQ R12, R9
	JGE  lreduce

ldigit:
	CMPQ R12, R15
	JLT  lmac
	MIDRED
	ADDQ 72(R10), R15

lmac:
	DIGITSS
	ROWS
	ADDQ $6, R12
	CMPQ R12, R9
	JLT  ldigit

lreduce:
	FINISH(MONOMULS)

pdone:
	VZEROUPPER
	RET
