//go:build amd64 && !purego

#include "textflag.h"
#include "vec_amd64.h"

// Products of residue rows, base conversion and the mod-down finish
// (modarith.go, rns.go). Conventions and MULSHOUP: vec_amd64.h.

// MULBAR: OUT = A·B mod q in [0, q) for A, B < q < 2^61, by Barrett
// reduction. The 128-bit product hi:lo comes from four VPMULUDQ (exact) and
// VPMULLQ; y = floor(A·B / 2^(k-1)) (k = bit length of q) and
// est = hi64(y·μ), μ = floor(2^(k+63)/q), the latter from three VPMULUDQ.
// est is at most 4 below floor(A·B/q) (two from truncating y and μ, two
// from the dropped partial products), so A·B - est·q lies in [0, 5q) and
// three conditional subtractions (4q, 2q, q) finish. OUT must differ from
// A and B. Constants: Z30 = q, Z31 = 2q, Z29 = 4q, Z28 = 2^32-1,
// Z27 = k-1, Z26 = 65-k, Z25 = μ, Z24 = μ >> 32. Clobbers T1..T5.
#define MULBAR(A, B, OUT, T1, T2, T3, T4, T5) \
	VPSRLQ   $32, A, T1 \
	VPSRLQ   $32, B, T2 \
	VPMULUDQ B, A, T3 \
	VPMULUDQ T2, A, T4 \
	VPMULUDQ B, T1, T5 \
	VPMULUDQ T2, T1, T1 \
	VPSRLQ   $32, T3, T3 \
	VPANDQ   Z28, T4, T2 \
	VPADDQ   T2, T3, T3 \
	VPANDQ   Z28, T5, T2 \
	VPADDQ   T2, T3, T3 \
	VPSRLQ   $32, T3, T3 \
	VPSRLQ   $32, T4, T4 \
	VPSRLQ   $32, T5, T5 \
	VPADDQ   T4, T1, T1 \
	VPADDQ   T5, T1, T1 \
	VPADDQ   T3, T1, T1 \
	VPMULLQ  B, A, OUT \
	VPSLLVQ  Z26, T1, T1 \
	VPSRLVQ  Z27, OUT, T2 \
	VPORQ    T2, T1, T1 \
	VPSRLQ   $32, T1, T2 \
	VPMULUDQ Z24, T2, T3 \
	VPMULUDQ Z25, T2, T2 \
	VPSRLQ   $32, T2, T2 \
	VPADDQ   T2, T3, T3 \
	VPMULUDQ Z24, T1, T2 \
	VPSRLQ   $32, T2, T2 \
	VPADDQ   T2, T3, T3 \
	VPMULLQ  Z30, T3, T3 \
	VPSUBQ   T3, OUT, OUT \
	VPSUBQ   Z29, OUT, T1 \
	VPMINUQ  T1, OUT, OUT \
	VPSUBQ   Z31, OUT, T1 \
	VPMINUQ  T1, OUT, OUT \
	VPSUBQ   Z30, OUT, T1 \
	VPMINUQ  T1, OUT, OUT

// SETUP_BAR loads MULBAR's constants from c = {q, k-1, 65-k, μ}.
#define SETUP_BAR(C) \
	VPBROADCASTQ 0(C), Z30 \
	VPADDQ       Z30, Z30, Z31 \
	VPADDQ       Z31, Z31, Z29 \
	VPBROADCASTQ 8(C), Z27 \
	VPBROADCASTQ 16(C), Z26 \
	VPBROADCASTQ 24(C), Z25 \
	VPSRLQ       $32, Z25, Z24 \
	VPTERNLOGQ   $0xff, Z28, Z28, Z28 \
	VPSRLQ       $32, Z28, Z28

// func mulModAVX(a, b, out *uint64, n int, c *[4]uint64, add bool)
// out = a·b mod q (add: out = out + a·b mod q, out in [0, q)); n a
// multiple of 8; out may alias a or b.
TEXT ·mulModAVX(SB), NOSPLIT, $0-41
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ out+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), R8
	MOVBLZX add+40(FP), AX
	SETUP_BAR(R8)
	TESTL AX, AX
	JNZ  maddloop

