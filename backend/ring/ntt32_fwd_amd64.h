// Body of the forward block kernels (ntt32_amd64.s includes it three times:
// with NR defined for fwdTailNR32AVX512, with NR and NR4Q for
// fwdTailNR4Q32AVX512, without either for fwdTail32AVX512). Frame
// (dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32).
//
// One iteration transforms a block of 128 entries held in Z0-Z7 (natural
// order, Z0 = entries 0-15, ..., Z7 = 112-127): the stages t = 64, 32, 16
// pair whole registers (one twiddle each, taken by embedded broadcast);
// then the four chunks of 32 entries (Z0/Z1, ..., Z6/Z7) run the stages
// t = 8, 4, 2, 1 permuted between the layouts L3..L0 (avx_layout.go) as in
// the two-register version, four independent chains for instruction-level
// parallelism. Without NR every butterfly first brings X to [0, 2Q) (the
// Harvey step of the radix-2 reference) and Z29 = c is the final constant
// (Q to reduce fully, all ones for lazy); with NR the X reductions are
// skipped (noXRed), Z29 = c = floor(2^32/Q), and the last stage's X is
// reduced by Barrett.
//
// The stages t = 8, 4, 2 read their per-lane twiddles from tw
// (avxTailTwiddles: per stage and chunk 16 twiddles in lane order, then
// their companions), so no expansion shuffles are needed.
//
// Registers: DI dst, SI src, CX blocks left, R9 = psiS - psi (bytes, so
// that (P)(R9*1) is the Shoup companion of the twiddle at P), R10 tab,
// AX/BX/DX/R12-R15 the twiddle pointers of the stages t = 64 ... 1 for the
// current block; Z8-Z25 temporaries.
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ psi+24(FP), R8
	MOVQ psiS+32(FP), R9
	MOVQ tab+40(FP), R10
	MOVQ tw+48(FP), R11
	MOVL q+56(FP), AX
	SETUP_Q
	MOVL c+60(FP), AX
	VPBROADCASTD AX, Z29
	SUBQ R8, R9
	// Stage t uses psi[N/(2t) + group]: byte offset 2N/t, i.e. N/32 for
	// t = 64, doubling down to 2N for t = 1.
	MOVQ CX, R13
	SHRQ $5, R13
	LEAQ (R8)(R13*1), AX  // t = 64
	SHLQ $1, R13
	LEAQ (R8)(R13*1), BX  // t = 32
	SHLQ $1, R13
	LEAQ (R8)(R13*1), DX  // t = 16
	SHLQ $4, R13
	LEAQ (R8)(R13*1), R15 // t = 1
	// t = 8, 4, 2: the expanded tables tw (avxTailTwiddles), 4N bytes each.
	MOVQ CX, R8
	SHLQ $2, R8
	MOVQ R11, R12
	LEAQ (R11)(R8*1), R13
	LEAQ (R13)(R8*1), R14
	SHRQ $7, CX

fbloop:
	VMOVDQU32 0(SI), Z0
	VMOVDQU32 64(SI), Z1
	VMOVDQU32 128(SI), Z2
	VMOVDQU32 192(SI), Z3
	VMOVDQU32 256(SI), Z4
	VMOVDQU32 320(SI), Z5
	VMOVDQU32 384(SI), Z6
	VMOVDQU32 448(SI), Z7

	// t = 64: (Z0..Z3, Z4..Z7), twiddle psi[N/128 + block].
#ifndef NR
	XRED4(Z0, Z1, Z2, Z3, Z8, Z9)
#endif
	SHOUP_BC(Z4, 0(AX), 0(AX)(R9*1), Z10, Z11, Z12)
	CT_NR(Z0, Z4, Z10)
	SHOUP_BC(Z5, 0(AX), 0(AX)(R9*1), Z13, Z14, Z15)
	CT_NR(Z1, Z5, Z13)
	SHOUP_BC(Z6, 0(AX), 0(AX)(R9*1), Z16, Z17, Z18)
	CT_NR(Z2, Z6, Z16)
	SHOUP_BC(Z7, 0(AX), 0(AX)(R9*1), Z19, Z20, Z21)
	CT_NR(Z3, Z7, Z19)

	// t = 32: (Z0, Z1; Z2, Z3) and (Z4, Z5; Z6, Z7).
