// Package cbs is hcc's wide-table engine for FHEW-style bits: circuit
// bootstrapping (an LWE bit becomes an RGSW encryption of the same bit) and
// vertical packing (a k-input, m-output table is a CMux tree on those RGSW
// ciphertexts), over a two-prime RNS ring of degree N = 2048.
//
// A bit between tables is a "wide bit": an LWE ciphertext of dimension N
// modulo Q = Q0·Q1 under the ring key z, message b·round(Q/2). XOR and NOT
// are additions (free linear layers). Circuit bootstrapping takes a XOR of
// wide bits, switches it to the small LWE key s (dimension n, modulus
// Q_ks), blind-rotates a test polynomial with ℓ_c windows (GINX, ternary s),
// isolates each window's constant coefficient with the homomorphic trace
// and builds the z-rows of the RGSW ciphertext by a scheme switch (key
// RLWE'(z²)); the approach is that of Wang, Wang, Luo, Ling and Yang,
// "Circuit Bootstrapping: Faster and Smaller", Eurocrypt 2024. The engine is
// self-contained: its keys are its own, not those of package fhew.
package cbs

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Gadget is a signed gadget decomposition: a centred value x is rounded to a
// multiple of 2^Drop and written as Σ_j d_j·2^(Drop + j·LogB), d_j in
// [-B/2, B/2), j = 0..Digits-1 (ring.RNS2.Decompose's convention).
type Gadget struct {
	// LogB is log2 of the base B.
	LogB int
	// Digits is the number of digits ℓ.
	Digits int
	// Drop is the number of low bits rounded away (approximate
	// decomposition); 0 is exact.
	Drop int
}

// String formats the gadget as "B=2^LogB x Digits (drop Drop)".
func (g Gadget) String() string {
	return fmt.Sprintf("B=2^%d x %d (drop %d)", g.LogB, g.Digits, g.Drop)
}

// ParamsLiteral is the plain, unchecked description of a parameter set;
// NewParams validates it.
type ParamsLiteral struct {
	// Name identifies the set.
	Name string
	// LogN is log2 of the ring degree N (the wide-bit dimension).
	LogN int
	// Q0, Q1 are the two NTT primes of the ring modulus Q = Q0·Q1
	// (Qi ≡ 1 mod 2N, Qi < 2^30, distinct).
	Q0, Q1 uint32
	// Sigma is the standard deviation of every error.
	Sigma float64
	// LWEDim is n, the dimension of the small LWE key s the blind rotation
	// runs on (ternary).
	LWEDim int
	// LogQKS is log2 of Q_ks, the modulus of the LWE key switch z -> s.
	LogQKS int
	// LogBKS is log2 of the LWE key-switching base B_ks; the digits are
	// signed and one row is stored per digit magnitude 1..B_ks/2, so the
	// key has N·d_ks·B_ks/2 rows.
	LogBKS int
	// BR is the gadget of the blind-rotation keys.
	BR Gadget
	// Trace is the gadget of the trace and scheme-switch key switches.
	Trace Gadget
	// CBS is the gadget of the output RGSW ciphertexts; CBS.Digits = ℓ_c is
	// also the number of windows of the CBS test polynomial.
	CBS Gadget
	// Insecure marks toy sets (NewParams refuses them; NewParamsInsecure
	// accepts them, for tests).
	Insecure bool
	// Security is the set's security statement with its source.
	Security string
}

