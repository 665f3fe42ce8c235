//go:build amd64 && !purego

#include "textflag.h"

#include "ntt32_amd64.h"

// func fwdStage32AVX512(dst, src *uint32, m, t int, psi, psiS *uint32, q uint32)
// One Cooley–Tukey stage with m groups at distance t (t a multiple of 16),
// reading src and writing dst (which may be the same array).
TEXT ·fwdStage32AVX512(SB), NOSPLIT, $0-52
#include "ntt32_stage_amd64.h"

// The noXRed forward kernels (NTT32.noXRed: (2·log2(N)+4)·Q <= 2^32, e.g.
// the 27-bit FHEW and CBS primes up to N = 2048) for fully reduced outputs:
// the Cooley–Tukey butterflies skip Harvey's reduction of X (CT_NR, two of
// the butterfly's 12 ops) and the last stage reduces X by Barrett instead
// (fwdTailNR32AVX512, in ntt32_amd64.s).
// A fully reduced output is unique, so they agree bit for bit with the
// Harvey kernels. The lazy variants keep the Harvey kernels, whose [0, 2Q)
// representatives callers see.

// func fwdStageNR32AVX512(dst, src *uint32, m, t int, psi, psiS *uint32, q uint32)
// fwdStage32AVX512 with CT_NR butterflies.
TEXT ·fwdStageNR32AVX512(SB), NOSPLIT, $0-52
#define NR
#include "ntt32_stage_amd64.h"
#undef NR

// func invStage32AVX512(a *uint32, m, t int, psi, psiS *uint32, q uint32)
// One Gentleman–Sande stage with m groups at distance t (a multiple of 16).
TEXT ·invStage32AVX512(SB), NOSPLIT, $0-44
	MOVQ a+0(FP), DI
	MOVQ m+8(FP), CX
	MOVQ t+16(FP), DX
	MOVQ psi+24(FP), R8
	MOVQ psiS+32(FP), R9
	MOVL q+40(FP), AX
	SETUP_Q
	LEAQ (R8)(CX*4), R8
	LEAQ (R9)(CX*4), R9
	MOVQ DX, R10
	SHLQ $2, R10
	XORQ R11, R11

igroup:
	VPBROADCASTD (R8)(R11*4), Z28
	VPBROADCASTD (R9)(R11*4), Z29
	LEAQ (DI)(R10*1), SI
	MOVQ DX, R12

iinner:
	VMOVDQU32 (DI), Z0
	VMOVDQU32 (SI), Z1
	GS_PRE(Z0, Z1, Z2, Z5)
	SHOUP_B(Z2, Z28, Z29, Z1, Z3, Z4)
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, R12
	JNZ  iinner
	ADDQ R10, DI
	INCQ R11
	CMPQ R11, CX
	JNE  igroup
	VZEROUPPER
	RET

// func invLast32AVX512(a *uint32, n int, c *[4]uint32, q uint32, full bool)
// The last Gentleman–Sande stage (m = 1, t = n/2) with N^-1 folded in:
// c = {N^-1, its Shoup companion, N^-1·ψ_rev^-1[1], its companion}.
TEXT ·invLast32AVX512(SB), NOSPLIT, $0-29
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), DX
	MOVQ c+16(FP), R8
	MOVL q+24(FP), AX
	SETUP_Q
	VPBROADCASTD 0(R8), Z24
	VPBROADCASTD 4(R8), Z25
	VPBROADCASTD 8(R8), Z26
	VPBROADCASTD 12(R8), Z27
	// Z29 = Q if full, else all ones (then min(x, x - Z29) = x).
	VPTERNLOGD $0xff, Z29, Z29, Z29
	MOVBLZX full+28(FP), AX
	TESTL AX, AX
	JZ   lnofull
	VMOVDQA32 Z30, Z29

lnofull:
	SHRQ $1, DX
	MOVQ DX, R10
	SHLQ $2, R10
	LEAQ (DI)(R10*1), SI

linner:
	VMOVDQU32 (DI), Z0
	VMOVDQU32 (SI), Z1
	VPSUBD  Z1, Z0, Z2
	VPADDD  Z31, Z2, Z2
	VPADDD  Z1, Z0, Z0
	SHOUP_B(Z0, Z24, Z25, Z6, Z3, Z4)
	SHOUP_B(Z2, Z26, Z27, Z7, Z3, Z4)
	VPSUBD  Z29, Z6, Z3
	VPMINUD Z3, Z6, Z6
	VPSUBD  Z29, Z7, Z3
	VPMINUD Z3, Z7, Z7
	VMOVDQU32 Z6, (DI)
	VMOVDQU32 Z7, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, DX
	JNZ  linner
	VZEROUPPER
	RET

// func invLastRaw32AVX512(a *uint32, n int, c *[4]uint32, q uint32)
// The last Gentleman–Sande stage without N^-1 (NTT32.InverseUnscaled):
// (X, Y) = (X+Y, (X-Y+2Q)·ψ_rev^-1[1]), c[2], c[3] = ψ_rev^-1[1] and its
// companion; one Shoup product per pair instead of two. Outputs fully
// reduced (X+Y from [0, 4Q)).
TEXT ·invLastRaw32AVX512(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), DX
	MOVQ c+16(FP), R8
	MOVL q+24(FP), AX
	SETUP_Q
	VPBROADCASTD 8(R8), Z26
	VPBROADCASTD 12(R8), Z27
	SHRQ $1, DX
	MOVQ DX, R10
	SHLQ $2, R10
	LEAQ (DI)(R10*1), SI

rinner:
	VMOVDQU32 (DI), Z0
	VMOVDQU32 (SI), Z1
	VPSUBD  Z1, Z0, Z2
	VPADDD  Z31, Z2, Z2
	VPADDD  Z1, Z0, Z0
	SHOUP_B(Z2, Z26, Z27, Z7, Z3, Z4)
	REDUCE2Q(Z0, Z5)
	VPSUBD  Z30, Z7, Z3
	VPMINUD Z3, Z7, Z7
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z7, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, DX
	JNZ  rinner
	VZEROUPPER
	RET

// Tail/head index table layout (see avxTables in avx_layout.go), in units
// of 64-byte vectors: 0-9 forward permutations (nat->L3, L3->L2, L2->L1,
// L1->L0, L0->nat, two vectors each), 10-19 inverse permutations (nat->L0,
// L0->L1, L1->L2, L2->L3, L3->nat).

// func fwdTail32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)
// The last seven Cooley–Tukey stages (t = 64 ... 1) on blocks of 128
// entries, reading src and writing dst (which may be the same array); the
// outputs in [0, 2Q), or [0, Q) if c = Q (c = all ones: lazy). See
// ntt32_fwd_amd64.h.
TEXT ·fwdTail32AVX512(SB), NOSPLIT, $0-64
#include "ntt32_fwd_amd64.h"

// func fwdTailNR32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)
// fwdTail32AVX512 without Harvey's reductions of X (noXRed; c =
// floor(2^32/Q)), outputs fully reduced.
TEXT ·fwdTailNR32AVX512(SB), NOSPLIT, $0-64
#define NR
#include "ntt32_fwd_amd64.h"
#undef NR

// func fwdTailNR4Q32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)
// fwdTailNR32AVX512 without the final reduction from [0, 4Q) to [0, Q)
// (NTT32.Forward4Q: 32 of the block's ops fewer), for consumers that take
// digits below 4Q (RNS2.DotRowsMono2).
TEXT ·fwdTailNR4Q32AVX512(SB), NOSPLIT, $0-64
#define NR
#define NR4Q
#include "ntt32_fwd_amd64.h"
#undef NR4Q
#undef NR
