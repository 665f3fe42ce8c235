// Package ring is hcc's shared lattice arithmetic: modular arithmetic for
// NTT-friendly primes and the negacyclic number-theoretic transform over
// Z_Q[X]/(X^N + 1), used by backend/fhew (32-bit, Q < 2^30) and backend/bgv
// (64-bit, Q < 2^61).
//
// # Two widths, one shape
//
// Modulus32/NTT32 work on []uint32 polynomials and need Q < 2^30, so that the
// lazy ranges [0, 2Q) and [0, 4Q) of Harvey's butterflies fit a uint32 and a
// product of two residues fits a uint64. Modulus64/NTT64 work on []uint64 and
// need Q < 2^61 (4Q < 2^64 for the lazy butterflies). Both expose the same
// method set; the 32-bit one is the FHEW hot path and is tuned for it.
//
// # Domains
//
// A polynomial a = Σ a_i X^i is held in the coefficient domain as the slice
// (a_0, ..., a_{N-1}) with every a_i in [0, Q). Forward maps it to the NTT
// (evaluation) domain, where multiplication in Z_Q[X]/(X^N+1) is the
// slot-wise product (MulCoeffs). Unless a function says otherwise, inputs and
// outputs are fully reduced, i.e. in [0, Q); functions with the Lazy suffix
// document their wider ranges.
//
// # NTT slot order
//
// Let ψ = NTT.Psi, the primitive 2N-th root of unity chosen by PrimitiveRoot
// (deterministic for a given (Q, N), so NTT-domain keys are portable), and let
// brv(k) be the reversal of the log2(N) low bits of k. Forward is a
// Cooley–Tukey transform that reads natural order and writes bit-reversed
// order, so
//
//	Forward(a)[k] = a(ψ^(2·brv(k)+1)),  k = 0..N-1.
//
// Inverse is the Gentleman–Sande transform that reads this order back and
// writes natural order; it folds the N^-1 scaling into its last stage. There
// is no separate bit-reversal pass.
//
// # Automorphisms
//
// The automorphism X -> X^t (t odd) maps slot exponents e -> e·t mod 2N, so in
// the NTT domain it is the permutation out[k] = in[AutomorphismNTTIndex(N,t)[k]]
// (see AutomorphismNTT). In the coefficient domain it moves a_i to position
// i·t mod 2N with a sign flip when that position is >= N (AutomorphismCoeff).
//
// # Kernels and speed
//
// On amd64 CPUs with AVX-512F (detected at start-up with golang.org/x/sys/cpu)
// NTT32's transforms for N >= 128 and Modulus32's MulCoeffs, MulCoeffsAdd,
// MulCoeffsAddLazy, ReduceLazy and DecomposeSigned run vector kernels written
// in assembly;
// elsewhere, or when built with -tags purego, pure-Go kernels run instead.
// Fully reduced results are identical bit for bit on both paths (tested);
// Lazy results agree modulo Q and stay in the documented range but may be a
// different representative (the vector kernels' Lazy outputs are those of
// the radix-2 Harvey reference). The pure-Go NTT runs two stages per pass
// (radix-4); both paths skip Harvey's reduction of the upper butterfly
// input in Forward when (2·log2(N)+4)·Q <= 2^32 (27-bit Q with N <= 2048),
// the vector path for fully reduced outputs only. docs/ring-kernels.md
// describes the vector kernels and their measurements.
//
// # RNS2
//
// RNS2 is Z_Q[X]/(X^N+1) for Q = Q0·Q1, two NTT32 primes (circuit
// bootstrapping needs log Q ≈ 54 at N = 2048, too wide for one 30-bit
// prime). A Poly2 holds the two residue polynomials; every ring operation
// runs per prime on NTT32/Modulus32. Only Centered and Decompose, which
// need the integer value of a coefficient, recombine the residues (Garner's
// CRT in 64-bit arithmetic). Decompose is fused: one pass per coefficient
// from residues to signed gadget digits, 16 coefficients per iteration in
// an AVX-512F kernel. DotRows, the external-product accumulation, keeps both
// uint64 sums in registers across all digits (lazy: one reduction per
// output slot). NewPoly and NewPolys stagger the residue slices modulo
// 4 KiB, so that DotRows's many operand streams do not share L1 cache sets.
//
// # Prime cyclotomics (BGV)
//
// For Z_p[X]/Φ_m(X) with m an odd prime, the evaluation domain is the m - 1
// primitive m-th roots of unity. RaderPlan/RaderNTT compute that transform
// as a cyclic convolution of length m - 1 (Rader), carried out by
// CyclicNTT64 (directly when m - 1 is a power of two, as for m = 65537, or
// padded to a power of two through one or two auxiliary primes otherwise).
// CyclicNTT64 and the permutations around it have AVX-512F/DQ kernels
// (8 lanes of uint64, the Shoup high word estimated from VPMULUDQ products)
// with the same pure-Go fallback rule as above. GeneratePrimes,
// PrimeFactors, SmallestGenerator and MultiplicativeOrder are the number
// theory the BGV parameters need.
//
// # Hot loops
//
// Kernels write into a caller-given output (output argument last), take no
// hidden scratch, and allocate nothing. Tables (twiddles with Shoup
// companions, automorphism indices) are precomputed once; all types are
// immutable after construction and safe for concurrent use.
package ring
