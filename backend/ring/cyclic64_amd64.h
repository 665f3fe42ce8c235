// Macros of cyclic64_amd64.s, the AVX-512F/DQ kernels of CyclicNTT64
// (cyclic64.go): 8 uint64 lanes per ZMM register, moduli q < 2^61.
// backend/bgv's RNS kernels (rns_amd64.s there) use the same MULSHOUP.
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
