//go:build amd64 && !purego

#include "textflag.h"

#include "ntt32_amd64.h"

// func invHead32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q uint32, do64 int)
// The first Gentleman–Sande stages on blocks of 128 entries, reading src
// and writing dst (which may be the same array): in four chunks of 32
// (Z0/Z1, ..., Z6/Z7) the stages t = 1, 2, 4, 8 permuted through the layouts
// L0..L3 (avx_layout.go), then back in natural order the stages t = 16, 32
// and, if do64 != 0, t = 64, which pair whole registers. Four independent
// chains per stage for instruction-level parallelism. Entries stay in
// [0, 2Q) (the butterflies of inverseRadix2).
//
// Registers: DI dst, SI src, CX blocks left, R9 = psiS - psi (bytes),
// R10 tab, R15/R14/R13/R12/DX/BX/AX the twiddle pointers of the stages
// t = 1 ... 64 for the current block (t = 2, 4, 8 in tw, avxTailTwiddles
// of ψ^-1), R11 do64; Z8-Z25 temporaries.
TEXT ·invHead32AVX512(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ psi+24(FP), R8
	MOVQ psiS+32(FP), R9
	MOVQ tab+40(FP), R10
	MOVL q+56(FP), AX
	SETUP_Q
	MOVQ do64+64(FP), R11
	SUBQ R8, R9
	// Stage t uses psi[N/(2t) + group]: byte offset 2N/t.
	MOVQ psi+24(FP), R15
	MOVQ CX, R8
	SHRQ $5, R8
	LEAQ (R15)(R8*1), AX  // t = 64
	SHLQ $1, R8
	LEAQ (R15)(R8*1), BX  // t = 32
	SHLQ $1, R8
	LEAQ (R15)(R8*1), DX  // t = 16
	SHLQ $4, R8
	ADDQ R8, R15          // t = 1
	// t = 8, 4, 2: the expanded tables tw (avxTailTwiddles), 4N bytes each.
	MOVQ tw+48(FP), R12
	MOVQ CX, R8
	SHLQ $2, R8
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), R14
	SHRQ $7, CX

