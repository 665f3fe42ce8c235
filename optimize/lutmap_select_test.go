package optimize

import (
	"math"
	"math/rand/v2"
	"testing"

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