#ifndef NR
	XRED4(Z0, Z1, Z4, Z5, Z8, Z9)
#endif
	SHOUP_BC(Z2, 0(BX), 0(BX)(R9*1), Z10, Z11, Z12)
	CT_NR(Z0, Z2, Z10)
	SHOUP_BC(Z3, 0(BX), 0(BX)(R9*1), Z13, Z14, Z15)
	CT_NR(Z1, Z3, Z13)
	SHOUP_BC(Z6, 4(BX), 4(BX)(R9*1), Z16, Z17, Z18)
	CT_NR(Z4, Z6, Z16)
	SHOUP_BC(Z7, 4(BX), 4(BX)(R9*1), Z19, Z20, Z21)
	CT_NR(Z5, Z7, Z19)

	// t = 16: the two registers of each chunk.
#ifndef NR
	XRED4(Z0, Z2, Z4, Z6, Z8, Z9)
#endif
	SHOUP_BC(Z1, 0(DX), 0(DX)(R9*1), Z10, Z11, Z12)
	CT_NR(Z0, Z1, Z10)
	SHOUP_BC(Z3, 4(DX), 4(DX)(R9*1), Z13, Z14, Z15)
	CT_NR(Z2, Z3, Z13)
	SHOUP_BC(Z5, 8(DX), 8(DX)(R9*1), Z16, Z17, Z18)
	CT_NR(Z4, Z5, Z16)
	SHOUP_BC(Z7, 12(DX), 12(DX)(R9*1), Z19, Z20, Z21)
	CT_NR(Z6, Z7, Z19)

	// Natural -> L3.
	SWAPL3(Z0, Z1, Z8)
	SWAPL3(Z2, Z3, Z10)
	SWAPL3(Z4, Z5, Z12)
	SWAPL3(Z6, Z7, Z14)

	// t = 8: two twiddles per chunk.
#ifndef NR
	XRED4(Z0, Z2, Z4, Z6, Z8, Z9)
#endif
	SHOUP_BM(Z1, 0(R12), 64(R12), Z10, Z11, Z12)
	CT_NR(Z0, Z1, Z10)
	SHOUP_BM(Z3, 128(R12), 192(R12), Z15, Z16, Z17)
	CT_NR(Z2, Z3, Z15)
	SHOUP_BM(Z5, 256(R12), 320(R12), Z20, Z21, Z22)
	CT_NR(Z4, Z5, Z20)
	SHOUP_BM(Z7, 384(R12), 448(R12), Z25, Z11, Z12)
	CT_NR(Z6, Z7, Z25)
	PERM2M(Z0, Z1, 128(R10), 192(R10), Z8, Z9)
	PERM2M(Z2, Z3, 128(R10), 192(R10), Z10, Z11)
	PERM2M(Z4, Z5, 128(R10), 192(R10), Z12, Z13)
	PERM2M(Z6, Z7, 128(R10), 192(R10), Z14, Z15)

	// t = 4: four twiddles per chunk.
#ifndef NR
	XRED4(Z0, Z2, Z4, Z6, Z8, Z9)
#endif
	SHOUP_BM(Z1, 0(R13), 64(R13), Z10, Z11, Z12)
	CT_NR(Z0, Z1, Z10)
	SHOUP_BM(Z3, 128(R13), 192(R13), Z15, Z16, Z17)
	CT_NR(Z2, Z3, Z15)
	SHOUP_BM(Z5, 256(R13), 320(R13), Z20, Z21, Z22)
	CT_NR(Z4, Z5, Z20)
	SHOUP_BM(Z7, 384(R13), 448(R13), Z25, Z11, Z12)
	CT_NR(Z6, Z7, Z25)
	SWAPL1(Z0, Z1, Z8)
	SWAPL1(Z2, Z3, Z10)
	SWAPL1(Z4, Z5, Z12)
	SWAPL1(Z6, Z7, Z14)

	// t = 2: eight twiddles per chunk.
