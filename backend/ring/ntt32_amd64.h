// Macros shared by the NTT32 AVX-512F kernels (ntt32_amd64.s,
// ntt32_inv_amd64.s): 16 uint32 lanes per ZMM register. The Harvey kernels
// follow the radix-2 reference butterflies exactly (same twiddles, same lazy
// ranges, same final reductions), so every output, Lazy ones included,
// agrees bit for bit (TestNTT32VectorExact).
//
// The Shoup product T = Y·W - floor(Y·W'/2^32)·Q (mod 2^32) per lane:
// VPMULUDQ multiplies the even dword of each qword, so the quotient estimate
// is formed from the even products (whose high dwords are moved down into
// the even lanes by one VPSHUFD merged under K2 = 0x5555) and the odd
// products (whose high dwords already sit in the odd lanes); the two low
// products are VPMULLD. On Zen 4 the multiplies share one 512-bit port, so
// the product costs 4 multiply slots and 3 other ops.
//
// Register conventions: Z30 = Q, Z31 = 2Q, K2 = even-lane mask 0x5555.

// SHOUP_B: Z_out = Y·W mod Q in [0, 2Q), W/WS in registers with the same
// value in both dwords of each qword. Clobbers T1, T2.
#define SHOUP_B(Y, W, WS, OUT, T1, T2) \
	VPMULUDQ WS, Y, T1 \
	VPSRLQ   $32, Y, T2 \
	VPMULUDQ WS, T2, T2 \
	VPSHUFD  $0xf5, T1, K2, T2 \
	VPMULLD  W, Y, OUT \
	VPMULLD  Z30, T2, T2 \
	VPSUBD   T2, OUT, OUT

// CT: Cooley–Tukey butterfly in place on X, Y with T = Shoup product of Y
// already in T: X = min(X, X-2Q); (X, Y) = (X+T, X-T+2Q). Clobbers TMP.
#define CT(X, Y, T, TMP) \
	VPSUBD  Z31, X, TMP \
	VPMINUD TMP, X, X \
	VPSUBD  T, X, Y \
	VPADDD  Z31, Y, Y \
	VPADDD  T, X, X

// GS_PRE: Gentleman–Sande sum and difference: S = min(X+Y, X+Y-2Q) into X,
// D = X-Y+2Q into D.
#define GS_PRE(X, Y, D, TMP) \
	VPSUBD  Y, X, D \
	VPADDD  Z31, D, D \
	VPADDD  Y, X, X \
	VPSUBD  Z31, X, TMP \
	VPMINUD TMP, X, X

// REDUCE2: X in [0, 4Q) -> [0, 2Q), then subtract Z29 if that leaves a
// smaller value (Z29 = Q for full reduction, all ones for lazy).
#define REDUCE2(X, TMP) \
	VPSUBD  Z31, X, TMP \
	VPMINUD TMP, X, X \
	VPSUBD  Z29, X, TMP \
	VPMINUD TMP, X, X

#define SETUP_Q \
	VPBROADCASTD AX, Z30 \
	VPADDD Z30, Z30, Z31 \
	MOVL $0x5555, AX \
	KMOVW AX, K2 \
	MOVL $0xaaaa, AX \
	KMOVW AX, K3

// CT_NR: Cooley–Tukey butterfly without Harvey's reduction of X (the
// noXRed kernels): (X, Y) = (X+T, X-T+2Q). Entries grow by less than 2Q per
// stage, which (2·log2(N)+4)·Q <= 2^32 keeps below 2^32.
#define CT_NR(X, Y, T) \
	VPSUBD  T, X, Y \
	VPADDD  Z31, Y, Y \
	VPADDD  T, X, X

// BARRETT_V: X (any uint32) -> X - floor(X·br/2^32)·Q in [0, 2Q), br =
// floor(2^32/Q) broadcast in BR. Clobbers T1, T2.
#define BARRETT_V(X, BR, T1, T2) \
	VPMULUDQ BR, X, T1 \
	VPSRLQ   $32, X, T2 \
	VPMULUDQ BR, T2, T2 \
	VPSHUFD  $0xf5, T1, K2, T2 \
	VPMULLD  Z30, T2, T2 \
	VPSUBD   T2, X, X

// REDUCE2Q: X in [0, 4Q) -> [0, Q). Clobbers TMP.
#define REDUCE2Q(X, TMP) \
	VPSUBD  Z31, X, TMP \
	VPMINUD TMP, X, X \
	VPSUBD  Z30, X, TMP \
	VPMINUD TMP, X, X