mloop2:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DX), Z1
	MULBAR(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z2, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  mloop2
	VZEROUPPER
	RET

maddloop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DX), Z1
	MULBAR(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 (DI), Z8
	VPADDQ    Z8, Z2, Z2
	VPSUBQ    Z30, Z2, Z3
	VPMINUQ   Z3, Z2, Z2
	VMOVDQU64 Z2, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  maddloop
	VZEROUPPER
	RET

// func mulMod2AVX(x, b0, b1, out0, out1 *uint64, n int, c *[4]uint64, add bool)
// The key-switching inner product for one row and digit: out0 (+)= x·b0,
// out1 (+)= x·b1 mod q, x loaded once.
TEXT ·mulMod2AVX(SB), NOSPLIT, $0-57
	MOVQ x+0(FP), SI
	MOVQ b0+8(FP), DX
	MOVQ b1+16(FP), R9
	MOVQ out0+24(FP), DI
	MOVQ out1+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ c+48(FP), R8
	MOVBLZX add+56(FP), AX
	SETUP_BAR(R8)
	TESTL AX, AX
	JNZ  m2addloop

m2loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DX), Z1
	MULBAR(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 (R9), Z1
	MULBAR(Z0, Z1, Z8, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z8, (R10)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, R9
	ADDQ $64, DI
	ADDQ $64, R10
	SUBQ $8, CX
	JNZ  m2loop
	VZEROUPPER
	RET

m2addloop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DX), Z1
	MULBAR(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 (R9), Z1
	MULBAR(Z0, Z1, Z8, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 (DI), Z9
	VPADDQ    Z9, Z2, Z2
	VPSUBQ    Z30, Z2, Z3
	VPMINUQ   Z3, Z2, Z2
	VMOVDQU64 (R10), Z9
	VPADDQ    Z9, Z8, Z8
	VPSUBQ    Z30, Z8, Z3
	VPMINUQ   Z3, Z8, Z8
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z8, (R10)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, R9
	ADDQ $64, DI
	ADDQ $64, R10
	SUBQ $8, CX
	JNZ  m2addloop
	VZEROUPPER
	RET

// func shoupPairAVX(x, d, out *uint64, n int, c *[7]uint64)
// out = x·w - d·w2 mod q (both Shoup products fully reduced first), c =
// {q, w, w', w'>>32, w2, w2', w2'>>32}: scaleDown.finish.
TEXT ·shoupPairAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ d+8(FP), DX
	MOVQ out+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), R8
	MOVQ 0(R8), AX
	SETUP_Q
	VPBROADCASTQ 8(R8), Z20
	VPBROADCASTQ 16(R8), Z21
	VPBROADCASTQ 24(R8), Z22
	VPBROADCASTQ 32(R8), Z23
	VPBROADCASTQ 40(R8), Z24
	VPBROADCASTQ 48(R8), Z25

sploop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DX), Z1
	MULSHOUP(Z0, Z20, Z21, Z22, Z0, Z3, Z4)
	MULSHOUP(Z1, Z23, Z24, Z25, Z1, Z3, Z4)
	VPSUBQ    Z30, Z0, Z3
	VPMINUQ   Z3, Z0, Z0
	VPSUBQ    Z30, Z1, Z3
	VPMINUQ   Z3, Z1, Z1
	VPSUBQ    Z1, Z0, Z0
	VPADDQ    Z30, Z0, Z3
	VPMINUQ   Z3, Z0, Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  sploop
	VZEROUPPER
	RET

// func bconvPrepAVX(x, y *uint64, v *float64, n int, c *[5]uint64)
// Base conversion, first half, one source prime: y = x·w mod q (fully
// reduced), v += float64(y)·(1/q); c = {q, w, w', w'>>32, bits of 1/q}.
// The float operations are the pure-Go ones in the same order (multiply,
// then add; no FMA), so v agrees bit for bit.
TEXT ·bconvPrepAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ v+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), R8
	MOVQ 0(R8), AX
	SETUP_Q
	VPBROADCASTQ 8(R8), Z20
	VPBROADCASTQ 16(R8), Z21
	VPBROADCASTQ 24(R8), Z22
	VPBROADCASTQ 32(R8), Z23

