// Body of the one-stage forward kernels fwdStage32AVX512 and (with NR
// defined) fwdStageNR32AVX512, included after their TEXT lines in
// ntt32_amd64.s: one Cooley–Tukey stage with m groups at distance t,
// Harvey's butterfly (CT) or, for noXRed primes, the one without the
// reduction of X (CT_NR). Labels are local to each TEXT block.
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

fgroup:
	VPBROADCASTD (R8)(R11*4), Z28
	VPBROADCASTD (R9)(R11*4), Z29
	LEAQ (DI)(R10*1), SI
	LEAQ (R13)(R10*1), R14
	MOVQ DX, R12

finner:
	VMOVDQU32 (R13), Z0
	VMOVDQU32 (R14), Z1
	SHOUP_B(Z1, Z28, Z29, Z2, Z3, Z4)
#ifdef NR
	CT_NR(Z0, Z1, Z2)
#else
	CT(Z0, Z1, Z2, Z5)
#endif
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R13
	ADDQ $64, R14
	SUBQ $16, R12
	JNZ  finner
	ADDQ R10, DI
	ADDQ R10, R13
	INCQ R11
	CMPQ R11, CX
	JNE  fgroup
	VZEROUPPER
	RET