// Named parameter sets.
var (
	// STD128_CBS is the 128-bit set. Ring: N = 2048, Q = 134176769 ·
	// 134111233 (the two largest primes < 2^27 that are ≡ 1 mod 4096;
	// Q < 2^54), ternary z, σ = 3.19: the HE standard's 128-bit bound at
	// N = 2048 for ternary secrets is log Q ≤ 54 (Albrecht et al.,
	// "Homomorphic Encryption Standard", 2018, table for uniform ternary
	// secrets). LWE: ternary s, n = 556, Q_ks = 2^15 = OpenFHE v1.5.1's
	// STD128 (the LWE part of fhew's STD128_GINX), rated 128-bit by
	// OpenFHE; B_ks = 2^5 (three digits). The gadgets are noise/cost
	// choices, not security parameters (docs/fhew-cbs.md has the noise
	// budget). The trace and scheme-switch keys encrypt τ(z) and z² under
	// z (the usual circular assumption of automorphism-based bootstraps).
	STD128_CBS = ParamsLiteral{
		Name: "STD128_CBS", LogN: 11, Q0: 134176769, Q1: 134111233, Sigma: 3.19,
		LWEDim: 556, LogQKS: 15, LogBKS: 5,
		BR:    Gadget{LogB: 17, Digits: 2, Drop: 21},
		Trace: Gadget{LogB: 11, Digits: 5, Drop: 0},
		CBS:   Gadget{LogB: 9, Digits: 2, Drop: 37},
		Security: "128 bits: ring N = 2048, log Q = 54 = the HE standard's 128-bit bound (ternary, σ = 3.19); " +
			"LWE part = OpenFHE v1.5.1 STD128 (n = 556, Q_ks = 2^15, ternary)",
	}
	// STD128_CBS_595 is STD128_CBS with the LWE part of fhew's default set
	// STD128_LOWFAIL_T (OpenFHE v1.5.1 STD128_3: ternary n = 595,
	// Q_ks = 2^16) and B_ks = 2^4, as the design sketch proposed: less
	// key-switching noise, 7 % more blind rotation.
	STD128_CBS_595 = ParamsLiteral{
		Name: "STD128_CBS_595", LogN: 11, Q0: 134176769, Q1: 134111233, Sigma: 3.19,
		LWEDim: 595, LogQKS: 16, LogBKS: 4,
		BR:    Gadget{LogB: 17, Digits: 2, Drop: 21},
		Trace: Gadget{LogB: 11, Digits: 5, Drop: 0},
		CBS:   Gadget{LogB: 9, Digits: 2, Drop: 37},
		Security: "128 bits: ring N = 2048, log Q = 54 = the HE standard's 128-bit bound (ternary, σ = 3.19); " +
			"LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary)",
	}
	// STD128_CBS_T is STD128_CBS with the LWE part of fhew's STD128_T
	// (OpenFHE v1.5.1 STD128_LMKCDEY: ternary n = 581, Q_ks = 2^15) and
	// B_ks = 2^5: the circuit-bootstrapping half of fhew's gate sets with a
	// shared-select CMux, whose gate bootstrap and circuit bootstrap run on
	// one LWE key s (gate mode: CBSFromLWE, Lift, CMux; gate.go).
	STD128_CBS_T = ParamsLiteral{
		Name: "STD128_CBS_T", LogN: 11, Q0: 134176769, Q1: 134111233, Sigma: 3.19,
		LWEDim: 581, LogQKS: 15, LogBKS: 5,
		BR:    Gadget{LogB: 17, Digits: 2, Drop: 21},
		Trace: Gadget{LogB: 11, Digits: 5, Drop: 0},
		CBS:   Gadget{LogB: 9, Digits: 2, Drop: 37},
		Security: "128 bits: ring N = 2048, log Q = 54 = the HE standard's 128-bit bound (ternary, σ = 3.19); " +
			"LWE part = OpenFHE v1.5.1 STD128_LMKCDEY (n = 581, Q_ks = 2^15, ternary)",
	}
	// ToyCBS is a fast insecure set for tests: N = 512 with the same primes,
	// n = 64, Q_ks = 2^14. Its noise is below STD128_CBS's in every stage,
	// so tests decrypt reliably.
	ToyCBS = ParamsLiteral{
		Name: "ToyCBS", LogN: 9, Q0: 134176769, Q1: 134111233, Sigma: 3.19,
		LWEDim: 64, LogQKS: 14, LogBKS: 2,
		BR:       Gadget{LogB: 17, Digits: 2, Drop: 21},
		Trace:    Gadget{LogB: 7, Digits: 8, Drop: 0},
		CBS:      Gadget{LogB: 9, Digits: 2, Drop: 37},
		Insecure: true, Security: "insecure (toy, tests only)",
	}
	// ToyCBS3 is ToyCBS with three CBS levels (windows), to test ℓ_c = 3.
	ToyCBS3 = ParamsLiteral{
		Name: "ToyCBS3", LogN: 9, Q0: 134176769, Q1: 134111233, Sigma: 3.19,
		LWEDim: 64, LogQKS: 14, LogBKS: 2,
		BR:       Gadget{LogB: 17, Digits: 2, Drop: 21},
		Trace:    Gadget{LogB: 7, Digits: 8, Drop: 0},
		CBS:      Gadget{LogB: 6, Digits: 3, Drop: 37},
		Insecure: true, Security: "insecure (toy, tests only)",
	}
)

