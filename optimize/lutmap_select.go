package optimize

import (
	"fmt"
	"math"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

// Choosing the parameter set per circuit. A set's bootstrap has a price
// (its blind rotation's work, measured in NAND-equivalents of the default
// set) and a capability (which functions, and groups of functions, one
// bootstrap evaluates within a failure bound). ChooseLUTSet maps a circuit
// on each candidate and keeps the cheapest whose predicted failure for one
// run is within the circuit's target. The per-bootstrap LUT bound a
// candidate is mapped with starts at 2^-40 and is tightened by the excess
// (plus two bits) while the circuit misses its target: a circuit of many
// LUTs near the bound needs each to be more reliable.

// LUTCandidate is a parameter set the compiler may choose for a circuit.
type LUTCandidate struct {
	// Name names the set in reports.
	Name string
	// Cost is one bootstrap's price in NAND-equivalents of the reference set.
	Cost float64
	// Target returns the set's LUT target with per-bootstrap LUT failure
	// bound 2^lutFailureLog2.
	Target func(lutFailureLog2 float64) LUTTarget
	// Failure returns log2 of the predicted failure of one encrypted run of
	// a circuit mapped for the set.
	Failure func(*ir.Circuit) (float64, error)
}

// LUTChoice is one candidate's result.
type LUTChoice struct {
	// Name is the candidate's.
	Name string
	// Bootstraps is the mapped circuit's bootstrap count and Cost that
	// times the candidate's Cost.
	Bootstraps int
	Cost       float64
	// Log2Failure is the predicted failure of one run; LUTFailureLog2 the
	// per-bootstrap bound the circuit was mapped with.
	Log2Failure, LUTFailureLog2 float64
	// OK reports Log2Failure within the target.
	OK bool
	// Circuit is the mapped circuit.
	Circuit *ir.Circuit
}

// String is a one-line report of the choice.
func (ch LUTChoice) String() string {
	s := fmt.Sprintf("%s: %d bootstraps × %.2f = %.0f NAND-equivalents, predicted failure 2^%.1f per run (LUTs within 2^%.0f)",
		ch.Name, ch.Bootstraps, ch.Cost/float64(max(ch.Bootstraps, 1)), ch.Cost, ch.Log2Failure, ch.LUTFailureLog2)
	if !ch.OK {
		s += ", over the target"
	}
	return s
}

// maxTightenings bounds the re-mappings per candidate.
const maxTightenings = 4

// ChooseLUTSet maps c (as the ForLUTs pipeline does, cuts of up to
// maxInputs leaves) for every candidate, tightening its LUT bound until
// the predicted failure of a run is at most 2^maxFailureLog2, and returns
// every candidate's result, cheapest first among those within the target
// (those that miss it follow). It fails if no candidate meets the target.
func ChooseLUTSet(c *ir.Circuit, cands []LUTCandidate, maxFailureLog2 float64, maxInputs int) ([]LUTChoice, error) {
	if len(cands) == 0 {
		return nil, fmt.Errorf("optimize: no parameter set to choose from")
	}
	var out []LUTChoice
	for _, cand := range cands {
		bound := -40.0
		var ch LUTChoice
		for try := 0; try <= maxTightenings; try++ {
			tg := cand.Target(bound)
			d, err := ForLUTs(tg, maxInputs).Run(c)
			if err != nil {
				return nil, fmt.Errorf("optimize: %s: %w", cand.Name, err)
			}
			f, err := cand.Failure(d)
			if err != nil {
				return nil, fmt.Errorf("optimize: %s: %w", cand.Name, err)
			}
			n := coverCost(tg)(d)
			ch = LUTChoice{Name: cand.Name, Bootstraps: n, Cost: float64(n) * cand.Cost,
				Log2Failure: f, LUTFailureLog2: bound, OK: f <= maxFailureLog2, Circuit: d}
			if ch.OK || math.IsInf(f, 0) {
				break
			}
			bound -= math.Ceil(f-maxFailureLog2) + 2
		}
		out = append(out, ch)
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].OK != out[b].OK {
			return out[a].OK
		}
		return out[a].Cost < out[b].Cost
	})
	if !out[0].OK {
		return out, fmt.Errorf("optimize: no parameter set meets the failure target 2^%.0f (best %s)", maxFailureLog2, out[0])
	}
	return out, nil
}
