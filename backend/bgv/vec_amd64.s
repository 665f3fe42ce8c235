//go:build amd64 && !purego

#include "textflag.h"

// AVX-512F/DQ kernels for the cyclic NTT (ntt.go) and the RNS loops (rns.go,
// keyswitch.go, ring.go): 8
// uint64 lanes per ZMM register, moduli q < 2^61.
//
// The Shoup product a·w mod q needs the high word of a·w' (w' =
// floor(w·2^64/q)), which AVX-512 has no instruction for. It is estimated
// from three VPMULUDQ products of the 32-bit halves, a1·w1 + (a1·w0 >> 32) +
// (a0·w1 >> 32), dropping a0·w0 and the low halves of the cross products:
// together less than 3·2^64, so the estimate is short by at most 2 and the
// remainder a·w - est·q (VPMULLQ, exact mod 2^64) lies in [0, 4q) instead of
// Shoup's [0, 2q); one conditional subtraction of 2q restores [0, 2q).
// Intermediate values therefore differ from the pure-Go path's lazy
// representatives, but every kernel's output range is the same and the
// fully reduced results agree bit for bit.
//
// Register conventions: Z30 = q, Z31 = 2q in every lane.

// MULSHOUP: OUT = A·W mod q in [0, 2q) for any A < 2^64, with WS = w' and
// WH = w' >> 32 per lane. OUT may be A. Clobbers T1, T3.
#define MULSHOUP(A, W, WS, WH, OUT, T1, T3) \
	VPSRLQ   $32, A, T1 \
	VPMULUDQ WH, T1, T3 \
	VPMULUDQ WS, T1, T1 \
	VPSRLQ   $32, T1, T1 \
	VPADDQ   T1, T3, T3 \
	VPMULUDQ WH, A, T1 \
	VPSRLQ   $32, T1, T1 \
	VPADDQ   T1, T3, T3 \
	VPMULLQ  W, A, OUT \
	VPMULLQ  Z30, T3, T3 \
	VPSUBQ   T3, OUT, OUT \
	VPSUBQ   Z31, OUT, T1 \
	VPMINUQ  T1, OUT, OUT

// RED2: X in [0, 4q) -> [0, 2q). Clobbers T.
#define RED2(X, T) \
	VPSUBQ  Z31, X, T \
	VPMINUQ T, X, X

// GS: decimation-in-frequency butterfly, X, Y in [0, 2q): X = X+Y, Y =
// (X-Y+2q)·w, both in [0, 2q). Clobbers D, T1, T3.
#define GS(X, Y, W, WS, WH, D, T1, T3) \
	VPSUBQ  Y, X, D \
	VPADDQ  Z31, D, D \
	VPADDQ  Y, X, X \
	RED2(X, T1) \
	MULSHOUP(D, W, WS, WH, Y, T1, T3)

// GS1: GS with w = 1.
#define GS1(X, Y, D, T1) \
	VPSUBQ  Y, X, D \
	VPADDQ  Z31, D, D \
	VPADDQ  Y, X, X \
	RED2(X, T1) \
	RED2(D, T1) \
	VMOVDQA64 D, Y

// CT: decimation-in-time butterfly, X, Y in [0, 4q): X = X'+V, Y = X'-V+2q
// with X' = X mod 2q and V = Y·w in [0, 2q); outputs in [0, 4q). Clobbers
// V, T1, T3.
#define CT(X, Y, W, WS, WH, V, T1, T3) \
	RED2(X, T1) \
	MULSHOUP(Y, W, WS, WH, V, T1, T3) \
	VPSUBQ  V, X, Y \
	VPADDQ  Z31, Y, Y \
	VPADDQ  V, X, X

// CT1: CT with w = 1.
#define CT1(X, Y, V, T1) \
	RED2(X, T1) \
	VMOVDQA64 Y, V \
	RED2(V, T1) \
	VPSUBQ  V, X, Y \
	VPADDQ  Z31, Y, Y \
	VPADDQ  V, X, X

