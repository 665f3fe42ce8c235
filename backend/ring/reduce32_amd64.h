// Reduction macros shared by the Modulus32 pointwise kernels
// (pointwise32_amd64.s) and the RNS2 kernels (rns2_amd64.s,
// rns2_fused_amd64.s, rns2_fused2_amd64.s). Constants in registers:
// Z24 = Q, Z25 = 2Q, Z26 = R = 2^32 mod Q, Z27 = R' = floor(R·2^32/Q), Z28 = br =
// floor(2^32/Q), Z29 = 0xffffffff (Modulus32.vecConst); BARRETT32 also
// Z22 = b-1 and Z23 = mu = floor(2^(b+31)/Q) for Q < 2^b.

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

// BARRETT32: X (8 x uint64, X < 2^(31+b) for Q < 2^b) -> X mod Q in
// [0, Q). q = ((X >> (b-1))·mu) >> 32 underestimates floor(X/Q) by at most
// 2, so X - q·Q is in [0, 3Q) and two conditional subtractions (of 2Q,
// then Q) finish. Half the work of REDUCE64. Clobbers T.
#define BARRETT32(X, T) \
	VPSRLVQ  Z22, X, T \
	VPMULUDQ Z23, T, T \
	VPSRLQ   $32, T, T \
	VPMULUDQ Z24, T, T \
	VPSUBQ   T, X, X \
	VPSUBQ   Z25, X, T \
	VPMINUQ  T, X, X \
	VPSUBQ   Z24, X, T \
	VPMINUQ  T, X, X

// The DotRowsMono2 kernels' reductions (rns2_fused_amd64.s,
// rns2_fused2_amd64.s; Z31 = b-2 for BARRETT1).

// LAZYBAR(X, T): X (< 2^(31+b)) -> X - q·Q in [0, 3Q), BARRETT32 without
// its two conditional subtractions: the sums only feed a product with a
// monomial (or more digits' products), whose result the final BARRETT1
// reduces fully (the caller checked (Q-1) + 2(Q-1)(3Q-1) < 2^(30+b)).
#define LAZYBAR(X, T) \
	VPSRLVQ  Z22, X, T \
	VPMULUDQ Z23, T, T \
	VPSRLQ   $32, T, T \
	VPMULUDQ Z24, T, T \
	VPSUBQ   T, X, X

// BARRETT1(X, T): X (< 2^(30+b)) -> X mod Q in [0, Q) with one
// conditional subtraction: q = ((X >> (b-2))·mu) >> 33 (Z31 = b-2, the
// same mu = floor(2^(b+31)/Q)) misses floor(X/Q) by at most 1, since
// 2^(b-2)/Q < 1/2 and X/2^(b+31) < 1/2 (BARRETT32's q, from X >> (b-1),
// misses by up to 2 and needs two).
#define BARRETT1(X, T) \
	VPSRLVQ  Z31, X, T \
	VPMULUDQ Z23, T, T \
	VPSRLQ   $33, T, T \
	VPMULUDQ Z24, T, T \
	VPSUBQ   T, X, X \
	VPSUBQ   Z24, X, T \
	VPMINUQ  T, X, X
