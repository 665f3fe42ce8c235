//go:build amd64 && !purego

#include "textflag.h"
#include "cyclic64_amd64.h"

// The permutations and scalar passes around the Rader convolution
// (rader64.go; the convolution itself is CyclicNTT64's, cyclic64_amd64.s).
// Conventions: cyclic64_amd64.h (SETUP_Q: Z30 = q, Z31 = 2q).

// func raderGatherSubAVX(src *uint64, idx *uint32, out *uint64, n int, c, q uint64)
// out[k] = src[idx[k]] - c mod q for src entries and c in [0, q) (c = 0:
// a plain gather); n a multiple of 8. The permutations around the Rader
// convolution.
TEXT ·raderGatherSubAVX(SB), NOSPLIT, $0-48
	MOVQ src+0(FP), SI
	MOVQ idx+8(FP), R8
	MOVQ out+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), BX
	MOVQ q+40(FP), AX
	SETUP_Q
	VPBROADCASTQ BX, Z29

gsloop:
	VMOVDQU32   (R8), Y1
	KXNORB      K1, K1, K1
	VPXORQ      Z0, Z0, Z0
	VPGATHERDQ  (SI)(Y1*8), K1, Z0
	VPSUBQ      Z29, Z0, Z0
	VPADDQ      Z30, Z0, Z2
	VPMINUQ     Z2, Z0, Z0
	VMOVDQU64   Z0, (DI)
	ADDQ $32, R8
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  gsloop
	VZEROUPPER
	RET

// func raderSubScalarAVX(a, out *uint64, n int, c, q uint64)
// out = a - c mod q for a, c in [0, q); n a multiple of 8.
TEXT ·raderSubScalarAVX(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), BX
	MOVQ q+32(FP), AX
	SETUP_Q
	VPBROADCASTQ BX, Z29

ssloop:
	VMOVDQU64   (SI), Z0
	VPSUBQ      Z29, Z0, Z0
	VPADDQ      Z30, Z0, Z2
	VPMINUQ     Z2, Z0, Z0
	VMOVDQU64   Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  ssloop
	VZEROUPPER
	RET

// func raderSumModAVX(a *uint64, n int, q uint64) [8]uint64
// Eight lane sums of a (entries in [0, q)), each reduced mod q; n a
// multiple of 8.
TEXT ·raderSumModAVX(SB), NOSPLIT, $0-88
	MOVQ a+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ q+16(FP), AX
	SETUP_Q
	VPXORQ Z0, Z0, Z0

smloop:
	VMOVDQU64   (SI), Z1
	VPADDQ      Z1, Z0, Z0
	VPSUBQ      Z30, Z0, Z2
	VPMINUQ     Z2, Z0, Z0
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ  smloop
	VMOVDQU64 Z0, ret+24(FP)
	VZEROUPPER
	RET

// func raderReverseAVX(src, dst *uint64, n int, idx *[8]uint64)
// dst[l] = src[n-l] for l in [8, n), by blocks of 8 read forwards and
// permuted with idx = {7, 6, ..., 0}; n a multiple of 8, dst != src.
TEXT ·raderReverseAVX(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ idx+24(FP), R8
	VMOVDQU64 (R8), Z31
	// dst block at l = 8 takes src[n-15 .. n-8].
	LEAQ -120(SI)(CX*8), SI
	ADDQ $64, DI
	SUBQ $8, CX

rvloop:
	VMOVDQU64 (SI), Z0
	VPERMQ    Z0, Z31, Z0
	VMOVDQU64 Z0, (DI)
	SUBQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  rvloop
	VZEROUPPER
	RET
