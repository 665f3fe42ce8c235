package cbs

import "math"

// The noise and cost model of client-side RGSW inputs (input_rgsw.go);
// TestInputRGSWNoiseMeasured (ToyCBS) and TestInputRGSWNoise128 check it.

// InputProductVar returns the per-coefficient noise variance (mod Q) one
// external product RGSW_in(a) ⊡ C adds in InputFormRGSW: the input
// gadget's digits of the uniform C = G − 2·out (both halves) times the
// input rows' fresh noise, 2N·σ²·Σ Var(d_i), plus the dropped bits'
// rounding times a·(1 + z), taken with a = 1 (an upper bound). The noise
// already in the row is multiplied by 1 − 2a = ±1, so its variance stays.
func (p Params) InputProductVar() float64 {
	d, r := p.inputProductVars()
	return d + r
}

// inputProductVars splits InputProductVar into the digits' term (any bit)
// and the rounding term (present when the RGSW's bit is 1).
func (p Params) inputProductVars() (digits, round float64) {
	g := p.InputGadget()
	N := float64(p.ringN)
	s2 := p.lit.Sigma * p.lit.Sigma
	return 2 * N * s2 * digitVar(g, float64(p.q)), roundVar(g) * (1 + ternaryVar*N)
}

// inputRowVar returns the per-coefficient noise variance (mod Q) of CBS
// level j's two rows (RLWE(b·g_j) and RLWE(b·g_j·z)) of InputFormRGSW's
// output for a form of terms input bits: the first term's fresh rows
// scaled by 2^k_j (coarseRow), 4^k_j·σ², plus terms − 1 products. Unlike a
// CBS row, whose noise sits in the constant coefficient, every
// coefficient carries it.
func (p Params) inputRowVar(terms, j int) float64 {
	_, k := coarseRow(p.lit.CBS, p.InputGadget(), j)
	s2 := p.lit.Sigma * p.lit.Sigma
	return math.Ldexp(s2, 2*k) + float64(max(terms-1, 0))*p.InputProductVar()
}

// InputFormRowVar returns the largest per-coefficient noise variance (mod
// Q) of a row of InputFormRGSW's output for a form of terms input bits
// (the levels differ only in the first term's scaling).
func (p Params) InputFormRowVar(terms int) float64 {
	v := 0.0
	for j := 0; j < p.lit.CBS.Digits; j++ {
		v = max(v, p.inputRowVar(terms, j))
	}
	return v
}

// InputFormCost returns the price, in the NAND-times of Cost, of building
// RGSW(form) from input RGSWs for a form of terms input bits: 2ℓ_c·(terms −
// 1) external products of 2 + 2ℓ_in transforms each, plus the first
// term's 4ℓ_c scalar multiplications priced as one more product, against
// the CBS's blind rotation (n steps of 2 + 2ℓ_br transforms), times 1.5:
// BenchmarkInputFormCost measured a 2-term form at 0.0113 CBS where the
// transform count says 0.0096 (the products' decompositions and 6-digit
// DotRows weigh more than a blind-rotation step's), so the factor keeps
// the price an upper bound.
func (p Params) InputFormCost(terms int) float64 {
	if terms < 1 {
		return 0
	}
	l := p.lit
	prod := float64(2*l.CBS.Digits*(terms-1)+1) * float64(2+2*p.InputGadget().Digits)
	br := float64(l.LWEDim) * float64(2+2*l.BR.Digits)
	return 1.5 * p.Cost().CBS * prod / br
}

// InputFormMaxTerms returns the largest number of input-bit terms for which
// EvalPlan builds a form from input RGSWs instead of circuit-bootstrapping
// it: InputFormCost must stay below Cost().CBS, and the rows' noise energy
// N·InputFormRowVar below a CBS row's B-row energy (Noise.RowBEnergy), so
// that at every CMux position such an input adds less noise than a
// bootstrapped one and TableOutputVar (hence MaxTerms) stays a bound for
// tables that mix both. 70 at STD128_CBS (by cost; the noise allows 322).
func (p Params) InputFormMaxTerms() int {
	if _, err := inputGadget(p); err != nil {
		return 0
	}
	nm := p.Noise()
	cbs := p.Cost().CBS
	ok := func(t int) bool {
		return p.InputFormCost(t) < cbs && float64(p.ringN)*p.InputFormRowVar(t) <= nm.RowBEnergy
	}
	t := 0
	for t < 1<<16 && ok(t+1) {
		t++
	}
	return t
}

// TableOutputVarDirect returns the noise variance (mod Q) of a table
// output, as an upper bound over the input bits (all 1), when input j's
// RGSW comes from a circuit bootstrap (direct[j] = 0) or from
// InputFormRGSW on direct[j] input bits: TableOutputVar's terms with each
// direct input's rows in place of a CBS RGSW's (the first CMux sees only
// the B rows' energy N·InputFormRowVar, the others both halves'). The
// dropped bits' rounding of the CBS gadget is the same for both kinds.
func (p Params) TableOutputVarDirect(direct []int) float64 {
	return p.tableOutputVarDirectOnes(direct, len(direct))
}

// tableOutputVarDirectOnes is TableOutputVarDirect when ones of the input
// bits are 1 (the rounding term once per 1 bit).
func (p Params) tableOutputVarDirectOnes(direct []int, ones int) float64 {
	return float64(ones)*p.Noise().CMuxRound + p.tableDigitsVarDirect(direct)
}

// tableOutputVarDirectBits is the model for input bits x (bit j = input
// j), as the noise tests compare it: the first CMux rounds only its
// accumulator's B part (the A part is 0), so its rounding term lacks the
// z factor that TableOutputVarDirect, like TableOutputVar, keeps as a
// bound. It matters only when the digits' term is small, i.e. for direct
// inputs.
func (p Params) tableOutputVarDirectBits(direct []int, x int) float64 {
	v := p.tableDigitsVarDirect(direct)
	for j := range direct {
		if x>>uint(j)&1 == 1 {
			if j == 0 {
				v += roundVar(p.lit.CBS)
			} else {
				v += p.Noise().CMuxRound
			}
		}
	}
	return v
}

// tableDigitsVarDirect is the digits' share of TableOutputVarDirect: per
// CMux the CBS gadget's digits times the RGSW rows' noise energy.
func (p Params) tableDigitsVarDirect(direct []int) float64 {
	nm := p.Noise()
	dv := digitVar(p.lit.CBS, float64(p.q))
	N := float64(p.ringN)
	v := 0.0
	for j, t := range direct {
		switch {
		case t == 0 && j == 0:
			v += dv * nm.RowBEnergy
		case t == 0:
			v += nm.CMuxDigits
		case j == 0:
			v += dv * N * p.InputFormRowVar(t)
		default:
			v += dv * 2 * N * p.InputFormRowVar(t)
		}
	}
	return v
}

// TableFailureLog2Direct is TableFailureLog2 for a table some of whose
// inputs come from InputFormRGSW (direct[j] true; terms[j] is then
// ignored): those cannot fail (no circuit bootstrap; the client's RGSW
// encrypts the bit exactly, and its noise only enters the outputs,
// TableOutputVarDirect), so the union bound runs over the bootstrapped
// inputs only (-Inf when there are none). direct shorter than terms counts
// the rest as bootstrapped.
func (p Params) TableFailureLog2Direct(terms []int, direct []bool) float64 {
	var cbs []int
	for j, t := range terms {
		if j < len(direct) && direct[j] {
			continue
		}
		cbs = append(cbs, t)
	}
	return p.TableFailureLog2(cbs)
}