// ErrInsecure reports an insecure (toy) set given to NewParams.
var ErrInsecure = errors.New("cbs: insecure parameter set (use NewParamsInsecure in tests)")

// Params is a validated, immutable parameter set.
type Params struct {
	lit   ParamsLiteral
	ring  *ring.RNS2
	ringN int    // ring degree N
	ringM int    // 2N, the blind rotation's modulus
	q     uint64 // Q0·Q1
	logQ  int    // bit length of Q
	qks   int    // 2^LogQKS
	digKS int    // digits of the LWE key switch
	// window is the spacing of the CBS test polynomial's windows, half
	// their half-width (the phase error bound, exclusive).
	window, half int

	traceConst, traceEnergy float64 // traceGains(LogN)
}

// N returns the ring degree (the wide-bit dimension).
func (p Params) N() int { return p.ringN }

// Q returns the ring modulus Q = Q0·Q1.
func (p Params) Q() uint64 { return p.q }

// NewParams validates lit; insecure sets are refused.
func NewParams(lit ParamsLiteral) (Params, error) {
	if lit.Insecure {
		return Params{}, fmt.Errorf("%w: %s", ErrInsecure, lit.Name)
	}
	return newParams(lit)
}

// NewParamsInsecure validates lit and accepts insecure (toy) sets.
func NewParamsInsecure(lit ParamsLiteral) (Params, error) { return newParams(lit) }

