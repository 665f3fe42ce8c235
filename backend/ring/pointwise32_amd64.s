//go:build amd64 && !purego

#include "textflag.h"

// AVX-512F pointwise kernels for Modulus32, 8 entries per iteration in
// 64-bit lanes (VPMULUDQ gives exact 32x32->64 products). n is a multiple
// of 8; the Go wrappers handle the rest.
//
// Constant block c (uint64 each): 0 Q, 8 2Q, 16 R = 2^32 mod Q,
// 24 R' = floor(R·2^32/Q), 32 br = floor(2^32/Q), 40 0xffffffff.
//
// REDUCE64: X (8 x uint64, any value < 2^64) -> X mod Q in [0, Q).
// With X = xh·2^32 + xl: xh·R mod Q by Shoup (in [0, 2Q)) plus xl mod Q by
// Barrett (in [0, 2Q)), then two conditional subtractions. Clobbers T1-T3.
#define REDUCE64(X, T1, T2, T3) \
	VPSRLQ   $32, X, T1 \
	VPMULUDQ Z27, T1, T2 \
	VPSRLQ   $32, T2, T2 \
	VPMULUDQ Z26, T1, T1 \
	VPMULUDQ Z24, T2, T2 \
	VPSUBQ   T2, T1, T1 \
	VPMULUDQ Z28, X, T3 \
	VPSRLQ   $32, T3, T3 \
	VPMULUDQ Z24, T3, T3 \
	VPANDQ   Z29, X, X \
	VPSUBQ   T3, X, X \
	VPADDQ   T1, X, X \
	VPSUBQ   Z25, X, T1 \
	VPMINUQ  T1, X, X \
	VPSUBQ   Z24, X, T1 \
	VPMINUQ  T1, X, X

#define LOADC(reg) \
	VPBROADCASTQ 0(reg), Z24 \
	VPBROADCASTQ 8(reg), Z25 \
	VPBROADCASTQ 16(reg), Z26 \
	VPBROADCASTQ 24(reg), Z27 \
	VPBROADCASTQ 32(reg), Z28 \
	VPBROADCASTQ 40(reg), Z29

// func reduceLazyAVX512(acc *uint64, out *uint32, n int, c *[6]uint64)
TEXT ·reduceLazyAVX512(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R8
	LOADC(R8)
	SHRQ $3, CX
	JZ   rdone

rloop:
	VMOVDQU64 (SI), Z0
	REDUCE64(Z0, Z1, Z2, Z3)
	VPMOVQD Z0, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  rloop

rdone:
	VZEROUPPER
	RET

// func mulCoeffsAVX512(a, b, out *uint32, n int, c *[6]uint64, add bool)
// out = a·b (+ out if add) mod Q.
TEXT ·mulCoeffsAVX512(SB), NOSPLIT, $0-41
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), BX
	MOVQ out+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), R8
	MOVBLZX add+40(FP), AX
	LOADC(R8)
	SHRQ $3, CX
	JZ   mdone
	TESTL AX, AX
	JNZ  maddloop

mloop:
	VPMOVZXDQ (SI), Z0
	VPMOVZXDQ (BX), Z1
	VPMULUDQ  Z1, Z0, Z0
	REDUCE64(Z0, Z1, Z2, Z3)
	VPMOVQD Z0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  mloop
	JMP  mdone

maddloop:
	VPMOVZXDQ (SI), Z0
	VPMOVZXDQ (BX), Z1
	VPMOVZXDQ (DI), Z4
	VPMULUDQ  Z1, Z0, Z0
	VPADDQ    Z4, Z0, Z0
	REDUCE64(Z0, Z1, Z2, Z3)
	VPMOVQD Z0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  maddloop

mdone:
	VZEROUPPER
	RET

// func mulCoeffsAddLazyAVX512(a, b *uint32, acc *uint64, n int)
// acc += a·b without reduction.
TEXT ·mulCoeffsAddLazyAVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), BX
	MOVQ acc+16(FP), DI
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ   ldone

lloop:
	VPMOVZXDQ (SI), Z0
	VPMOVZXDQ (BX), Z1
	VPMULUDQ  Z1, Z0, Z0
	VPADDQ    (DI), Z0, Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  lloop

ldone:
	VZEROUPPER
	RET
