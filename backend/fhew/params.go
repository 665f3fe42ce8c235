package fhew

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/backend/ring"
)

// Method selects the blind-rotation algorithm of a parameter set.
type Method uint8

const (
	// MethodSigned is the signed-key automorphism blind rotation (Algorithm 2
	// of "LMKCDEY Revisited: Speeding Up Blind Rotation with Signed
	// Evaluation Keys"): keys RGSW(X^{+s_i}) and RGSW(X^{-s_i}) and
	// automorphism keys ak_{g^u}, u in [1, w]. The default.
	MethodSigned Method = iota
	// MethodLMKCDEY is the automorphism blind rotation of Lee, Micciancio,
	// Kim, Choi, Deryabin, Eom and Yoo (eprint 2022/198; Algorithm 1 of the
	// seed paper): keys RGSW(X^{s_i}), ak_{g^u} for u in [1, w] and ak_{-g}.
	MethodLMKCDEY
	// MethodGINX is the ternary GINX/CGGI blind rotation (keys RGSW(s_i = 1)
	// and RGSW(s_i = -1)), the baseline; it needs a ternary or binary LWE
	// secret.
	MethodGINX
)

// String returns the method's name as used in parameter-set names and
// reports.
func (m Method) String() string {
	switch m {
	case MethodSigned:
		return "Signed"
	case MethodLMKCDEY:
		return "LMKCDEY"
	case MethodGINX:
		return "GINX"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// usesAutomorphisms reports whether the method rotates with ring
// automorphisms (and therefore needs odd LWE coefficients).
func (m Method) usesAutomorphisms() bool { return m == MethodSigned || m == MethodLMKCDEY }

// SecretDist is the distribution of a secret key's coefficients.
type SecretDist uint8

const (
	// SecretGaussian draws each coefficient from the rounded Gaussian with
	// the parameter set's σ (3.19 in every named set).
	SecretGaussian SecretDist = iota
	// SecretTernary draws each coefficient uniformly from {-1, 0, 1}.
	SecretTernary
	// SecretBinary draws each coefficient uniformly from {0, 1}.
	SecretBinary
)

// String names the distribution.
func (d SecretDist) String() string {
	switch d {
	case SecretGaussian:
		return "Gaussian"
	case SecretTernary:
		return "ternary"
	case SecretBinary:
		return "binary"
	}
	return fmt.Sprintf("SecretDist(%d)", uint8(d))
}

// variance returns the variance of one coefficient of the distribution.
func (d SecretDist) variance(sigma float64) float64 {
	switch d {
	case SecretGaussian:
		return sigma * sigma
	case SecretTernary:
		return 2.0 / 3.0
	default:
		return 0.5 // E[s^2] of a uniform bit; the noise terms are not centred but s^2 is what counts
	}
}

// ParamsLiteral is the plain, serialisable, unchecked description of a
// parameter set. NewParams validates it. Symbols follow the paper: an LWE
// ciphertext has dimension n, an RLWE ciphertext degree N and modulus Q.
type ParamsLiteral struct {
	// Name identifies the set (e.g. "STD128_T"); it is part of key files.
	Name string
	// Method is the blind-rotation algorithm.
	Method Method
	// LWESecret is the distribution of the n-dimensional LWE secret s.
	LWESecret SecretDist
	// RLWESecret is the distribution of the RLWE secret z (degree N).
	RLWESecret SecretDist
	// Sigma is the standard deviation of every error (and of Gaussian secrets).
	Sigma float64
	// LWEDim is n, the dimension of gate-level LWE ciphertexts.
	LWEDim int
	// LWEModulus is q, the modulus the gate's linear combination is rounded
	// to before blind rotation (a power of two dividing 2N). For the
	// automorphism methods the rounding goes to odd residues modulo 2q
	// (round-to-odd, eprint 2022/198 Section 5), which costs the same noise
	// as rounding to q, so 2q must also divide 2N (q <= N); otherwise it
	// rounds to odd residues mod 2N, with twice the rounding noise.
	LWEModulus int
	// LogN is log2 of the ring degree N.
	LogN int
	// Q is the RLWE modulus, a prime with Q ≡ 1 (mod 2N) and Q < 2^30.
	Q uint32
	// LogBg is log2 of the gadget base B_g of RGSW and automorphism keys.
	LogBg int
	// DropLowestDigit selects OpenFHE's approximate gadget decomposition:
	// the lowest base-B_g digit is rounded away and not stored in keys.
	DropLowestDigit bool
	// QKS is the modulus of LWE key switching and of gate-level ciphertexts
	// between bootstraps, a power of two in [2q, 2^16].
	QKS int
	// LogBKS is log2 of the LWE key-switching base B_ks.
	LogBKS int
	// Window is w, the number of automorphism keys ak_{g^u}, u in [1, w].
	Window int
	// Slots is the plaintext spacing P: a bit is encoded as m·Q_ks/P. P = 4
	// (the default when 0; OpenFHE's p = 4) leaves the decision margin 1/8
	// of the circle. P = 8 halves the margin but lets one bootstrap see sums
	// mod 8, enough for AND3, OR3 and any 3-input function of a weighted sum
	// (OpenFHE's STD128_3 does the same with p = 6); only sets whose noise
	// allows it should use it.
	Slots int
	// Insecure marks toy sets: NewParams refuses them unless running under
	// `go test` or the caller allows insecure sets explicitly.
	Insecure bool
	// BelowTarget marks a set kept only to reproduce a published table that
	// does not reach hcc's 128-bit security target (Security says by how
	// much). It loads like a secure set but is listed apart from the
	// 128-bit sets (ReproductionNames) and is never a default.
	BelowTarget bool
	// Security is the set's security statement with its source, as printed
	// by `hcc keygen --help` and collected in docs/params.md.
	Security string
	// CMux, if not nil, adds the shared-select CMux gadget (params_cmux.go):
	// a circuit-bootstrapping ring whose LWE part (n, Q_ks) must be this
	// set's. NewParams keeps its own copy.
	CMux *cbs.ParamsLiteral
}

// Named parameter sets. The comments say where each number comes from.
var (
	// STD128_LMKCDEY_G is Table 2 of the seed paper, i.e. OpenFHE v1.1.x's
	// STD128_LMKCDEY (OpenFHE v1.2.0 already changed it to n = 447,
	// Q_ks = 2^14, B_g = 2^10, Q 28 bits with N = 1024): Gaussian LWE secret
	// (σ = 3.19), n = 446, q = 1024, Q_ks = 8192, N = 1024, log Q = 28,
	// B_g = 2^10, B_ks = 32. The RLWE secret is ternary as in OpenFHE (its
	// ring key is always ternary). The approximate decomposition drops the
	// lowest digit (OpenFHE's LMKCDEY keys skip it). Default w = 7, the
	// paper's best window for Signed; use WithMethod(MethodLMKCDEY, 10) for
	// the paper's LMKCDEY row. Q is the largest 28-bit prime ≡ 1 mod 2048.
	//
	// Kept to reproduce the paper, it is NOT a 128-bit set: its 28-bit ring
	// modulus is above the 27 bits the HE standard allows at N = 1024 for
	// 128-bit security (ternary secret), which puts the ring part at about
	// 123 bits, and it fails about 2^-15 per gate (measured and predicted).
	STD128_LMKCDEY_G = ParamsLiteral{
		Name: "STD128_LMKCDEY_G", Method: MethodSigned,
		LWESecret: SecretGaussian, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 446, LWEModulus: 1024, LogN: 10, Q: 268369921,
		LogBg: 10, DropLowestDigit: true, QKS: 8192, LogBKS: 5, Window: 7,
		BelowTarget: true,
		Security: "below 128 bits: ring log Q = 28 > 27 (HE standard, N = 1024, ternary), about 123 bits; " +
			"LWE n = 446, Q_ks = 2^13 as OpenFHE v1.1.x rated 128-bit; paper reproduction only",
	}
	// STD128_T is OpenFHE v1.5.1's STD128_LMKCDEY: uniform ternary secrets,
	// n = 581, q = 1024, N = 1024, Q = 134215681 (27 bits), B_g = 2^9 with
	// three digits of which the lowest is dropped, Q_ks = 2^15, B_ks = 32,
	// w = 10 (OpenFHE's default number of automorphism keys).
	STD128_T = ParamsLiteral{
		Name: "STD128_T", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 581, LWEModulus: 1024, LogN: 10, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 15, LogBKS: 5, Window: 10,
		Security: "128 bits: OpenFHE v1.5.1 STD128_LMKCDEY (LWE n = 581, Q_ks = 2^15, ternary); " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
	}
	// STD128_GINX is OpenFHE v1.5.1's STD128 (the GINX baseline): ternary,
	// n = 556, q = 2048, N = 1024, Q = 134215681, B_g = 2^7 with four digits
	// of which the lowest is dropped, Q_ks = 2^15, B_ks = 32.
	STD128_GINX = ParamsLiteral{
		Name: "STD128_GINX", Method: MethodGINX,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 556, LWEModulus: 2048, LogN: 10, Q: 134215681,
		LogBg: 7, DropLowestDigit: true, QKS: 1 << 15, LogBKS: 5, Window: 10,
		Security: "128 bits: OpenFHE v1.5.1 STD128 (LWE n = 556, Q_ks = 2^15, ternary); " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
	}
	// STD128_LOWFAIL3_T is STD128_LOWFAIL_T with plaintext spacing P = 8:
	// AND3, OR3, MUX and every function of a sum of up to three inputs take
	// one bootstrap, at a predicted 2^-64 per two-input gate and 2^-60 for
	// three inputs (margin 1/16; SumFailureLog2). XOR runs on 4,4 with the
	// phase shift of parity.go (margin 1/4): 2^-286.
	STD128_LOWFAIL3_T = ParamsLiteral{
		Name: "STD128_LOWFAIL3_T", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 595, LWEModulus: 1024, LogN: 10, Q: 134215681,
		LogBg: 7, DropLowestDigit: true, QKS: 1 << 16, LogBKS: 6, Window: 10, Slots: 8,
		Security: "128 bits: LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary); " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
	}
	// STD128_LOWFAIL_T is hcc's low-failure set. Its noise is dominated by
	// the key-switching noise (N·d_ks·σ² over Q_ks²) and the round-to-odd
	// noise (n·Var(s)/3 over (2q)²), so it raises Q_ks to 2^16 and keeps
	// q = 1024: the LWE part (ternary n = 595, Q_ks = 2^16, B_ks = 64) is
	// OpenFHE v1.5.1's STD128_3, which OpenFHE rates 128-bit (OpenFHE uses
	// q = 2048 there; q only sets the public modulus switch, not the LWE
	// instance mod Q_ks that carries the security); the ring is STD128_T's
	// (N = 1024, Q = 134215681) with OpenFHE STD128_3's gadget B_g = 2^7
	// (four digits, the lowest dropped), w = 10. Predicted failure (Params.SumFailureLog2): 2^-247 for AND
	// and the other two-input gates, 2^-229 for MAJORITY, and 2^-657 for
	// XOR, which runs on 2,2 with the phase shift of parity.go (margin 1/4).
	STD128_LOWFAIL_T = ParamsLiteral{
		Name: "STD128_LOWFAIL_T", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 595, LWEModulus: 1024, LogN: 10, Q: 134215681,
		LogBg: 7, DropLowestDigit: true, QKS: 1 << 16, LogBKS: 6, Window: 10,
		Security: "128 bits: LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary); " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
	}
	// ToySigned is an insecure set for fast tests (a few ms per gate):
	// n = 64, N = 512, Q = 134215681 (27 bits, ≡ 1 mod 1024), B_g = 2^9.
	ToySigned = ParamsLiteral{
		Name: "ToySigned", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 64, LWEModulus: 512, LogN: 9, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 4, Insecure: true,
		Security: "none: toy set for tests (and --insecure) only",
	}
	// ToyGaussian is ToySigned with a Gaussian LWE secret, to exercise the
	// automorphism methods on arbitrary secrets. Insecure.
	ToyGaussian = ParamsLiteral{
		Name: "ToyGaussian", Method: MethodLMKCDEY,
		LWESecret: SecretGaussian, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 32, LWEModulus: 512, LogN: 9, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 5, Insecure: true,
		Security: "none: toy set for tests (and --insecure) only",
	}
	// ToySlots8 is ToySigned with plaintext spacing P = 8. Insecure.
	ToySlots8 = ParamsLiteral{
		Name: "ToySlots8", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 64, LWEModulus: 512, LogN: 9, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 4, Slots: 8, Insecure: true,
		Security: "none: toy set for tests (and --insecure) only",
	}
	// ToyGINX is ToySigned for the ternary GINX blind rotation. Insecure.
	ToyGINX = ParamsLiteral{
		Name: "ToyGINX", Method: MethodGINX,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 64, LWEModulus: 1024, LogN: 9, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 1, Insecure: true,
		Security: "none: toy set for tests (and --insecure) only",
	}
)

// namedSets lists the sets ParamsByName knows.
var namedSets = map[string]ParamsLiteral{
	STD128_LMKCDEY_G.Name:  STD128_LMKCDEY_G,
	STD128_T.Name:          STD128_T,
	STD128_GINX.Name:       STD128_GINX,
	STD128_LOWFAIL_T.Name:  STD128_LOWFAIL_T,
	STD128_LOWFAIL3_T.Name: STD128_LOWFAIL3_T,
	ToySlots8.Name:         ToySlots8,
	ToySigned.Name:         ToySigned,
	ToyGaussian.Name:       ToyGaussian,
	ToyGINX.Name:           ToyGINX,
}

// Params is a validated, immutable parameter set with its derived constants
// and precomputed tables. It is a small handle (the tables are shared) and
// safe to copy and to use from many goroutines.
type Params struct {
	*params
}

type params struct {
	lit ParamsLiteral

	n, N, logN int
	q          int // LWEModulus
	// M is the blind-rotation modulus: 2q (capped at 2N) for the automorphism
	// methods, which round to odd residues, q for GINX.
	M int
	// yShift: Y = X^(2N/M) = X^(1<<yShift).
	yShift int
	Q      uint32
	ntt    *ring.NTT32

	// Gadget: digits of base Bg = 2^logBg; the lowest `dropped` digits are
	// rounded away; dg digits remain, with gadget values Bg^(dropped+i).
	logBg, dropped, dg int
	gadget             []uint32

	qks, logQKS   int
	slots         int // P
	logBKS, dks   int
	window        int
	autoGen       uint64 // g = 5
	dlog          []int32
	autoIndex     [][]uint32 // NTT-domain index tables of ψ_{g^u}, u in [0, w]; [0] is ψ_{-g}
	autoIndexInit []uint32   // coefficient-domain index of the accumulator initialisation automorphism
	// GINX: NTT(Y^k - 1) for k in [0, M).
	ginxMono [][]uint32
	gauss    *gaussianTable
	cmux     *cmuxParams // nil without the CMux gadget (params_cmux.go)
}

// NewParams validates lit and precomputes its tables. Insecure sets are
// refused; use NewParamsInsecure to allow them explicitly.
func NewParams(lit ParamsLiteral) (Params, error) { return newParams(lit, false) }

// NewParamsInsecure is NewParams that also accepts sets marked Insecure.
func NewParamsInsecure(lit ParamsLiteral) (Params, error) { return newParams(lit, true) }

func isPow2(x int) bool { return x > 0 && x&(x-1) == 0 }

func newParams(lit ParamsLiteral, allowInsecure bool) (Params, error) {
	if lit.Insecure && !allowInsecure && !insecureAllowedInTests {
		return Params{}, fmt.Errorf("%w %q: toy sets are for tests; allow them explicitly", ErrInsecure, lit.Name)
	}
	fail := func(format string, a ...any) (Params, error) {
		return Params{}, fmt.Errorf("fhew: parameter set %q: %s", lit.Name, fmt.Sprintf(format, a...))
	}
	if lit.Name == "" {
		return fail("empty name")
	}
	if lit.Method > MethodGINX {
		return fail("unknown method %d", lit.Method)
	}
	if lit.LWESecret > SecretBinary || lit.RLWESecret > SecretBinary {
		return fail("unknown secret distribution")
	}
	if lit.Method == MethodGINX && lit.LWESecret == SecretGaussian {
		return fail("GINX blind rotation needs a ternary or binary LWE secret")
	}
	if !(lit.Sigma > 0 && lit.Sigma < 64) {
		return fail("σ = %v outside (0, 64)", lit.Sigma)
	}
	if lit.LogN < 4 || lit.LogN > 13 {
		return fail("log N = %d outside [4, 13]", lit.LogN)
	}
	N := 1 << lit.LogN
	if lit.LWEDim < 1 || lit.LWEDim > 4096 {
		return fail("n = %d outside [1, 4096]", lit.LWEDim)
	}
	q := lit.LWEModulus
	if !isPow2(q) || q < 16 || q > 2*N {
		return fail("q = %d must be a power of two in [16, 2N = %d]", q, 2*N)
	}
	if lit.Q >= ring.MaxQ32 || uint64(lit.Q)%uint64(2*N) != 1 || !ring.IsPrime(uint64(lit.Q)) {
		return fail("Q = %d must be a prime < 2^30 with Q ≡ 1 mod 2N", lit.Q)
	}
	if lit.LogBg < 1 || lit.LogBg > 16 {
		return fail("log B_g = %d outside [1, 16]", lit.LogBg)
	}
	if !isPow2(lit.QKS) || lit.QKS > 1<<16 || lit.QKS < 2*q {
		return fail("Q_ks = %d must be a power of two in [2q, 2^16]", lit.QKS)
	}
	if lit.LogBKS < 1 || lit.LogBKS > 8 {
		return fail("log B_ks = %d outside [1, 8]", lit.LogBKS)
	}
	slots := lit.Slots
	if slots == 0 {
		slots = 4
	}
	if slots != 4 && slots != 8 {
		return fail("slots P = %d must be 4 or 8", lit.Slots)
	}
	M := q
	if lit.Method.usesAutomorphisms() {
		M = min(2*q, 2*N)
		if M < 16 {
			return fail("blind-rotation modulus %d too small", M)
		}
		if lit.Window < 1 || lit.Window > M/4 {
			return fail("window w = %d outside [1, %d]", lit.Window, M/4)
		}
	}
	var cm *cmuxParams
	if lit.CMux != nil {
		c := *lit.CMux
		lit.CMux = &c // our own copy: the caller's literal may change
		var err error
		if cm, err = newCMuxParams(lit); err != nil {
			return fail("%v", err)
		}
	}
	ntt, err := ring.NewNTT32(N, lit.Q)
	if err != nil {
		return fail("%v", err)
	}
	p := &params{cmux: cm, lit: lit, n: lit.LWEDim, N: N, logN: lit.LogN, q: q, M: M, Q: lit.Q, ntt: ntt,
		slots: slots, qks: lit.QKS, logQKS: bits.TrailingZeros(uint(lit.QKS)), logBKS: lit.LogBKS, window: lit.Window, autoGen: 5}
	p.yShift = bits.TrailingZeros(uint(2 * N / M))
	p.gauss = newGaussianTable(lit.Sigma)
	logQ := bits.Len32(lit.Q) // Bg^digits >= 2^logQ > Q
	digits := (logQ + lit.LogBg - 1) / lit.LogBg
	p.logBg = lit.LogBg
	if lit.DropLowestDigit {
		p.dropped = 1
	}
	p.dg = digits - p.dropped
	if p.dg < 1 {
		return fail("gadget keeps no digit")
	}
	p.gadget = make([]uint32, p.dg)
	for i := range p.gadget {
		p.gadget[i] = uint32((uint64(1) << uint((i+p.dropped)*lit.LogBg)) % uint64(lit.Q))
	}
	p.dks = (p.logQKS + lit.LogBKS - 1) / lit.LogBKS
	if 4*p.dg+2 > ntt.MaxLazyTerms() {
		return fail("too many gadget digits for lazy accumulation")
	}
	if lit.Method.usesAutomorphisms() {
		p.precomputeAutomorphisms()
	} else {
		p.precomputeGINX()
	}
	return Params{p}, nil
}

// WithMethod returns the same set with another blind-rotation method and
// window (ignored by GINX); the name gets a "/method/w" suffix.
func (p Params) WithMethod(m Method, window int) (Params, error) {
	lit := p.lit
	lit.Method, lit.Window = m, window
	lit.Name = fmt.Sprintf("%s/%s", p.lit.Name, m)
	if m != MethodGINX {
		lit.Name = fmt.Sprintf("%s/w=%d", lit.Name, window)
	}
	return newParams(lit, true)
}

// Literal returns the literal the set was built from (with a copy of its
// CMux part).
func (p Params) Literal() ParamsLiteral {
	l := p.lit
	if l.CMux != nil {
		c := *l.CMux
		l.CMux = &c
	}
	return l
}

// Name returns the set's name.
func (p Params) Name() string { return p.lit.Name }

// Method returns the blind-rotation method.
func (p Params) Method() Method { return p.lit.Method }

// LWEDim returns n.
func (p Params) LWEDim() int { return p.n }

// RingDegree returns N.
func (p Params) RingDegree() int { return p.N }

// QKS returns the modulus of gate-level ciphertexts.
func (p Params) QKS() int { return p.qks }

// BlindRotationModulus returns the modulus M the phase is rounded to before
// blind rotation (2q for the automorphism methods, rounding to odd).
func (p Params) BlindRotationModulus() int { return p.M }

// GadgetDigits returns the number of stored gadget digits d_g.
func (p Params) GadgetDigits() int { return p.dg }

// KeySwitchDigits returns d_ks.
func (p Params) KeySwitchDigits() int { return p.dks }

// Slots returns the plaintext spacing P (a bit is m·Q_ks/P).
func (p Params) Slots() int { return p.slots }

// Window returns w.
func (p Params) Window() int { return p.window }

// precomputeAutomorphisms builds the discrete-log table of g = 5 modulo M
// (odd a = ±g^l) and the NTT-domain index tables of ψ_{g^u}, u in [1, w],
// and ψ_{-g} (slot 0).
func (p *params) precomputeAutomorphisms() {
	M := p.M
	p.dlog = make([]int32, M)
	for i := range p.dlog {
		p.dlog[i] = -1
	}
	// Odd residues mod M (M a power of two >= 16) are ±5^l, l in [0, M/4).
	x := 1
	for l := 0; l < M/4; l++ {
		p.dlog[x] = int32(l)
		p.dlog[M-x] = int32(l + M/4) // -5^l, tagged by the offset M/4
		x = x * 5 % M
	}
	N := p.N
	p.autoIndex = make([][]uint32, p.window+1)
	p.autoIndex[0] = ring.AutomorphismNTTIndex(N, ring.GaloisElement(N, -5))
	t := uint64(1)
	for u := 1; u <= p.window; u++ {
		t = t * 5 % uint64(2*N)
		p.autoIndex[u] = ring.AutomorphismNTTIndex(N, t)
	}
	// The accumulator starts as ψ_t0(f·Y^β), where ψ_t0 undoes the product
	// of all automorphisms the core loop applies: g^(M/4-1) = g^-1 for
	// Signed (so t0 = g), -g^-1 for LMKCDEY (t0 = -g).
	t0 := int64(5)
	if p.lit.Method == MethodLMKCDEY {
		t0 = -5
	}
	p.autoIndexInit = ring.AutomorphismCoeffIndex(N, ring.GaloisElement(N, t0))
}

// autoGalois returns the Galois element g^u mod 2N (u >= 1) or -g (u = 0).
func (p *params) autoGalois(u int) uint64 {
	if u == 0 {
		return ring.GaloisElement(p.N, -5)
	}
	return ring.GaloisElement(p.N, int64(ring.PowMod(5, uint64(u), uint64(2*p.N))))
}

// precomputeGINX builds NTT(Y^k - 1) for every k in [0, M): GINX multiplies
// the decomposed accumulator by these monomials in the NTT domain.
func (p *params) precomputeGINX() {
	N, M := p.N, p.M
	p.ginxMono = make([][]uint32, M)
	buf := make([]uint32, N)
	for k := 0; k < M; k++ {
		clear(buf)
		e := (k << p.yShift) % (2 * N)
		if e < N {
			buf[e] = 1
		} else {
			buf[e-N] = p.Q - 1
		}
		buf[0] = p.ntt.SubMod(buf[0], 1)
		out := make([]uint32, N)
		p.ntt.Forward(buf, out)
		p.ginxMono[k] = out
	}
}
