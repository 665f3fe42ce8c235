package fhew

import (
	"math"
	"sync"
)

// Which Boolean functions one bootstrap evaluates.
//
// Gate-level ciphertexts encode a bit at spacing Q_ks/4. A bootstrap sees
// v = Σ w_i·x_i mod 4 (integer weights) plus noise, and its test polynomial
// is negacyclic: the decision h(v) must satisfy h(v+2) = ¬h(v). So a k-input
// function f is evaluable in one bootstrap iff there are weights w_i in
// {0, 1, -1, 2} (mod 4 every weight is one of these; -1 and 1 cost the same
// noise) and h(0), h(1) with f(x) = h(Σ w_i x_i mod 4) for every x. AND, OR,
// NAND, NOR, a AND NOT b, MAJORITY, XOR (weights 2,2) qualify; AND3, OR3 and
// MUX do not (MUX takes two bootstraps, see Evaluator.MUX).

// LUTSpec says how one bootstrap evaluates a k-input function.
type LUTSpec struct {
	// Weights are the w_i of the linear combination Σ w_i·x_i.
	Weights []int
	// Pattern bit 0 is the output for Σ ≡ 0 (mod 4), bit 1 for Σ ≡ 1.
	Pattern uint8
}

func (s LUTSpec) gateSpec() gateSpec {
	w := make([]int8, len(s.Weights))
	for i, x := range s.Weights {
		w[i] = int8(x)
	}
	return gateSpec{weights: w, pattern: s.Pattern}
}

// weightNorm returns Σ w_i², the factor on the input noise variance.
func (s LUTSpec) weightNorm() int {
	t := 0
	for _, w := range s.Weights {
		t += w * w
	}
	return t
}

// MaxLUTInputs is the largest k EvalLUT and CanEvalLUT accept (as ir.LUT).
const MaxLUTInputs = 6

var lutCache sync.Map // key uint64(k)<<56 ^ table -> lutEntry

type lutEntry struct {
	spec LUTSpec
	gs   gateSpec // spec in the evaluator's form, so EvalLUT allocates nothing
	ok   bool
}

// findLUT searches weights in {0, 1, -1, 2}^k and the four patterns for the
// cheapest (smallest Σ w²) evaluation of table; results are cached.
func findLUT(table uint64, k int) (LUTSpec, bool) {
	e := findLUTEntry(table, k)
	return e.spec, e.ok
}

func findLUTEntry(table uint64, k int) lutEntry {
	if k < 1 || k > MaxLUTInputs {
		return lutEntry{}
	}
	if k < 6 {
		table &= (uint64(1) << (1 << uint(k))) - 1
	}
	key := uint64(k)<<56 ^ table
	if e, ok := lutCache.Load(key); ok {
		return e.(lutEntry)
	}
	choices := [4]int{0, 1, -1, 2}
	best := LUTSpec{}
	bestNorm := math.MaxInt
	found := false
	idx := make([]int, k)
	w := make([]int, k)
	for {
		for i := range w {
			w[i] = choices[idx[i]]
		}
		norm := 0
		for _, x := range w {
			norm += x * x
		}
		if norm < bestNorm {
			for pat := uint8(0); pat < 4; pat++ {
				if lutMatches(table, k, w, pat) {
					best = LUTSpec{Weights: append([]int(nil), w...), Pattern: pat}
					bestNorm, found = norm, true
					break
				}
			}
		}
		// next weight vector
		i := 0
		for i < k {
			idx[i]++
			if idx[i] < 4 {
				break
			}
			idx[i] = 0
			i++
		}
		if i == k {
			break
		}
	}
	e := lutEntry{spec: best, ok: found}
	if found {
		e.gs = best.gateSpec()
	}
	lutCache.Store(key, e)
	return e
}

// lutMatches reports whether f(x) = h(Σ w_i x_i mod 4) for all x.
func lutMatches(table uint64, k int, w []int, pat uint8) bool {
	for x := 0; x < 1<<uint(k); x++ {
		v := 0
		for i := 0; i < k; i++ {
			if x>>uint(i)&1 == 1 {
				v += w[i]
			}
		}
		v &= 3
		h := (pat >> uint(v&1)) & 1
		if v >= 2 {
			h ^= 1
		}
		if uint8(table>>uint(x)&1) != h {
			return false
		}
	}
	return true
}

// CanEvalLUT reports whether the k-input function table (bit i = f(i), input
// 0 the least significant bit of i) is evaluable in one bootstrap, and with
// which weights. The answer depends only on the encoding, not on the set;
// the failure probability does (GateFailureLog2).
func (p Params) CanEvalLUT(table uint64, k int) (weights []int, ok bool) {
	s, ok := findLUT(table, k)
	if !ok {
		return nil, false
	}
	return append([]int(nil), s.Weights...), true
}

// LUTSupport is one function the set evaluates in one bootstrap.
type LUTSupport struct {
	Table uint64
	LUTSpec
	// Log2Failure is log2 of the predicted probability that one evaluation
	// decrypts wrongly, with inputs fresh from bootstrapping.
	Log2Failure float64
}

// LUTCapability lists every k-input function (k <= 4) evaluable in one
// bootstrap, with its weights and predicted failure probability.
func (p Params) LUTCapability(k int) []LUTSupport {
	if k < 1 || k > 4 {
		return nil
	}
	var out []LUTSupport
	for t := uint64(0); t < uint64(1)<<(1<<uint(k)); t++ {
		if s, ok := findLUT(t, k); ok {
			out = append(out, LUTSupport{Table: t, LUTSpec: s, Log2Failure: p.GateFailureLog2(s.Weights)})
		}
	}
	return out
}
