package fhew

import (
	"fmt"
	"math"
	"sync"

	"github.com/hcc-fhe/hcc/ir"
)

// Wide margins for sums with even weights, and the n-input parity.
//
// A bootstrap decides h(v) for the phase v = Σ w_i·x_i (units of Q_ks/P)
// with decision regions [v - 1/2, v + 1/2), so its margin is half a slot,
// 1/(2P) of the circle. If every weight is a multiple of d (a power of two
// dividing P/2), v only takes multiples of d: setting h(v + j) = h(v) for
// j < d merges d regions into [v - 1/2, v + d - 1/2), and adding (d - 1)/2
// slots to the phase before the blind rotation puts each value in the middle
// of its merged region. The margin is then d/(2P): d times wider for the
// same test polynomials (the negacyclic constraint h(v + P/2) = ¬h(v) is
// kept because P/2 is a multiple of d).
//
// The parity of any number of bits is the extreme case: weights P/2 give
// v ∈ {0, P/2} (x_i·Q_ks/2 summed), d = P/2, and the margin is 1/4 whatever
// P is. Its noise is (P/2)²·k·Var(input) + key switching + rounding, which at
// P = 4 is 4k·Var against margin 1/4, i.e. like k·Var at the gate margin
// 1/8: on STD128_LOWFAIL_T the rounding to M dominates, 64 inputs stay at
// 2^-48 and 36 below 2^-80 (ParityFailureLog2, DefaultParityFailureLog2).
// At P = 4 XOR itself is a parity: on (2, 2) with the shift it has margin
// 1/4, where the unshifted (2, 1) had margin 1/8 and norm 5 (on
// STD128_LOWFAIL_T 2^-658 against 2^-199 then, and AND's 2^-247).

// lutPlan is how the Backend evaluates a k-input table: weights, decision
// pattern, and the margin factor d (1: no shift).
type lutPlan struct {
	spec LUTSpec
	gs   gateSpec
	d    int
	ok   bool
}

var planCache sync.Map // lutKey -> lutPlan

// findPlan returns the cheapest evaluation of table: the unshifted search of
// findLUTEntry, or a weight vector of multiples of d with the d-fold margin,
// whichever has the smaller Σw²/d² (the noise relative to the margin; ties
// go to the larger d, whose key-switching and rounding noise weigh less).
func findPlan(slots int, table uint64, k int) lutPlan {
	key, ok := newLUTKey(slots, table, k)
	if !ok {
		return lutPlan{}
	}
	table = key.table
	if pl, ok := planCache.Load(key); ok {
		return pl.(lutPlan)
	}
	best := lutPlan{d: 1}
	bestEff := math.Inf(1)
	if e := findLUTEntry(slots, table, k); e.ok {
		best = lutPlan{spec: e.spec, gs: e.gs, d: 1, ok: true}
		bestEff = float64(sumSquares(e.spec.Weights))
	}
	for d := 2; d <= slots/2; d *= 2 {
		var choices []int
		for w := 0; w <= slots/2; w += d {
			choices = append(choices, w)
			if w != 0 && w != slots/2 {
				choices = append(choices, -w)
			}
		}
		w, pat, ok := searchWeights(slots, table, k, choices)
		if !ok {
			continue
		}
		dw := marginFactor(slots, w) // >= d unless every weight is 0
		if dw < d {
			continue
		}
		if eff := float64(sumSquares(w)) / float64(dw*dw); eff <= bestEff {
			spec := LUTSpec{Weights: w, Pattern: mergePattern(pat, slots, dw)}
			best = lutPlan{spec: spec, gs: spec.gateSpec(), d: dw, ok: true}
			bestEff = eff
		}
	}
	planCache.Store(key, best)
	return best
}

// searchWeights returns the weight vector over choices with the smallest
// Σw² (the first in enumeration order among equal norms) for which
// lutPattern finds a pattern (lutsearch.go).
func searchWeights(slots int, table uint64, k int, choices []int) ([]int, uint8, bool) {
	w, pats, ok := searchWeightsAll(slots, []uint64{table}, k, choices)
	if !ok {
		return nil, 0, false
	}
	return w, pats[0], true
}

// mergePattern sets h(v + j) = h(v) for v a multiple of d and j < d.
func mergePattern(pat uint8, slots, d int) uint8 {
	var out uint8
	for v := 0; v < slots/2; v++ {
		out |= (pat >> uint(v-v%d) & 1) << uint(v)
	}
	return out
}

