//go:build amd64 && !purego

#include "textflag.h"
#include "reduce32_amd64.h"

// AVX-512F pointwise kernels for Modulus32, 8 entries per iteration in
// 64-bit lanes (VPMULUDQ gives exact 32x32->64 products). n is a multiple
// of 8; the Go wrappers handle the rest.
//
// Constant block c (uint64 each): 0 Q, 8 2Q, 16 R = 2^32 mod Q,
// 24 R' = floor(R·2^32/Q), 32 br = floor(2^32/Q), 40 0xffffffff.

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

// func decomposeAVX512(in *uint32, n int, outs *[8]*uint32, dg int, c *[8]uint32)
// DecomposeSigned on 16 coefficients per iteration (int32 lanes); n is a
// multiple of 16. c = {Q, Q/2, round, shift, B/2, B-1, logB}.
TEXT ·decomposeAVX512(SB), NOSPLIT, $0-40
	MOVQ in+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ outs+16(FP), R8
	MOVQ dg+24(FP), R9
	MOVQ c+32(FP), R10
	VPBROADCASTD 0(R10), Z20
	VPBROADCASTD 4(R10), Z21
	VPBROADCASTD 8(R10), Z22
	VPBROADCASTD 12(R10), Z23
	VPBROADCASTD 16(R10), Z24
	VPBROADCASTD 20(R10), Z25
	VPBROADCASTD 24(R10), Z26
	DECQ R9
	XORQ R11, R11
	SHRQ $4, CX
	JZ   ddone

dloop:
	VMOVDQU32 (SI)(R11*1), Z0
	// Centre: c -= Q & ((Q/2 - c) >> 31).
	VPSUBD  Z0, Z21, Z1
	VPSRAD  $31, Z1, Z1
	VPANDD  Z20, Z1, Z1
	VPSUBD  Z1, Z0, Z0
	// Round off the dropped digits.
	VPADDD  Z22, Z0, Z0
	VPSRAVD Z23, Z0, Z0
	XORQ R12, R12

ddigit:
	CMPQ R12, R9
	JEQ  dlast
	VPADDD  Z24, Z0, Z1
	VPANDD  Z25, Z1, Z1
	VPSUBD  Z24, Z1, Z1
	VPSUBD  Z1, Z0, Z0
	VPSRAVD Z26, Z0, Z0
	VPSRAD  $31, Z1, Z2
	VPANDD  Z20, Z2, Z2
	VPADDD  Z2, Z1, Z1
	MOVQ (R8)(R12*8), R13
	VMOVDQU32 Z1, (R13)(R11*1)
	INCQ R12
	JMP  ddigit

dlast:
	VPSRAD  $31, Z0, Z2
	VPANDD  Z20, Z2, Z2
	VPADDD  Z2, Z0, Z0
	MOVQ (R8)(R12*8), R13
	VMOVDQU32 Z0, (R13)(R11*1)
	ADDQ $64, R11
	DECQ CX
	JNZ  dloop

ddone:
	VZEROUPPER
	RET