#define SETUP_Q \
	VPBROADCASTQ AX, Z30 \
	VPADDQ       Z30, Z30, Z31

// func fwdStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)
// One decimation-in-frequency stage of half-span h (a multiple of 8) over
// a[0:n]; tw, twS point at the stage's twiddles (entries h..2h-1).
TEXT ·fwdStageAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ h+16(FP), DX
	MOVQ tw+24(FP), R8
	MOVQ twS+32(FP), R9
	MOVQ q+40(FP), AX
	SETUP_Q
	SHLQ $3, DX         // h in bytes
	SHLQ $3, CX
	ADDQ DI, CX         // end of a
	MOVQ DI, R12        // block start

fblock:
	LEAQ (R12)(DX*1), R13
	XORQ R14, R14

finner:
	VMOVDQU64 (R12)(R14*1), Z0
	VMOVDQU64 (R13)(R14*1), Z1
	VMOVDQU64 (R8)(R14*1), Z2
	VMOVDQU64 (R9)(R14*1), Z3
	VPSRLQ    $32, Z3, Z4
	GS(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (R12)(R14*1)
	VMOVDQU64 Z1, (R13)(R14*1)
	ADDQ $64, R14
	CMPQ R14, DX
	JLT  finner
	LEAQ (R13)(DX*1), R12
	CMPQ R12, CX
	JLT  fblock
	VZEROUPPER
	RET

// func invStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)
// One decimation-in-time stage of half-span h (a multiple of 8), [0, 4q) in
// and out.
TEXT ·invStageAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ h+16(FP), DX
	MOVQ tw+24(FP), R8
	MOVQ twS+32(FP), R9
	MOVQ q+40(FP), AX
	SETUP_Q
	SHLQ $3, DX
	SHLQ $3, CX
	ADDQ DI, CX
	MOVQ DI, R12

iblock:
	LEAQ (R12)(DX*1), R13
	XORQ R14, R14

iinner:
	VMOVDQU64 (R12)(R14*1), Z0
	VMOVDQU64 (R13)(R14*1), Z1
	VMOVDQU64 (R8)(R14*1), Z2
	VMOVDQU64 (R9)(R14*1), Z3
	VPSRLQ    $32, Z3, Z4
	CT(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (R12)(R14*1)
	VMOVDQU64 Z1, (R13)(R14*1)
	ADDQ $64, R14
	CMPQ R14, DX
	JLT  iinner
	LEAQ (R13)(DX*1), R12
	CMPQ R12, CX
	JLT  iblock
	VZEROUPPER
	RET

// func reduce4AVX(a *uint64, n int, q uint64)
// a[0:n] from [0, 4q) to [0, q); n a multiple of 8.
TEXT ·reduce4AVX(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ q+16(FP), AX
	SETUP_Q

rloop:
	VMOVDQU64 (DI), Z0
	RED2(Z0, Z1)
	VPSUBQ    Z30, Z0, Z1
	VPMINUQ   Z1, Z0, Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  rloop
	VZEROUPPER
	RET

// TRANSPOSE8: the 8×8 transpose of the qword matrix whose rows are
// R0..R7 into C0..C7 (distinct registers): unpack pairs of rows, then
// recombine 128-bit and 256-bit lanes with VSHUFI64X2.
#define TRANSPOSE8(R0, R1, R2, R3, R4, R5, R6, R7, C0, C1, C2, C3, C4, C5, C6, C7) \
	VPUNPCKLQDQ R1, R0, C0 \
	VPUNPCKHQDQ R1, R0, C1 \
	VPUNPCKLQDQ R3, R2, C2 \
	VPUNPCKHQDQ R3, R2, C3 \
	VPUNPCKLQDQ R5, R4, C4 \
	VPUNPCKHQDQ R5, R4, C5 \
	VPUNPCKLQDQ R7, R6, C6 \
	VPUNPCKHQDQ R7, R6, C7 \
	VSHUFI64X2 $0x88, C2, C0, R0 \
	VSHUFI64X2 $0x88, C3, C1, R1 \
	VSHUFI64X2 $0xDD, C2, C0, R2 \
	VSHUFI64X2 $0xDD, C3, C1, R3 \
	VSHUFI64X2 $0x88, C6, C4, R4 \
	VSHUFI64X2 $0x88, C7, C5, R5 \
	VSHUFI64X2 $0xDD, C6, C4, R6 \
	VSHUFI64X2 $0xDD, C7, C5, R7 \
	VSHUFI64X2 $0x88, R4, R0, C0 \
	VSHUFI64X2 $0xDD, R4, R0, C4 \
	VSHUFI64X2 $0x88, R5, R1, C1 \
	VSHUFI64X2 $0xDD, R5, R1, C5 \
	VSHUFI64X2 $0x88, R6, R2, C2 \
	VSHUFI64X2 $0xDD, R6, R2, C6 \
	VSHUFI64X2 $0x88, R7, R3, C3 \
	VSHUFI64X2 $0xDD, R7, R3, C7

// LOADTW: broadcast the three twiddles of a size-8 transform from c: Z20..22
// = ω^(N/8), Z23..25 = ω^(N/4), Z26..28 = ω^(3N/8) (value, w', w' >> 32).
#define LOADTW(R) \
	VPBROADCASTQ 0(R), Z20 \
	VPBROADCASTQ 8(R), Z21 \
	VPBROADCASTQ 16(R), Z22 \
	VPBROADCASTQ 24(R), Z23 \
	VPBROADCASTQ 32(R), Z24 \
	VPBROADCASTQ 40(R), Z25 \
	VPBROADCASTQ 48(R), Z26 \
	VPBROADCASTQ 56(R), Z27 \
	VPBROADCASTQ 64(R), Z28

// KMUL: column register X times the kernel row at off(R9)/off(R10).
#define KMUL(X, off) \
	VMOVDQU64 off(R9), Z0 \
	VMOVDQU64 off(R10), Z1 \
	VPSRLQ    $32, Z1, Z2 \
	MULSHOUP(X, Z0, Z1, Z2, X, Z3, Z4)

// func middleAVX(a *uint64, n int, k, ks *uint64, c *[18]uint64, q uint64)
// Per group of 64 entries (8 blocks of 8): the last three forward stages
// (h = 4, 2, 1), the pointwise product with the kernel k (with Shoup
// companions ks) and the first three inverse stages (h = 1, 2, 4). The
// group is transposed so that each register holds one position of all 8
// blocks; the kernel is stored in that transposed layout. [0, 2q) in,
// [0, 4q) out. c = forward then inverse twiddles, as LOADTW reads them.
TEXT ·middleAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ k+16(FP), R9
	MOVQ ks+24(FP), R10
	MOVQ c+32(FP), R8
	MOVQ q+40(FP), AX
	SETUP_Q
	LEAQ 72(R8), R11

mloop:
	VMOVDQU64 0(DI), Z0
	VMOVDQU64 64(DI), Z1
	VMOVDQU64 128(DI), Z2
	VMOVDQU64 192(DI), Z3
	VMOVDQU64 256(DI), Z4
	VMOVDQU64 320(DI), Z5
	VMOVDQU64 384(DI), Z6
	VMOVDQU64 448(DI), Z7
	TRANSPOSE8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	LOADTW(R8)
	// Forward h = 4: (0,4) w=1, (1,5) ω^(N/8), (2,6) ω^(N/4), (3,7) ω^(3N/8).
	GS1(Z8, Z12, Z0, Z1)
	GS(Z9, Z13, Z20, Z21, Z22, Z0, Z1, Z2)
	GS(Z10, Z14, Z23, Z24, Z25, Z0, Z1, Z2)
	GS(Z11, Z15, Z26, Z27, Z28, Z0, Z1, Z2)
	// Forward h = 2: (0,2), (4,6) w=1; (1,3), (5,7) ω^(N/4).
	GS1(Z8, Z10, Z0, Z1)
	GS(Z9, Z11, Z23, Z24, Z25, Z0, Z1, Z2)
	GS1(Z12, Z14, Z0, Z1)
	GS(Z13, Z15, Z23, Z24, Z25, Z0, Z1, Z2)
	// Forward h = 1: w = 1.
	GS1(Z8, Z9, Z0, Z1)
	GS1(Z10, Z11, Z0, Z1)
	GS1(Z12, Z13, Z0, Z1)
	GS1(Z14, Z15, Z0, Z1)
	// Pointwise product with the kernel.
	KMUL(Z8, 0)
	KMUL(Z9, 64)
	KMUL(Z10, 128)
	KMUL(Z11, 192)
	KMUL(Z12, 256)
	KMUL(Z13, 320)
	KMUL(Z14, 384)
	KMUL(Z15, 448)
	LOADTW(R11)
	// Inverse h = 1: w = 1.
	CT1(Z8, Z9, Z0, Z1)
	CT1(Z10, Z11, Z0, Z1)
	CT1(Z12, Z13, Z0, Z1)
	CT1(Z14, Z15, Z0, Z1)
	// Inverse h = 2: (0,2), (4,6) w=1; (1,3), (5,7) ω^(-N/4).
	CT1(Z8, Z10, Z0, Z1)
	CT(Z9, Z11, Z23, Z24, Z25, Z0, Z1, Z2)
	CT1(Z12, Z14, Z0, Z1)
	CT(Z13, Z15, Z23, Z24, Z25, Z0, Z1, Z2)
	// Inverse h = 4.
	CT1(Z8, Z12, Z0, Z1)
	CT(Z9, Z13, Z20, Z21, Z22, Z0, Z1, Z2)
	CT(Z10, Z14, Z23, Z24, Z25, Z0, Z1, Z2)
	CT(Z11, Z15, Z26, Z27, Z28, Z0, Z1, Z2)
	TRANSPOSE8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z4, 256(DI)
	VMOVDQU64 Z5, 320(DI)
	VMOVDQU64 Z6, 384(DI)
	VMOVDQU64 Z7, 448(DI)
	ADDQ $512, DI
	ADDQ $512, R9
	ADDQ $512, R10
	SUBQ $64, CX
	JNZ  mloop
	VZEROUPPER
	RET

// ---- RNS kernels: products of two arbitrary residues, base conversion ----

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

// func gatherSubAVX(src *uint64, idx *uint32, out *uint64, n int, c, q uint64)
// out[k] = src[idx[k]] - c mod q for src entries and c in [0, q) (c = 0:
// a plain gather); n a multiple of 8. The permutations around the Rader
// convolution.
TEXT ·gatherSubAVX(SB), NOSPLIT, $0-48
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

// func subScalarAVX(a, out *uint64, n int, c, q uint64)
// out = a - c mod q for a, c in [0, q); n a multiple of 8.
TEXT ·subScalarAVX(SB), NOSPLIT, $0-40
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

// func sumModAVX(a *uint64, n int, q uint64) [8]uint64
// Eight lane sums of a (entries in [0, q)), each reduced mod q; n a
// multiple of 8.
TEXT ·sumModAVX(SB), NOSPLIT, $0-88
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

// func reverseAVX(src, dst *uint64, n int, idx *[8]uint64)
// dst[l] = src[n-l] for l in [8, n), by blocks of 8 read forwards and
// permuted with idx = {7, 6, ..., 0}; n a multiple of 8, dst != src.
TEXT ·reverseAVX(SB), NOSPLIT, $0-32
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
