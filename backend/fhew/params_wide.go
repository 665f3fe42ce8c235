package fhew

import "math"

// Plaintext spacing P = 8 sets for multi-output bootstrapping (multilut.go)
// and 3-input functions in one bootstrap. See docs/fhew-luts.md for the
// measurements behind them.
var (
	// STD128_P8_G is a P = 8 set on GINX blind rotation. Security: the LWE
	// part (ternary n = 595, Q_ks = 2^16, B_ks = 64) is OpenFHE v1.5.1's
	// STD128_3 (rated 128-bit, as STD128_LOWFAIL_T's); the ring part is
	// STD128_GINX's (N = 1024, Q = 134215681, ternary; OpenFHE's STD128),
	// whose security does not depend on the gadget base. Noise: GINX rounds
	// to q = 2048 without the round-to-odd of the automorphism methods, so
	// the rounding noise is a quarter of STD128_LOWFAIL3_T's, and B_g = 2^5
	// (five digits kept) makes the blind-rotation noise small enough that
	// even inputs that are multi-output extractions (|t_h| up to 3, noise
	// 3x) leave 3-input sums at 2^-113 (Params.MultiLUTFailureLog2).
	STD128_P8_G = ParamsLiteral{
		Name: "STD128_P8_G", Method: MethodGINX,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 595, LWEModulus: 2048, LogN: 10, Q: 134215681,
		LogBg: 5, DropLowestDigit: true, QKS: 1 << 16, LogBKS: 6, Window: 10, Slots: 8,
		Security: "128 bits: LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary); " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
	}
)

// STD128_P8_T is STD128_LOWFAIL3_T (P = 8, Signed blind rotation) with
// B_g = 2^6, four digits kept instead of three: the blind-rotation noise
// drops to a third, so extractions feed sums with margin to spare. Same
// security as STD128_LOWFAIL_T (the gadget base is no security parameter).
var STD128_P8_T = ParamsLiteral{
	Name: "STD128_P8_T", Method: MethodSigned,
	LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
	LWEDim: 595, LWEModulus: 1024, LogN: 10, Q: 134215681,
	LogBg: 6, DropLowestDigit: true, QKS: 1 << 16, LogBKS: 6, Window: 10, Slots: 8,
	Security: "128 bits: LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary); " +
		"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound",
}

// STD128_P8_Q28 is STD128_LOWFAIL3_T (P = 8, Signed, B_g = 2^7, three
// digits) on the 28-bit ring modulus of STD128_LMKCDEY_G: relative to Q the
// gadget digits are four times smaller, so the blind-rotation noise is a
// quarter of STD128_LOWFAIL3_T's at the same cost (⌈28/7⌉ - 1 = 3 digits
// still). It is BELOW hcc's 128-bit target: the HE standard's table for
// ternary secrets allows 27 bits at N = 1024, so the ring part (N = 1024,
// Q = 268369921) gives about 123 bits, as STD128_LMKCDEY_G's; kept to
// record what a 28-bit ring would buy (docs/fhew-luts.md), never chosen
// by default.
var STD128_P8_Q28 = ParamsLiteral{
	Name: "STD128_P8_Q28", Method: MethodSigned,
	LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
	LWEDim: 595, LWEModulus: 1024, LogN: 10, Q: 268369921,
	LogBg: 7, DropLowestDigit: true, QKS: 1 << 16, LogBKS: 6, Window: 10, Slots: 8,
	BelowTarget: true,
	Security: "below 128 bits: ring log Q = 28 > 27 (HE standard, N = 1024, ternary), about 123 bits, " +
		"as STD128_LMKCDEY_G; LWE part = OpenFHE v1.5.1 STD128_3 (n = 595, Q_ks = 2^16, ternary)",
}

// ToySlots8G is ToyGINX with P = 8, to test GINX multi-output bootstraps
// at P = 8 (STD128_P8_G's method and encoding). Insecure.
var ToySlots8G = ParamsLiteral{
	Name: "ToySlots8G", Method: MethodGINX,
	LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
	LWEDim: 64, LWEModulus: 1024, LogN: 9, Q: 134215681,
	LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 1, Slots: 8, Insecure: true,
	Security: "none: toy set for tests (and --insecure) only",
}

func init() {
	namedSets[ToySlots8G.Name] = ToySlots8G
	namedSets[STD128_P8_G.Name] = STD128_P8_G
	namedSets[STD128_P8_T.Name] = STD128_P8_T
	namedSets[STD128_P8_Q28.Name] = STD128_P8_Q28
}

// measuredCost is one bootstrap of each named set in NAND-equivalents of
// STD128_LOWFAIL_T on the development machine: BenchmarkMultiLUTCost
// (interleaved rounds; two runs at load 5.5 and 9-10, whose ratios were
// P8_T 1.20 / 1.37, P8_G 1.65 / 1.58, P8_Q28 - / 1.04; the values below
// lean to the transform-count estimate where the runs disagree) for the
// P = 8 sets, the README's Table 3 for the others (their NAND medians over
// 7.44 ms).
var measuredCost = map[string]float64{
	STD128_LOWFAIL_T.Name: 1, STD128_LOWFAIL3_T.Name: 1, // same ring, same n
	STD128_P8_T.Name: 1.25, STD128_P8_G.Name: 1.6, STD128_P8_Q28.Name: 1.04,
	STD128_T.Name: 0.81, STD128_GINX.Name: 1.10, STD128_LMKCDEY_G.Name: 0.59,
}

// BootstrapCost is one bootstrap of p in NAND-equivalents of the default
// set STD128_LOWFAIL_T: measured for the named sets (measuredCost), else
// estimated from the blind rotation's transforms, (2·d_g + 2)·N·log N per
// external product or automorphism, with n external products plus the
// expected automorphisms for Signed and LMKCDEY and 1.9·n for GINX (its
// step does two products' key multiplications on one decomposition; the
// factor is fitted to STD128_GINX). The optimizer's set choice multiplies
// bootstraps by it.
func (p Params) BootstrapCost() float64 {
	if c, ok := measuredCost[p.lit.Name]; ok {
		return c
	}
	ref, err := NewParams(STD128_LOWFAIL_T)
	if err != nil {
		return math.NaN()
	}
	return p.rotationWork() / ref.rotationWork()
}

func (p Params) rotationWork() float64 {
	steps := 1.9 * float64(p.n)
	if p.lit.Method.usesAutomorphisms() {
		steps = float64(p.n) + p.Noise().ExpectedAutomorphisms
	}
	N := float64(p.N)
	return steps * float64(2*p.dg+2) * N * math.Log2(N)
}
