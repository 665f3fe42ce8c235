package fhew

import (
	"fmt"
	"math"
	"sync"

	"github.com/hcc-fhe/hcc/ir"
)

// Multi-output bootstrapping: several functions of one weighted sum from one
// blind rotation (multi-value bootstrapping with a factored test
// polynomial, Carpov, Izabachène and Mollimard, CT-RSA 2019).
//
// A bootstrap's test polynomial f_h for the decision pattern h is a step
// function of the rotation: the constant coefficient of f_h·X^e is ±A
// (A = round(Q/2P)), constant on each slot's interval and negacyclic. Every
// such f_h factors as f_h = v0·t_h mod X^N + 1 with the common
//
//	v0 = A·(1 - X - X² - ... - X^{N-1})      (constant coefficient of v0·X^e is +A for e in [0, N))
//
// and t_h with coefficients in {-1, 0, 1}: t_j = -(S(N-j) - S(N-j-1))/2,
// where S(e) = ±1 is the sign of f_h's output at rotation e (so t_h is
// nonzero only where the pattern changes value, at most P/2 + 1 places).
// One blind rotation of v0 on Σ w_i·x_i gives RLWE(v0·Y^phase); multiplying
// it by the public, sparse t_h gives RLWE(f_h·Y^phase), whose sample
// extraction is exactly the ordinary bootstrap's output for pattern h. So
// any number of functions h_j(Σ w_i·x_i mod P) of the same inputs and
// weights cost one blind rotation plus, per output, |t_h|·N additions and
// the extraction and mod switch Q -> Q_ks. The key switch and the rounding
// happen once, before the blind rotation, as for one output.
//
// Noise: the blind-rotation error e(X) becomes e·t_h, whose variance is
// |t_h|²·Var(e) = (nonzero coefficients of t_h)·NoiseModel.BlindRotation;
// the mod switch Q -> Q_ks adds its usual rounding. MultiOutputVariance
// gives the worst case over patterns, and the failure of the shared
// decision is that of one bootstrap on the same sum (the outputs only
// differ after the blind rotation).
//
// The weights must suit every table at once: there must be one weight
// vector w for which each table is h_j(Σ w_i·x_i mod P) with h_j
// negacyclic (h(v + P/2) = ¬h(v)). At P = 4 that holds for AND with OR on
// (1, 1), at P = 8 for every set of symmetric functions of up to three
// inputs (a full adder's sum and carry on 1, 1, 1), for any set of 2-input
// functions on (1, 2), and so on; findMultiPlan searches as findPlan does.

// MaxMultiLUTInputs is the widest input set of a multi-output bootstrap
// (ir.MaxMLUTInputs: 2^k-bit tables packed in one 64-bit word, two at least).
const MaxMultiLUTInputs = ir.MaxMLUTInputs

// multiPlan is how one blind rotation evaluates several tables of the same
// k inputs: common weights and margin factor d, one pattern per table.
type multiPlan struct {
	spec     LUTSpec // weights; Pattern is that of table 0
	gs       gateSpec
	d        int
	patterns []uint8
	ok       bool
}

type multiKey struct {
	slots, k int
	packed   uint64
}

var multiCache sync.Map // multiKey -> *multiPlan

// findMultiPlan returns the cheapest common evaluation (smallest Σw²/d²,
// ties to the larger d) of the tables packed in packed (ir.MLUTTables) on
// k inputs at plaintext spacing slots; the result is cached and shared.
func findMultiPlan(slots int, packed uint64, k int) *multiPlan {
	if k < 1 || k > MaxMultiLUTInputs {
		return &multiPlan{}
	}
	key := multiKey{slots, k, packed}
	if pl, ok := multiCache.Load(key); ok {
		return pl.(*multiPlan)
	}
	tables := ir.MLUTTables(packed, k)
	best := &multiPlan{}
	bestEff := math.Inf(1)
	for d := 1; d <= slots/2; d *= 2 {
		choices := weightChoices(slots)
		if d > 1 {
			choices = choices[:0:0]
			for w := 0; w <= slots/2; w += d {
				choices = append(choices, w)
				if w != 0 && w != slots/2 {
					choices = append(choices, -w)
				}
			}
		}
		w, pats, ok := searchWeightsAll(slots, tables, k, choices)
		if !ok {
			continue
		}
		dw := marginFactor(slots, w)
		if eff := float64(sumSquares(w)) / float64(dw*dw); eff <= bestEff {
			for j := range pats {
				pats[j] = mergePattern(pats[j], slots, dw)
			}
			spec := LUTSpec{Weights: w, Pattern: pats[0]}
			best = &multiPlan{spec: spec, gs: spec.gateSpec(), d: dw, patterns: pats, ok: true}
			bestEff = eff
		}
	}
	pl, _ := multiCache.LoadOrStore(key, best)
	return pl.(*multiPlan)
}

