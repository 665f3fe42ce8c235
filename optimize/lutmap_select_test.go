package optimize

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// boundedAny accepts every function of up to k inputs; its "failure" per
// LUT is the bound it was made with, so a circuit's failure is
// log2(#LUTs · 2^bound) and tightening the bound is what brings it down.
type boundedAny struct {
	anyFunction
	bound float64
}

func lutFailure(c *ir.Circuit, bound float64) float64 {
	n := 0
	for i := range c.Nodes {
		if c.Nodes[i].Op.IsBootstrapped() {
			n++
		}
	}
	if n == 0 {
		return math.Inf(-1)
	}
	return bound + math.Log2(float64(n))
}

// TestChooseLUTSet: the cheaper set wins when both meet the target; a set
// that misses it until its bound is tightened is re-mapped with the
// tighter bound; a set that can never meet it loses whatever its price;
// and the chosen circuit is equivalent to the input.
func TestChooseLUTSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	c := randomCircuitNoParity(t, rng, 14, 400)
	// offset > 0 makes the failure 2^offset whatever the bound (a set too
	// noisy for the circuit).
	mk := func(name string, cost float64, k int, offset float64) LUTCandidate {
		var last float64
		return LUTCandidate{
			Name: name, Cost: cost,
			Target: func(b float64) LUTTarget { last = b; return boundedAny{anyFunction{k}, b} },
			Failure: func(d *ir.Circuit) (float64, error) {
				if offset > 0 {
					return offset, nil
				}
				return lutFailure(d, last), nil
			},
		}
	}
	choices, err := ChooseLUTSet(c, []LUTCandidate{
		mk("wide-expensive", 3, 6, 0),
		mk("narrow-cheap", 1, 3, 0),
		mk("hopeless", 0.1, 6, 1),
	}, -40, 6)
	if err != nil {
		t.Fatal(err)
	}
	if choices[0].Name != "narrow-cheap" || !choices[0].OK {
		t.Fatalf("chose %v", choices[0])
	}
	if last := choices[len(choices)-1]; last.Name != "hopeless" || last.OK {
		t.Fatalf("the hopeless set should come last and miss the target: %v", last)
	}
	for _, ch := range choices[:2] {
		if ch.Log2Failure > -40 || ch.LUTFailureLog2 >= -40 {
			t.Errorf("%v: failure over the target, or the bound was not tightened", ch)
		}
		circuittest.Equivalent(t, c, ch.Circuit)
	}
	if _, err := ChooseLUTSet(c, []LUTCandidate{mk("hopeless", 1, 6, 1)}, -40, 6); err == nil {
		t.Fatal("no error when no set meets the target")
	}
}