func newParams(l ParamsLiteral) (Params, error) {
	bad := func(format string, a ...any) (Params, error) {
		return Params{}, fmt.Errorf("cbs: parameter set %q: "+format, append([]any{l.Name}, a...)...)
	}
	if l.LogN < 4 || l.LogN > 12 {
		return bad("LogN = %d outside [4, 12]", l.LogN)
	}
	N := 1 << l.LogN
	for _, q := range []uint32{l.Q0, l.Q1} {
		if q >= 1<<30 || !ring.IsPrime(uint64(q)) || uint64(q)%uint64(2*N) != 1 {
			return bad("Q_i = %d is not a prime < 2^30 with Q_i ≡ 1 mod 2N", q)
		}
	}
	if l.Q0 == l.Q1 {
		return bad("Q0 = Q1")
	}
	if !(l.Sigma > 0 && l.Sigma < 100) {
		return bad("sigma %v outside (0, 100)", l.Sigma)
	}
	if l.LWEDim < 1 || l.LWEDim > 4096 {
		return bad("LWE dimension %d outside [1, 4096]", l.LWEDim)
	}
	if l.LogQKS < l.LogN+1 || l.LogQKS > 16 {
		return bad("log Q_ks = %d outside [log 2N, 16]", l.LogQKS)
	}
	if l.LogBKS < 1 || l.LogBKS > 8 {
		return bad("log B_ks = %d outside [1, 8]", l.LogBKS)
	}
	Q := uint64(l.Q0) * uint64(l.Q1)
	logQ := bits.Len64(Q)
	for _, g := range []struct {
		name string
		g    Gadget
	}{{"BR", l.BR}, {"Trace", l.Trace}, {"CBS", l.CBS}} {
		if g.g.LogB < 1 || g.g.LogB > 30 || g.g.Digits < 1 || g.g.Drop < 0 {
			return bad("%s gadget %v invalid", g.name, g.g)
		}
		if g.g.Drop+g.g.Digits*g.g.LogB < logQ+1 || g.g.Drop+(g.g.Digits-1)*g.g.LogB >= logQ {
			return bad("%s gadget %v does not cover log Q + 1 = %d bits with every digit below Q", g.name, g.g, logQ+1)
		}
	}
	if l.CBS.Drop < 1 {
		return bad("CBS gadget needs Drop >= 1 (the test polynomial holds g_j/2)")
	}
	r, err := ring.NewRNS2(N, l.Q0, l.Q1)
	if err != nil {
		return bad("%v", err)
	}
	for _, g := range []Gadget{l.BR, l.Trace, l.CBS} {
		if err := r.CheckDecompose(g.LogB, g.Digits, g.Drop); err != nil {
			return bad("%v", err)
		}
	}
	if l.Trace.Digits > maxDigits || l.BR.Digits > maxDigits || 2*l.CBS.Digits > 2*maxDigits {
		return bad("more than %d digits in a gadget", maxDigits)
	}
	w := N / l.CBS.Digits
	if w < 8 {
		return bad("%d CBS levels leave windows of %d coefficients", l.CBS.Digits, w)
	}
	p := Params{lit: l, ring: r, ringN: N, ringM: 2 * N, q: Q, logQ: logQ, qks: 1 << l.LogQKS,
		digKS: (l.LogQKS + l.LogBKS - 1) / l.LogBKS, window: w, half: w / 2}
	p.traceConst, p.traceEnergy = traceGains(l.LogN)
	return p, nil
}

// Literal returns the set's description.
func (p Params) Literal() ParamsLiteral { return p.lit }

// Name returns the set's name.
func (p Params) Name() string { return p.lit.Name }

// LWEDim returns n, the small LWE dimension.
func (p Params) LWEDim() int { return p.lit.LWEDim }

// Levels returns ℓ_c, the number of gadget levels of a CBS output.
func (p Params) Levels() int { return p.lit.CBS.Digits }

// WindowHalfWidth returns the phase-error bound (in units of 1/2N) below
// which a circuit bootstrap is correct.
func (p Params) WindowHalfWidth() int { return p.half }

// Delta returns round(Q/2), the encoding of a 1 bit.
func (p Params) Delta() uint64 { return (p.q + 1) / 2 }

// gadgetValue returns g_j = 2^(Drop + j·LogB) mod Q.
func (p Params) gadgetValue(g Gadget, j int) uint64 {
	return (uint64(1) << uint(g.Drop+j*g.LogB)) % p.q
}

// maxDigits bounds every gadget's digit count (scratch sizes).
const maxDigits = 12

// Ring returns the set's RNS ring (immutable, shared).
func (p Params) Ring() *ring.RNS2 { return p.ring }

// valid reports whether p came from NewParams (the zero Params is not).
func (p Params) valid() bool { return p.ringN != 0 }

// namedSets lists the predefined sets (128-bit first, then toys).
var namedSets = []ParamsLiteral{STD128_CBS, STD128_CBS_595, STD128_CBS_T, ToyCBS, ToyCBS3}

// Names returns the names of the predefined 128-bit sets (the default,
// STD128_CBS, first).
func Names() []string { return []string{STD128_CBS.Name, STD128_CBS_595.Name, STD128_CBS_T.Name} }

// ParamsByName builds a predefined set; insecure (toy) sets need
// allowInsecure.
func ParamsByName(name string, allowInsecure bool) (Params, error) {
	for _, l := range namedSets {
		if l.Name == name {
			if allowInsecure {
				return NewParamsInsecure(l)
			}
			return NewParams(l)
		}
	}
	return Params{}, fmt.Errorf("cbs: unknown parameter set %q (known: %v)", name, Names())
}