// patternFor returns the decision pattern of table under the plan's
// weights (with the plan's margin merge), or false if the table is no
// function of the plan's weighted sum.
func (pl *multiPlan) patternFor(slots int, table uint64, k int) (uint8, bool) {
	pat, ok := lutPattern(slots, table, k, pl.spec.Weights)
	if !ok {
		return 0, false
	}
	return mergePattern(pat, slots, pl.d), true
}

// sparseTerm is one nonzero coefficient ±1 of a factor t_h.
type sparseTerm struct {
	j   int
	neg bool
}

// multiTables holds v0 and every pattern's sparse factor t_h.
type multiTables struct {
	base    []uint32       // v0, coefficient domain
	factors [][]sparseTerm // indexed by pattern
}

// newMultiTables builds v0 (amplitude amp) and t_h for every pattern h of p.
func newMultiTables(p *params, amp uint32) *multiTables {
	N, M, P := p.N, p.M, p.slots
	mt := &multiTables{base: make([]uint32, N), factors: make([][]sparseTerm, 1<<(P/2))}
	mt.base[0] = amp
	for i := 1; i < N; i++ {
		mt.base[i] = p.Q - amp
	}
	for h := range mt.factors {
		mt.factors[h] = factorTerms(N, M, P, p.yShift, uint8(h))
	}
	return mt
}

// patternSign is the output sign (+1 for bit 1) of pattern h at rotation u
// in [0, M): buildTestPoly's F(u)/A.
func patternSign(M, P int, h uint8, u int) int {
	s := 1
	if u >= M/2 {
		u -= M / 2
		s = -1
	}
	v := (u + M/(2*P)) / (M / P)
	var bit uint8
	if v == P/2 {
		bit = 1 - (h & 1)
	} else {
		bit = (h >> uint(v)) & 1
	}
	if bit == 0 {
		s = -s
	}
	return s
}

// factorTerms returns the nonzero coefficients of t_h (see the top of the
// file): t_j = -(S(N-j) - S(N-j-1))/2 with S(e) = patternSign(e >> yShift).
func factorTerms(N, M, P, yShift int, h uint8) []sparseTerm {
	S := func(e int) int { return patternSign(M, P, h, e>>uint(yShift)) }
	var out []sparseTerm
	for j := 0; j < N; j++ {
		switch t := -(S(N-j) - S(N-j-1)) / 2; t {
		case 1:
			out = append(out, sparseTerm{j: j})
		case -1:
			out = append(out, sparseTerm{j: j, neg: true})
		}
	}
	return out
}

// MultiOutputVariance is the variance (circle²) of an output of a
// multi-output bootstrap, worst case over decision patterns: the blind
// rotation's times the factor's squared norm, plus the mod switch
// Q -> Q_ks. It is at least NoiseModel.Output.
func (p Params) MultiOutputVariance() float64 {
	m := p.Noise()
	worst := 1
	for h := 0; h < 1<<(p.slots/2); h++ {
		worst = max(worst, len(factorTerms(p.N, p.M, p.slots, p.yShift, uint8(h))))
	}
	return m.Output + float64(worst-1)*m.BlindRotation
}

// CanEvalMultiLUT reports whether one blind rotation evaluates every table
// (k inputs each, bit i = f(i) as ir.LUT) and with which common weights.
func (p Params) CanEvalMultiLUT(tables []uint64, k int) (weights []int, ok bool) {
	packed, ok := ir.PackMLUT(tables, k)
	if !ok {
		return nil, false
	}
	pl := findMultiPlan(p.slots, packed, k)
	if !pl.ok {
		return nil, false
	}
	return append([]int(nil), pl.spec.Weights...), true
}

