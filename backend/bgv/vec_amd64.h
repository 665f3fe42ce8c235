// Macros of rns_amd64.s, the AVX-512F/DQ kernels of the RNS loops (rns.go,
// keyswitch.go, ring.go): 8 uint64 lanes per ZMM register, moduli q < 2^61.
// backend/ring's cyclic64_amd64.h has the same MULSHOUP for the transforms
// (the cyclic convolution and the Rader permutations around it).
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

#define SETUP_Q \
	VPBROADCASTQ AX, Z30 \
	VPADDQ       Z30, Z30, Z31