func sumSquares(w []int) int {
	n := 0
	for _, x := range w {
		n += x * x
	}
	return n
}

// marginFactor is the d of a weight vector at plaintext spacing slots: the
// largest power of two up to P/2 dividing every weight (1 if all are 0).
func marginFactor(slots int, weights []int) int {
	d := slots / 2
	any := false
	for _, w := range weights {
		w = ((w % slots) + slots) % slots
		if w == 0 {
			continue
		}
		any = true
		for w%d != 0 {
			d /= 2
		}
	}
	if !any {
		return 1
	}
	return d
}

// SumFailureLog2 is log2 of the predicted probability that a bootstrap on
// Σ w_i·x_i (inputs fresh from bootstrapping), evaluated as the Evaluator
// and the Backend do, decides wrongly: the noise, Gaussian with variance
// Σw²·Output + KeySwitch + Rounding, exceeds the margin d/(2P), where d is
// the largest power of two up to P/2 dividing every weight (shifted
// evaluation, see above; a plan's d is always that of its weights).
func (p Params) SumFailureLog2(weights []int) float64 {
	return p.sumFailure(weights, float64(sumSquares(weights))*p.Noise().Output)
}

// sumFailure is the tail for an input-noise variance v (before key
// switching and rounding) at the margin weights allow.
func (p Params) sumFailure(weights []int, v float64) float64 {
	m := p.Noise()
	d := float64(marginFactor(p.slots, weights))
	return log2GaussTail(d * p.margin() / math.Sqrt(v+m.KeySwitch+m.Rounding))
}

// ParityFailureLog2 is log2 of the predicted failure of EvalParity on k
// inputs fresh from bootstrapping: weights P/2 each, margin 1/4.
func (p Params) ParityFailureLog2(k int) float64 {
	w := p.slots / 2
	return p.sumFailure([]int{w}, float64(k*w*w)*p.Noise().Output)
}

// MaxParityInputs is the largest k <= ir.MaxParityInputs whose parity
// (EvalParity) is predicted to fail with probability at most
// 2^maxFailureLog2; 0 if not even two inputs are.
func (p Params) MaxParityInputs(maxFailureLog2 float64) int {
	k := 0
	for j := 2; j <= ir.MaxParityInputs; j++ {
		if p.ParityFailureLog2(j) <= maxFailureLog2 {
			k = j
		}
	}
	return k
}

// parityWeights holds the weight P/2 for every input (P = 4 and P = 8), so
// that EvalParity does not allocate.
var parityWeights = map[int]*[ir.MaxParityInputs]int8{4: fill8(2), 8: fill8(4)}

func fill8(v int8) *[ir.MaxParityInputs]int8 {
	var a [ir.MaxParityInputs]int8
	for i := range a {
		a[i] = v
	}
	return &a
}

// EvalParity sets out = in[0] XOR ... XOR in[k-1] in one bootstrap on
// Σ (P/2)·in_i shifted by (P/2 - 1)/2 slots, with margin 1/4 (see above).
// k must be 1..ir.MaxParityInputs; the failure probability grows with k
// (ParityFailureLog2). out may alias an input.
func (ev *Evaluator) EvalParity(in []*Ciphertext, out *Ciphertext, sc *Scratch) error {
	if len(in) < 1 || len(in) > ir.MaxParityInputs {
		return fmt.Errorf("fhew: parity of %d inputs, want 1..%d", len(in), ir.MaxParityInputs)
	}
	w := parityWeights[ev.params.slots]
	ev.evalSum(gateSpec{weights: w[:len(in)]}, ev.params.slots/2, in, out, sc)
	return nil
}

// evalPlan evaluates a plan found by findPlan: every gate, LUT and MUX stage
// of the Evaluator and the Backend goes through here.
func (ev *Evaluator) evalPlan(pl *lutPlan, in []*Ciphertext, out *Ciphertext, sc *Scratch) {
	ev.evalSum(pl.gs, pl.d, in, out, sc)
}

// evalSum is the one bootstrap path: Σ w_i·in_i with the phase shifted by
// (d - 1)/2 slots, i.e. (d - 1)·Q_ks/(2P) (nothing for d = 1), then the
// blind rotation of the decision pattern.
func (ev *Evaluator) evalSum(spec gateSpec, d int, in []*Ciphertext, out *Ciphertext, sc *Scratch) {
	p := ev.params.params
	combine(p, in, spec.weights, 0, sc)
	sc.comb[0] += uint16((d - 1) * p.qks / (2 * p.slots))
	ev.bootstrap(spec.pattern, out, sc)
}