bploop:
	VMOVDQU64 (SI), Z0
	MULSHOUP(Z0, Z20, Z21, Z22, Z0, Z3, Z4)
	VPSUBQ    Z30, Z0, Z3
	VPMINUQ   Z3, Z0, Z0
	VMOVDQU64 Z0, (DI)
	VCVTUQQ2PD Z0, Z1
	VMULPD    Z23, Z1, Z1
	VMOVUPD   (DX), Z2
	VADDPD    Z1, Z2, Z2
	VMOVUPD   Z2, (DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JNZ  bploop
	VZEROUPPER
	RET

// BCONV_FINAL: ACC in [0, 2p) -> [0, p), minus u·Q_S mod p for the eight
// coefficients at byte offset off from SI, stored to out. Clobbers Z0, Z3, Z4.
#define BCONV_FINAL(ACC, off) \
	VPSUBQ    Z30, ACC, Z3 \
	VPMINUQ   Z3, ACC, ACC \
	VMOVUPD   off(DX)(SI*1), Z0 \
	VADDPD    Z23, Z0, Z0 \
	VCVTTPD2QQ Z0, Z0 \
	MULSHOUP(Z0, Z20, Z21, Z22, Z0, Z3, Z4) \
	VPSUBQ    Z30, Z0, Z3 \
	VPMINUQ   Z3, Z0, Z0 \
	VPSUBQ    Z0, ACC, ACC \
	VPADDQ    Z30, ACC, Z3 \
	VPMINUQ   Z3, ACC, ACC \
	VMOVDQU64 ACC, off(DI)(SI*1)

// func bconvRowAVX(rows **uint64, alpha int, hat, hatS *uint64, v *float64, out *uint64, n int, c *[4]uint64)
// Base conversion, second half, one target prime p: out = Σ_i rows[i]·hat[i]
// - u·Q_S mod p with u = int(v + 0.5); c = {p, [Q_S]_p, its Shoup
// companion, companion >> 32}. Each Shoup term is in [0, 2p) and the sum is
// kept in [0, 2p) as in the pure-Go loop. 32 coefficients per iteration
// (four independent accumulators share each term's constants); n a
// multiple of 32.
TEXT ·bconvRowAVX(SB), NOSPLIT, $0-64
	MOVQ rows+0(FP), R8
	MOVQ alpha+8(FP), R9
	MOVQ hat+16(FP), R10
	MOVQ hatS+24(FP), R11
	MOVQ v+32(FP), DX
	MOVQ out+40(FP), DI
	MOVQ n+48(FP), CX
	MOVQ c+56(FP), R12
	MOVQ 0(R12), AX
	SETUP_Q
	VPBROADCASTQ 8(R12), Z20
	VPBROADCASTQ 16(R12), Z21
	VPBROADCASTQ 24(R12), Z22
	MOVQ $0x3fe0000000000000, AX // 0.5
	VPBROADCASTQ AX, Z23
	XORQ SI, SI // byte offset

brloop:
	VPXORQ Z5, Z5, Z5
	VPXORQ Z9, Z9, Z9
	VPXORQ Z13, Z13, Z13
	VPXORQ Z17, Z17, Z17
	XORQ   BX, BX

brterm:
	MOVQ (R8)(BX*8), R13
	ADDQ SI, R13
	VPBROADCASTQ (R10)(BX*8), Z1
	VPBROADCASTQ (R11)(BX*8), Z2
	VPSRLQ    $32, Z2, Z6
	VMOVDQU64 0(R13), Z0
	VMOVDQU64 64(R13), Z7
	VMOVDQU64 128(R13), Z8
	VMOVDQU64 192(R13), Z10
	MULSHOUP(Z0, Z1, Z2, Z6, Z0, Z3, Z4)
	MULSHOUP(Z7, Z1, Z2, Z6, Z7, Z11, Z12)
	MULSHOUP(Z8, Z1, Z2, Z6, Z8, Z14, Z15)
	MULSHOUP(Z10, Z1, Z2, Z6, Z10, Z18, Z19)
	VPADDQ    Z0, Z5, Z5
	VPSUBQ    Z31, Z5, Z3
	VPMINUQ   Z3, Z5, Z5
	VPADDQ    Z7, Z9, Z9
	VPSUBQ    Z31, Z9, Z11
	VPMINUQ   Z11, Z9, Z9
	VPADDQ    Z8, Z13, Z13
	VPSUBQ    Z31, Z13, Z14
	VPMINUQ   Z14, Z13, Z13
	VPADDQ    Z10, Z17, Z17
	VPSUBQ    Z31, Z17, Z18
	VPMINUQ   Z18, Z17, Z17
	INCQ BX
	CMPQ BX, R9
	JLT  brterm
	BCONV_FINAL(Z5, 0)
	BCONV_FINAL(Z9, 64)
	BCONV_FINAL(Z13, 128)
	BCONV_FINAL(Z17, 192)
	ADDQ $256, SI
	SUBQ $32, CX
	JNZ  brloop
	VZEROUPPER
	RET

// ADDQMOD: X = X + Y mod q for X, Y in [0, q). Clobbers T.
#define ADDQMOD(X, Y, T) \
	VPADDQ  Y, X, X \
	VPSUBQ  Z30, X, T \
	VPMINUQ T, X, X

// SUBQMOD: X = X - Y mod q for X, Y in [0, q). Clobbers T.
#define SUBQMOD(X, Y, T) \
	VPSUBQ  Y, X, X \
	VPADDQ  Z30, X, T \
	VPMINUQ T, X, X

// func tensorAVX(a0, a1, b0, b1, d0, d1, d2 *uint64, n int, c *[4]uint64)
// One row of the degree-1 tensor product with Karatsuba's three products:
// d0 = a0·b0, d2 = a1·b1, d1 = (a0+a1)(b0+b1) - d0 - d2, all mod q; n a
// multiple of 8; the outputs must not alias the inputs.
TEXT ·tensorAVX(SB), NOSPLIT, $0-72
	MOVQ a0+0(FP), SI
	MOVQ a1+8(FP), R9
	MOVQ b0+16(FP), DX
	MOVQ b1+24(FP), R10
	MOVQ d0+32(FP), DI
	MOVQ d1+40(FP), R11
	MOVQ d2+48(FP), R12
	MOVQ n+56(FP), CX
	MOVQ c+64(FP), R8
	SETUP_BAR(R8)

tnloop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (R9), Z1
	VMOVDQU64 (DX), Z8
	VMOVDQU64 (R10), Z9
	MULBAR(Z0, Z8, Z10, Z3, Z4, Z5, Z6, Z7)
	MULBAR(Z1, Z9, Z11, Z3, Z4, Z5, Z6, Z7)
	ADDQMOD(Z0, Z1, Z3)
	ADDQMOD(Z8, Z9, Z3)
	MULBAR(Z0, Z8, Z12, Z3, Z4, Z5, Z6, Z7)
	SUBQMOD(Z12, Z10, Z3)
	SUBQMOD(Z12, Z11, Z3)
	VMOVDQU64 Z10, (DI)
	VMOVDQU64 Z12, (R11)
	VMOVDQU64 Z11, (R12)
	ADDQ $64, SI
	ADDQ $64, R9
	ADDQ $64, DX
	ADDQ $64, R10
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $64, R12
	SUBQ $8, CX
	JNZ  tnloop
	VZEROUPPER
	RET