#ifndef NR
	XRED4(Z0, Z2, Z4, Z6, Z8, Z9)
#endif
	SHOUP_BM(Z1, 0(R14), 64(R14), Z10, Z11, Z12)
	CT_NR(Z0, Z1, Z10)
	SHOUP_BM(Z3, 128(R14), 192(R14), Z15, Z16, Z17)
	CT_NR(Z2, Z3, Z15)
	SHOUP_BM(Z5, 256(R14), 320(R14), Z20, Z21, Z22)
	CT_NR(Z4, Z5, Z20)
	SHOUP_BM(Z7, 384(R14), 448(R14), Z25, Z11, Z12)
	CT_NR(Z6, Z7, Z25)
	SWAPL0(Z0, Z1, Z8)
	SWAPL0(Z2, Z3, Z10)
	SWAPL0(Z4, Z5, Z12)
	SWAPL0(Z6, Z7, Z14)

	// t = 1: sixteen twiddles per chunk, one per lane.
#ifdef NR
	BARRETT_V(Z0, Z29, Z8, Z9)
	BARRETT_V(Z2, Z29, Z10, Z11)
	BARRETT_V(Z4, Z29, Z12, Z13)
	BARRETT_V(Z6, Z29, Z14, Z15)
#else
	XRED4(Z0, Z2, Z4, Z6, Z8, Z9)
#endif
	SHOUP_VM(Z1, 0(R15), 0(R15)(R9*1), Z10, Z11, Z12, Z13)
	CT_NR(Z0, Z1, Z10)
	SHOUP_VM(Z3, 64(R15), 64(R15)(R9*1), Z14, Z15, Z16, Z17)
	CT_NR(Z2, Z3, Z14)
	SHOUP_VM(Z5, 128(R15), 128(R15)(R9*1), Z18, Z19, Z20, Z21)
	CT_NR(Z4, Z5, Z18)
	SHOUP_VM(Z7, 192(R15), 192(R15)(R9*1), Z22, Z23, Z24, Z25)
	CT_NR(Z6, Z7, Z22)

#ifdef NR
#ifndef NR4Q
	// [0, 4Q) -> [0, Q) (with NR4Q the outputs stay in [0, 4Q)).
	REDUCE2Q(Z0, Z8)
	REDUCE2Q(Z1, Z9)
	REDUCE2Q(Z2, Z10)
	REDUCE2Q(Z3, Z11)
	REDUCE2Q(Z4, Z12)
	REDUCE2Q(Z5, Z13)
	REDUCE2Q(Z6, Z14)
	REDUCE2Q(Z7, Z15)
#endif
#else
	// [0, 4Q) -> [0, 2Q), then [0, Q) if Z29 = Q.
	REDUCE2(Z0, Z8)
	REDUCE2(Z1, Z9)
	REDUCE2(Z2, Z10)
	REDUCE2(Z3, Z11)
	REDUCE2(Z4, Z12)
	REDUCE2(Z5, Z13)
	REDUCE2(Z6, Z14)
	REDUCE2(Z7, Z15)
#endif
	// L0 -> natural.
	PERM2M(Z0, Z1, 512(R10), 576(R10), Z8, Z9)
	PERM2M(Z2, Z3, 512(R10), 576(R10), Z10, Z11)
	PERM2M(Z4, Z5, 512(R10), 576(R10), Z12, Z13)
	PERM2M(Z6, Z7, 512(R10), 576(R10), Z14, Z15)
	VMOVDQU32 Z0, 0(DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, 128(DI)
	VMOVDQU32 Z3, 192(DI)
	VMOVDQU32 Z4, 256(DI)
	VMOVDQU32 Z5, 320(DI)
	VMOVDQU32 Z6, 384(DI)
	VMOVDQU32 Z7, 448(DI)
	ADDQ $512, SI
	ADDQ $512, DI
	ADDQ $4, AX
	ADDQ $8, BX
	ADDQ $16, DX
	ADDQ $512, R12
	ADDQ $512, R13
	ADDQ $512, R14
	ADDQ $256, R15
	DECQ CX
	JNZ  fbloop
	VZEROUPPER
	RET