// TestChooseLUTSetPruned: a covered candidate whose estimate (its
// coverer's bootstraps times its price) is above the best is skipped, with
// the estimate and where it came from; the cheapest candidate is mapped
// even when covered; a candidate that misses the target is not tightened
// past the best; the choice equals ChooseLUTSet's, and repeated runs agree.
func TestChooseLUTSetPruned(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	c := randomCircuitNoParity(t, rng, 14, 400)
	mk := func(name string, cost float64, k int, offset float64, covers ...string) LUTCandidate {
		var last float64
		return LUTCandidate{
			Name: name, Cost: cost, Covers: covers,
			Target: func(b float64) LUTTarget { last = b; return boundedAny{anyFunction{k}, b} },
			Failure: func(d *ir.Circuit) (float64, error) {
				if offset > 0 {
					return offset, nil
				}
				return lutFailure(d, last) - 10, nil // within 2^-40 at the first bound
			},
		}
	}
	cands := func() []LUTCandidate {
		return []LUTCandidate{
			mk("k6", 1, 6, 0, "k4", "k3"),
			mk("k4", 1.2, 4, 0),
			mk("k3", 0.5, 3, 0),
			mk("hopeless", 5, 6, 1),
		}
	}
	full, err := ChooseLUTSet(c, cands(), -40, 6)
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := ChooseLUTSetPruned(c, cands(), -40, 6)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ChooseLUTSetPruned(c, cands(), -40, 6)
	if err != nil {
		t.Fatal(err)
	}
	by := func(chs []LUTChoice) map[string]LUTChoice {
		m := map[string]LUTChoice{}
		for _, ch := range chs {
			m[ch.Name] = ch
		}
		return m
	}
	f, p := by(full), by(pruned)
	for _, ch := range pruned {
		t.Log(ch)
	}
	if pruned[0].Name != full[0].Name || pruned[0].Bootstraps != full[0].Bootstraps {
		t.Errorf("pruned chose %v, full %v", pruned[0], full[0])
	}
	if k4 := p["k4"]; !k4.Skipped || k4.EstimatedFrom != "k6" || k4.Bootstraps != f["k6"].Bootstraps || k4.Circuit != nil || k4.Cost > f["k4"].Cost {
		t.Errorf("k4 should be skipped with k6's count as the estimate: %v (full %v)", k4, f["k4"])
	}
	if k3 := p["k3"]; k3.Skipped || k3.Bootstraps != f["k3"].Bootstraps {
		t.Errorf("k3, the cheapest, should be mapped: %v (full %v)", k3, f["k3"])
	}
	if h := p["hopeless"]; !h.Skipped || h.EstimatedFrom != "hopeless" || h.OK || h.LUTFailureLog2 != -40 {
		t.Errorf("hopeless should stop at its first mapping, above the best: %v", h)
	}
	for i := range pruned {
		if a, b := pruned[i], again[i]; a.String() != b.String() {
			t.Errorf("runs differ: %v against %v", a, b)
		}
	}
}

// TestChooseLUTSetAgainst: an outside result cheaper than every candidate
// makes the covered ones skip even when their estimate beats the
// candidates' best, and stops tightenings; an outside result of +Inf (sent
// late) gives ChooseLUTSetPruned's result.
func TestChooseLUTSetAgainst(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	c := randomCircuitNoParity(t, rng, 12, 300)
	mk := func(name string, cost float64, k int, shift float64, covers ...string) LUTCandidate {
		var last float64
		return LUTCandidate{
			Name: name, Cost: cost, Covers: covers,
			Target:  func(b float64) LUTTarget { last = b; return boundedAny{anyFunction{k}, b} },
			Failure: func(d *ir.Circuit) (float64, error) { return lutFailure(d, last) + shift, nil },
		}
	}
	cands := func() []LUTCandidate {
		return []LUTCandidate{
			mk("k6", 1, 6, -10, "k5"),
			mk("k5", 0.95, 5, -10), // its estimate k6 × 0.95 beats k6
			mk("tight", 0.5, 6, 5), // the cheapest; misses the target at every bound
		}
	}
	send := func(v float64) <-chan float64 {
		ch := make(chan float64, 1)
		go func() { time.Sleep(10 * time.Millisecond); ch <- v }()
		return ch
	}
	ref, err := ChooseLUTSetPruned(c, cands(), -40, 6)
	if err != nil {
		t.Fatal(err)
	}
	same, err := ChooseLUTSetAgainst(c, cands(), -40, 6, send(math.Inf(1)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref {
		if ref[i].String() != same[i].String() {
			t.Errorf("against +Inf: %v, pruned: %v", same[i], ref[i])
		}
	}
	low, err := ChooseLUTSetAgainst(c, cands(), -40, 6, send(1))
	if err != nil {
		t.Fatal(err) // k6 still meets the target
	}
	by := map[string]LUTChoice{}
	for _, ch := range low {
		t.Log(ch)
		by[ch.Name] = ch
	}
	if k5 := by["k5"]; !k5.Skipped || k5.EstimatedFrom != "k6" {
		t.Errorf("k5 should be skipped against the outside result: %v", k5)
	}
	if tt := by["tight"]; !tt.Skipped || tt.LUTFailureLog2 != -40 {
		t.Errorf("tight should not be tightened against the outside result: %v", tt)
	}
	if k6 := by["k6"]; !k6.OK || k6.Skipped {
		t.Errorf("k6 (not covered) is mapped and within the target: %v", k6)
	}
}