// MultiLUTFailureLog2 is log2 of the predicted failure of the shared
// decision of a multi-output bootstrap with the given weights when every
// input is itself a multi-output extraction (at MultiOutputVariance): a
// bound for inputs of either kind. The shared decision with inputs fresh
// from ordinary bootstraps fails as SumFailureLog2 says, which is what
// LUTTarget.CanEvalMultiLUT checks, like CanEvalLUT; CircuitFailure and
// LUTTarget.NodeFailureLog2 use each input's own variance.
func (p Params) MultiLUTFailureLog2(weights []int) float64 {
	return p.sumFailure(weights, float64(sumSquares(weights))*p.MultiOutputVariance())
}

// EvalMultiLUT evaluates every table (k = len(in) inputs each) in one blind
// rotation on their common weighted sum and writes output j to outs[j].
// It fails, leaving outs alone, when the tables have no common weights
// (CanEvalMultiLUT) or the counts disagree. outs must not alias in.
func (ev *Evaluator) EvalMultiLUT(tables []uint64, in []*Ciphertext, outs []*Ciphertext, sc *Scratch) error {
	k := len(in)
	packed, ok := ir.PackMLUT(tables, k)
	if !ok || len(outs) != len(tables) {
		return fmt.Errorf("fhew: multi-output bootstrap of %d tables on %d inputs into %d outputs", len(tables), k, len(outs))
	}
	pl := findMultiPlan(ev.params.slots, packed, k)
	if !pl.ok {
		return fmt.Errorf("fhew: the %d tables on %d inputs share no weighted sum at P = %d", len(tables), k, ev.params.slots)
	}
	if len(sc.multiAcc) != 2*ev.params.N {
		sc.multiAcc = make([]uint32, 2*ev.params.N)
	}
	acc := sc.multiAcc
	ev.rotateMulti(pl, in, acc, sc)
	for j, t := range tables {
		h, _ := pl.patternFor(ev.params.slots, t, k)
		ev.extractMulti(acc, h, outs[j], sc.tmpA)
	}
	return nil
}

// rotateMulti blind-rotates v0 on the plan's weighted sum of in and leaves
// the accumulator in the coefficient domain in acc (b then a, N each).
func (ev *Evaluator) rotateMulti(pl *multiPlan, in []*Ciphertext, acc []uint32, sc *Scratch) {
	p := ev.params.params
	combine(p, in, pl.gs.weights, 0, sc)
	sc.comb[0] += uint16((pl.d - 1) * p.qks / (2 * p.slots))
	ev.blindRotate(ev.multi.base, sc)
	p.ntt.Inverse(sc.accB, acc[:p.N])
	p.ntt.Inverse(sc.accA, acc[p.N:])
}

// extractMulti writes the output of pattern h, the sample extraction of
// acc·t_h plus Q/2P switched to Q_ks, to out; tmp holds N coefficients.
func (ev *Evaluator) extractMulti(acc []uint32, h uint8, out *Ciphertext, tmp []uint32) {
	p := ev.params.params
	nt := p.ntt
	N := p.N
	cb, ca := acc[:N], acc[N:2*N]
	ra := tmp[:N]
	clear(ra)
	var b uint32
	for _, t := range ev.multi.factors[h] {
		// (X^j·c)_0 is c_0 for j = 0 and -c_{N-j} otherwise; (X^j·c)_i is
		// c_{i-j} for i >= j and -c_{i-j+N} below.
		j := t.j
		c0 := cb[0]
		if j > 0 {
			c0 = nt.NegMod(cb[N-j])
		}
		hi, lo := ra[j:], ra[:j]
		if t.neg {
			b = nt.SubMod(b, c0)
			for i, x := range ca[:N-j] {
				hi[i] = nt.SubMod(hi[i], x)
			}
			for i, x := range ca[N-j:] {
				lo[i] = nt.AddMod(lo[i], x)
			}
		} else {
			b = nt.AddMod(b, c0)
			for i, x := range ca[:N-j] {
				hi[i] = nt.AddMod(hi[i], x)
			}
			for i, x := range ca[N-j:] {
				lo[i] = nt.SubMod(lo[i], x)
			}
		}
	}
	Q := uint64(p.Q)
	scale := uint64(p.qks)
	m16 := uint16(p.qks - 1)
	out.B = modSwitchQ(nt.AddMod(b, ev.qOut), scale, Q) & m16
	oa := out.A[:N]
	oa[0] = modSwitchQ(ra[0], scale, Q) & m16
	for i := 1; i < N; i++ {
		oa[i] = modSwitchQ(nt.NegMod(ra[N-i]), scale, Q) & m16
	}
}

