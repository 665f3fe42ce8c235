//go:build amd64 && !purego

#include "textflag.h"

#include "ntt32_amd64.h"

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
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), R13
	MOVQ m+16(FP), CX
	MOVQ t+24(FP), DX
	MOVQ psi+32(FP), R8
	MOVQ psiS+40(FP), R9
	MOVL q+48(FP), AX
	SETUP_Q
	LEAQ (R8)(CX*4), R8
	LEAQ (R9)(CX*4), R9
	MOVQ DX, R10
	SHLQ $2, R10
	XORQ R11, R11

ngroup:
	VPBROADCASTD (R8)(R11*4), Z28
	VPBROADCASTD (R9)(R11*4), Z29
	LEAQ (DI)(R10*1), SI
	LEAQ (R13)(R10*1), R14
	MOVQ DX, R12

ninner:
	VMOVDQU32 (R13), Z0
	VMOVDQU32 (R14), Z1
	SHOUP_B(Z1, Z28, Z29, Z2, Z3, Z4)
	CT_NR(Z0, Z1, Z2)
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R13
	ADDQ $64, R14
	SUBQ $16, R12
	JNZ  ninner
	ADDQ R10, DI
	ADDQ R10, R13
	INCQ R11
	CMPQ R11, CX
	JNE  ngroup
	VZEROUPPER
	RET

