package cbs

// Cost is the price of the engine's operations in NAND-times of fhew's
// default set STD128_LOWFAIL_T, for a mapper's cost model (the NAND-
// equivalents optimize.WideOptions asks for).
type Cost struct {
	// CBS is one circuit bootstrap (one distinct table input form).
	CBS float64
	// Table is one packed polynomial of vertical packing (up to N/2^k
	// outputs of a k-input table; an 8 -> 8 S-box is one).
	Table float64
	// Output is one table output beyond the polynomial (a sample
	// extraction; no key switch: that is inside the CBS).
	Output float64
}

// measuredCost holds BenchmarkCBSCost's ratios (interleaved with the NAND,
// several runs at load 3-5, docs/fhew-cbs.md), rounded up.
var measuredCost = map[string]Cost{
	STD128_CBS.Name:     {CBS: 3.1, Table: 0.06, Output: 0.001},
	STD128_CBS_595.Name: {CBS: 3.5, Table: 0.06, Output: 0.001},
}

// Cost returns the set's operation costs: measured for the named 128-bit
// sets, otherwise scaled from STD128_CBS by the blind rotation's work (n
// steps of 2 + 2ℓ_br transforms of degree N).
func (p Params) Cost() Cost {
	if c, ok := measuredCost[p.lit.Name]; ok && p.lit == lookupLiteral(p.lit.Name) {
		return c
	}
	ref := measuredCost[STD128_CBS.Name]
	work := func(n, digits, N int) float64 { return float64(n) * float64(2+2*digits) * float64(N) }
	s := work(p.lit.LWEDim, p.lit.BR.Digits, p.ringN) / work(STD128_CBS.LWEDim, STD128_CBS.BR.Digits, 1<<STD128_CBS.LogN)
	t := float64(p.ringN) / float64(int(1)<<STD128_CBS.LogN)
	return Cost{CBS: ref.CBS * s, Table: ref.Table * t, Output: ref.Output * t}
}

// lookupLiteral returns the named set's literal (zero if unknown), so a
// modified literal that kept a name is not priced as the original.
func lookupLiteral(name string) ParamsLiteral {
	for _, l := range namedSets {
		if l.Name == name {
			return l
		}
	}
	return ParamsLiteral{}
}