// CanEvalMultiLUT reports whether one blind rotation evaluates every table
// (k inputs each) within the target's failure bound for inputs fresh from
// ordinary bootstraps (as CanEvalLUT; the mapper checks the actual inputs
// with NodeFailureLog2);
// the optimizer's multi-output mapper asks it (optimize.MultiLUTTarget).
func (t LUTTarget) CanEvalMultiLUT(tables []uint64, k int) bool {
	packed, ok := ir.PackMLUT(tables, k)
	if !ok {
		return false
	}
	_, ok = t.multiPlan(packed, k)
	return ok
}

// MaxMultiLUTInputs is the widest input set CanEvalMultiLUT may accept.
func (t LUTTarget) MaxMultiLUTInputs() int { return min(t.maxK, MaxMultiLUTInputs) }

// multiPlan is CanEvalMultiLUT on a packed table, with the plan.
func (t LUTTarget) multiPlan(packed uint64, k int) (*multiPlan, bool) {
	if k < 1 || k > t.MaxMultiLUTInputs() {
		return nil, false
	}
	pl := findMultiPlan(t.p.slots, packed, k)
	return pl, pl.ok && t.p.SumFailureLog2(pl.spec.Weights) <= t.maxFail
}

// evalMulti is Worker.Eval of an ir.OpMLUT (the blind rotation, output 0,
// and the accumulator kept in o for the group) or an ir.OpMOut (an
// extraction from the accumulator its first fanin holds).
func (w *worker) evalMulti(n *ir.Node, x []*Ciphertext, o *Ciphertext) error {
	ev, sc := w.ev, w.sc
	p := ev.params
	if n.Op == ir.OpMLUT {
		pl, ok := w.lut.multiPlan(n.Table, len(x))
		if !ok {
			return fmt.Errorf("fhew: MLUT%d %#x is not evaluable in one blind rotation within 2^%.0f failure on %s",
				len(x), n.Table, w.lut.maxFail, p.Name())
		}
		if len(o.acc) != 2*p.N {
			o.acc = make([]uint32, 2*p.N)
		}
		ev.rotateMulti(pl, x, o.acc, sc)
		ev.extractMulti(o.acc, pl.patterns[0], o, sc.tmpA)
		o.accPlan = pl
		return nil
	}
	root := x[0]
	if root.accPlan == nil {
		return fmt.Errorf("fhew: MOUT's first fanin holds no multi-output accumulator")
	}
	h, ok := root.accPlan.patternFor(p.slots, n.Table, len(x)-1)
	if !ok {
		return fmt.Errorf("fhew: MOUT table %#x is no function of its MLUT's weighted sum", n.Table)
	}
	ev.extractMulti(root.acc, h, o, sc.tmpA)
	o.accPlan = nil
	return nil
}

// multiOutputVar is the output variance of node n (an ir.OpMLUT or
// ir.OpMOut evaluated with plan pl): |t_h|·BlindRotation plus the mod
// switch, for the node's own pattern h.
func (p Params) multiOutputVar(pl *multiPlan, n *ir.Node) float64 {
	t, in, _ := n.TableView()
	h, ok := pl.patternFor(p.slots, t, len(in))
	if !ok {
		return p.MultiOutputVariance()
	}
	m := p.Noise()
	terms := len(factorTerms(p.N, p.M, p.slots, p.yShift, h))
	return m.Output + float64(terms-1)*m.BlindRotation
}

// NodeFailureLog2 returns, for every node of c, log2 of the predicted
// failure of its (worst) bootstrap with the noise of its actual inputs
// (multi-output extractions are noisier, multilut.go), -Inf for nodes
// without one; the optimizer's multi-output mapper checks its merges with
// it (optimize.MultiLUTTarget).
func (t LUTTarget) NodeFailureLog2(c *ir.Circuit) ([]float64, error) {
	per := make([]float64, len(c.Nodes))
	for i := range per {
		per[i] = math.Inf(-1)
	}
	_, err := t.p.circuitFailure(c, per)
	return per, err
}

// NodeFailureBound is the largest failure NodeFailureLog2 may report for a
// node of op for the circuit to stay within the target's bounds: the
// PARITY bound for PARITY nodes, the LUT bound for the others.
func (t LUTTarget) NodeFailureBound(op ir.Op) float64 {
	if op == ir.OpParity {
		return t.parFail
	}
	return t.maxFail
}
