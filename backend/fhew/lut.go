package fhew

import (
	"sync"
)

// Which Boolean functions one bootstrap evaluates.
//
// Gate-level ciphertexts encode a bit at spacing Q_ks/P (P = Params.Slots).
// A bootstrap sees v = Σ w_i·x_i mod P (integer weights) plus noise, and its
// test polynomial is negacyclic: the decision h(v) must satisfy
// h(v + P/2) = ¬h(v). So a k-input function f is evaluable in one bootstrap
// iff there are weights w_i (mod P) and h on [0, P/2) with
// f(x) = h(Σ w_i x_i mod P) for every x. At P = 4: AND, OR, NAND, NOR,
// a AND NOT b, MAJORITY, XOR (weights 2,2) and XOR3 (2,2,1) qualify; AND3,
// OR3 and MUX do not. At P = 8 every function of a sum of up to three
// inputs with weight one qualifies (AND3, OR3, XOR with weights 1,1, ...).

// LUTSpec says how one bootstrap evaluates a k-input function.
type LUTSpec struct {
	// Weights are the w_i of the linear combination Σ w_i·x_i.
	Weights []int
	// Pattern bit v is the output for Σ ≡ v (mod P), v in [0, P/2); the
	// other half follows by negation.
	Pattern uint8
}

func (s LUTSpec) gateSpec() gateSpec {
	w := make([]int8, len(s.Weights))
	for i, x := range s.Weights {
		w[i] = int8(x)
	}
	return gateSpec{weights: w, pattern: s.Pattern}
}

// MaxLUTInputs is the largest k EvalLUT and CanEvalLUT accept (as ir.LUT).
const MaxLUTInputs = 6

var lutCache sync.Map // key lutKey -> lutEntry

type lutKey struct {
	slots, k int
	table    uint64
}

// newLUTKey returns the cache key of a k-input table at plaintext spacing
// slots, with the bits beyond 2^k cleared so that equal functions share it;
// ok is false when k is out of range.
func newLUTKey(slots int, table uint64, k int) (key lutKey, ok bool) {
	if k < 1 || k > MaxLUTInputs {
		return lutKey{}, false
	}
	if k < 6 {
		table &= (uint64(1) << (1 << uint(k))) - 1
	}
	return lutKey{slots, k, table}, true
}

type lutEntry struct {
	spec LUTSpec
	gs   gateSpec // spec in the evaluator's form, reused by the plan (findPlan)
	ok   bool
}

// weightChoices are the weights tried: every residue mod P, each as its
// representative of smallest absolute value (the noise grows with w²).
func weightChoices(slots int) []int {
	if slots == 4 {
		return []int{0, 1, -1, 2}
	}
	return []int{0, 1, -1, 2, -2, 3, -3, 4}
}

// findLUTEntry searches all weight vectors for the cheapest (smallest Σ w²)
// evaluation of table at plaintext spacing slots; results are cached.
func findLUTEntry(slots int, table uint64, k int) lutEntry {
	key, ok := newLUTKey(slots, table, k)
	if !ok {
		return lutEntry{}
	}
	table = key.table
	if e, ok := lutCache.Load(key); ok {
		return e.(lutEntry)
	}
	best := LUTSpec{}
	w, pat, found := searchWeights(slots, table, k, weightChoices(slots))
	if found {
		best = LUTSpec{Weights: w, Pattern: pat}
	}
	e := lutEntry{spec: best, ok: found}
	if found {
		e.gs = best.gateSpec()
	}
	lutCache.Store(key, e)
	return e
}

// lutPattern derives h from the table for weights w: each input x fixes
// h(v mod P/2) = f(x) XOR [v >= P/2] for v = Σ w_i x_i mod P; it fails on
// a contradiction. Undetermined pattern bits are 0.
func lutPattern(slots int, table uint64, k int, w []int) (uint8, bool) {
	half := slots / 2
	var set, val uint8
	for x := 0; x < 1<<uint(k); x++ {
		v := 0
		for i := 0; i < k; i++ {
			if x>>uint(i)&1 == 1 {
				v += w[i]
			}
		}
		v = ((v % slots) + slots) % slots
		bit := uint8(table>>uint(x)) & 1
		if v >= half {
			v -= half
			bit ^= 1
		}
		m := uint8(1) << uint(v)
		if set&m != 0 {
			if (val&m != 0) != (bit == 1) {
				return 0, false
			}
			continue
		}
		set |= m
		if bit == 1 {
			val |= m
		}
	}
	return val, true
}

// CanEvalLUT reports whether the k-input function table (bit i = f(i), input
// 0 the least significant bit of i) is evaluable in one bootstrap, and with
// which weights. The answer depends only on the encoding (Slots); the
// failure probability also on the noise (SumFailureLog2).
//
// The weights are those EvalLUT and the Backend evaluate with (findPlan):
// when a weight vector whose entries are all multiples of d has the smaller
// noise relative to its d-fold margin, that one is returned, and
// SumFailureLog2 credits it with the wider margin.
func (p Params) CanEvalLUT(table uint64, k int) (weights []int, ok bool) {
	pl := findPlan(p.slots, table, k)
	if !pl.ok {
		return nil, false
	}
	return append([]int(nil), pl.spec.Weights...), true
}

// LUTSupport is one function the set evaluates in one bootstrap.
type LUTSupport struct {
	// Table is the truth table (bit i = f(i)).
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
		if pl := findPlan(p.slots, t, k); pl.ok {
			out = append(out, LUTSupport{Table: t, LUTSpec: pl.spec, Log2Failure: p.SumFailureLog2(pl.spec.Weights)})
		}
	}
	return out
}