ihloop:
	VMOVDQU32 0(SI), Z0
	VMOVDQU32 64(SI), Z1
	VMOVDQU32 128(SI), Z2
	VMOVDQU32 192(SI), Z3
	VMOVDQU32 256(SI), Z4
	VMOVDQU32 320(SI), Z5
	VMOVDQU32 384(SI), Z6
	VMOVDQU32 448(SI), Z7
	// Natural -> L0.
	PERM2M(Z0, Z1, 640(R10), 704(R10), Z8, Z9)
	PERM2M(Z2, Z3, 640(R10), 704(R10), Z10, Z11)
	PERM2M(Z4, Z5, 640(R10), 704(R10), Z12, Z13)
	PERM2M(Z6, Z7, 640(R10), 704(R10), Z14, Z15)

	// t = 1: one twiddle per lane.
	GS_PRE(Z0, Z1, Z8, Z9)
	SHOUP_VM(Z8, 0(R15), 0(R15)(R9*1), Z1, Z10, Z11, Z12)
	GS_PRE(Z2, Z3, Z13, Z14)
	SHOUP_VM(Z13, 64(R15), 64(R15)(R9*1), Z3, Z15, Z16, Z17)
	GS_PRE(Z4, Z5, Z18, Z19)
	SHOUP_VM(Z18, 128(R15), 128(R15)(R9*1), Z5, Z20, Z21, Z22)
	GS_PRE(Z6, Z7, Z23, Z24)
	SHOUP_VM(Z23, 192(R15), 192(R15)(R9*1), Z7, Z25, Z11, Z12)
	SWAPL0(Z0, Z1, Z8)
	SWAPL0(Z2, Z3, Z10)
	SWAPL0(Z4, Z5, Z12)
	SWAPL0(Z6, Z7, Z14)

	// t = 2: eight twiddles per chunk.
	GS_PRE(Z0, Z1, Z8, Z9)
	SHOUP_BM(Z8, 0(R14), 64(R14), Z1, Z12, Z9)
	GS_PRE(Z2, Z3, Z13, Z14)
	SHOUP_BM(Z13, 128(R14), 192(R14), Z3, Z17, Z14)
	GS_PRE(Z4, Z5, Z18, Z19)
	SHOUP_BM(Z18, 256(R14), 320(R14), Z5, Z22, Z19)
	GS_PRE(Z6, Z7, Z23, Z24)
	SHOUP_BM(Z23, 384(R14), 448(R14), Z7, Z12, Z24)
	SWAPL1(Z0, Z1, Z8)
	SWAPL1(Z2, Z3, Z10)
	SWAPL1(Z4, Z5, Z12)
	SWAPL1(Z6, Z7, Z14)

	// t = 4: four twiddles per chunk.
	GS_PRE(Z0, Z1, Z8, Z9)
	SHOUP_BM(Z8, 0(R13), 64(R13), Z1, Z12, Z9)
	GS_PRE(Z2, Z3, Z13, Z14)
	SHOUP_BM(Z13, 128(R13), 192(R13), Z3, Z17, Z14)
	GS_PRE(Z4, Z5, Z18, Z19)
	SHOUP_BM(Z18, 256(R13), 320(R13), Z5, Z22, Z19)
	GS_PRE(Z6, Z7, Z23, Z24)
	SHOUP_BM(Z23, 384(R13), 448(R13), Z7, Z12, Z24)
	PERM2M(Z0, Z1, 1024(R10), 1088(R10), Z8, Z9)
	PERM2M(Z2, Z3, 1024(R10), 1088(R10), Z10, Z11)
	PERM2M(Z4, Z5, 1024(R10), 1088(R10), Z12, Z13)
	PERM2M(Z6, Z7, 1024(R10), 1088(R10), Z14, Z15)

	// t = 8: two twiddles per chunk.
	GS_PRE(Z0, Z1, Z8, Z9)
	SHOUP_BM(Z8, 0(R12), 64(R12), Z1, Z12, Z9)
	GS_PRE(Z2, Z3, Z13, Z14)
	SHOUP_BM(Z13, 128(R12), 192(R12), Z3, Z17, Z14)
	GS_PRE(Z4, Z5, Z18, Z19)
	SHOUP_BM(Z18, 256(R12), 320(R12), Z5, Z22, Z19)
	GS_PRE(Z6, Z7, Z23, Z24)
	SHOUP_BM(Z23, 384(R12), 448(R12), Z7, Z12, Z24)
	// L3 -> natural.
	SWAPL3(Z0, Z1, Z8)
	SWAPL3(Z2, Z3, Z10)
	SWAPL3(Z4, Z5, Z12)
	SWAPL3(Z6, Z7, Z14)

	// t = 16: the two registers of each chunk, twiddle psi[N/32 + 4·block + chunk].
	GS_PRE(Z0, Z1, Z8, Z9)
	SHOUP_BC(Z8, 0(DX), 0(DX)(R9*1), Z1, Z10, Z11)
	GS_PRE(Z2, Z3, Z12, Z13)
	SHOUP_BC(Z12, 4(DX), 4(DX)(R9*1), Z3, Z14, Z15)
	GS_PRE(Z4, Z5, Z16, Z17)
	SHOUP_BC(Z16, 8(DX), 8(DX)(R9*1), Z5, Z18, Z19)
	GS_PRE(Z6, Z7, Z20, Z21)
	SHOUP_BC(Z20, 12(DX), 12(DX)(R9*1), Z7, Z22, Z23)

	// t = 32: (Z0, Z1; Z2, Z3) and (Z4, Z5; Z6, Z7).
	GS_PRE(Z0, Z2, Z8, Z9)
	SHOUP_BC(Z8, 0(BX), 0(BX)(R9*1), Z2, Z10, Z11)
	GS_PRE(Z1, Z3, Z12, Z13)
	SHOUP_BC(Z12, 0(BX), 0(BX)(R9*1), Z3, Z14, Z15)
	GS_PRE(Z4, Z6, Z16, Z17)
	SHOUP_BC(Z16, 4(BX), 4(BX)(R9*1), Z6, Z18, Z19)
	GS_PRE(Z5, Z7, Z20, Z21)
	SHOUP_BC(Z20, 4(BX), 4(BX)(R9*1), Z7, Z22, Z23)

	TESTQ R11, R11
	JZ    ihstore
	// t = 64: (Z0..Z3, Z4..Z7), twiddle psi[N/128 + block].
	GS_PRE(Z0, Z4, Z8, Z9)
	SHOUP_BC(Z8, 0(AX), 0(AX)(R9*1), Z4, Z10, Z11)
	GS_PRE(Z1, Z5, Z12, Z13)
	SHOUP_BC(Z12, 0(AX), 0(AX)(R9*1), Z5, Z14, Z15)
	GS_PRE(Z2, Z6, Z16, Z17)
	SHOUP_BC(Z16, 0(AX), 0(AX)(R9*1), Z6, Z18, Z19)
	GS_PRE(Z3, Z7, Z20, Z21)
	SHOUP_BC(Z20, 0(AX), 0(AX)(R9*1), Z7, Z22, Z23)

ihstore:
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
	JNZ  ihloop
	VZEROUPPER
	RET