// XRED4: Harvey's reduction of four butterfly inputs X to [0, 2Q).
// Clobbers T0, T1.
#define XRED4(A, B, C, D, T0, T1) \
	VPSUBD  Z31, A, T0 \
	VPSUBD  Z31, B, T1 \
	VPMINUD T0, A, A \
	VPMINUD T1, B, B \
	VPSUBD  Z31, C, T0 \
	VPSUBD  Z31, D, T1 \
	VPMINUD T0, C, C \
	VPMINUD T1, D, D

// SHOUP_BC: SHOUP_B with W and WS taken from memory by embedded broadcast
// (WP, WSP: addresses of one twiddle and its companion; VPMULUDQ broadcasts
// the qword at WSP, whose even dword is WS). Clobbers T1, T2.
#define SHOUP_BC(Y, WP, WSP, OUT, T1, T2) \
	VPMULUDQ.BCST WSP, Y, T1 \
	VPSRLQ   $32, Y, T2 \
	VPMULUDQ.BCST WSP, T2, T2 \
	VPSHUFD  $0xf5, T1, K2, T2 \
	VPMULLD.BCST WP, Y, OUT \
	VPMULLD  Z30, T2, T2 \
	VPSUBD   T2, OUT, OUT

// SHOUP_VM: the Shoup product with 16 per-lane twiddles at WP and their
// companions at WSP in memory; the odd lanes' companions are shifted down
// for their VPMULUDQ. Clobbers T1-T3.
#define SHOUP_VM(Y, WP, WSP, OUT, T1, T2, T3) \
	VPMULUDQ WSP, Y, T1 \
	VPSRLQ   $32, Y, T2 \
	VPSRLQ   $32, WSP, T3 \
	VPMULUDQ T3, T2, T2 \
	VPSHUFD  $0xf5, T1, K2, T2 \
	VPMULLD  WP, Y, OUT \
	VPMULLD  Z30, T2, T2 \
	VPSUBD   T2, OUT, OUT

// PERM2M: (X, Y) = the two halves of a 32-lane permutation of (X, Y) with
// the VPERMI2D index vectors at I0, I1 in memory (the index operand is
// overwritten, so it is loaded afresh). Clobbers T0, T1.
#define PERM2M(X, Y, I0, I1, T0, T1) \
	VMOVDQU32 I0, T0 \
	VPERMI2D  Y, X, T0 \
	VMOVDQU32 I1, T1 \
	VPERMI2D  Y, X, T1 \
	VMOVDQA32 T0, X \
	VMOVDQA32 T1, Y

// SWAPL0, SWAPL1, SWAPL3 (X, Y, T): exchange the register bit of a chunk
// (X = reg 0, Y = reg 1) with lane bit 0, 1 or 3, i.e. the layout changes
// L1 <-> L0, L2 <-> L1 and natural <-> L3 (avx_layout.go), each its own
// inverse. They replace PERM2M there: two merged VPSHUFD, the VPUNPCK*QDQ
// pair or two VSHUFI64X2 instead of two VPERMI2D and their index loads.
// SWAPL0 needs K2 = even lanes, K3 = odd lanes (SETUP_Q). Clobber T.
// (L3 <-> L2, lane bit 2, by two merged VSHUFI64X2 measured no faster than
// PERM2M and is not used.)
#define SWAPL0(X, Y, T) \
	VMOVDQA32 X, T \
	VPSHUFD   $0xa0, Y, K3, X \
	VPSHUFD   $0xf5, T, K2, Y

#define SWAPL1(X, Y, T) \
	VPUNPCKHQDQ Y, X, T \
	VPUNPCKLQDQ Y, X, X \
	VMOVDQA32   T, Y

#define SWAPL3(X, Y, T) \
	VSHUFI64X2 $0xee, Y, X, T \
	VSHUFI64X2 $0x44, Y, X, X \
	VMOVDQA32  T, Y

// SHOUP_BM: SHOUP_B with the per-lane twiddles at WP and companions at WSP
// in memory (lanes 2j, 2j+1 share a twiddle, so no companion shift).
// Clobbers T1, T2.
#define SHOUP_BM(Y, WP, WSP, OUT, T1, T2) \
	VPMULUDQ WSP, Y, T1 \
	VPSRLQ   $32, Y, T2 \
	VPMULUDQ WSP, T2, T2 \
	VPSHUFD  $0xf5, T1, K2, T2 \
	VPMULLD  WP, Y, OUT \
	VPMULLD  Z30, T2, T2 \
	VPSUBD   T2, OUT, OUT
