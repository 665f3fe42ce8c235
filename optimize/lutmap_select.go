package optimize

import (
	"fmt"

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
	// Covers names the candidates this one is at least as capable as: same
	// encoding, and no noise term of theirs smaller, so every function,
	// PARITY width and multi-output group they allow at any bound up to
	// 2^-40 this one allows at 2^-40. ChooseLUTSetPruned takes this
	// candidate's priced bootstraps at 2^-40 (LUTChoice.Priced) as the
	// least they need (an estimate: the mapper is a heuristic, not
	// monotone by proof) and skips those that cannot beat the best result
	// at that count. ChooseLUTSet ignores it.
	Covers []string
}

// LUTChoice is one candidate's result.
type LUTChoice struct {
	// Name is the candidate's.
	Name string
	// Bootstraps is the mapped circuit's bootstrap count, an OpSel counted
	// at its whole SelectBootstraps as every report counts it. Priced is
	// what the mapper minimised: the same with each OpSel at its measured
	// fractional price (SelectCoster; Bootstraps itself on a target
	// without one). Cost is Priced times the candidate's Cost, the figure
	// the choice compares: a set whose selects take 3.09 bootstraps' time
	// must not lose to one it beats in time because a select counts 4.
	Bootstraps int
	Priced     float64
	Cost       float64
	// Log2Failure is the predicted failure of one run; LUTFailureLog2 the
	// per-bootstrap bound the circuit was mapped with.
	Log2Failure, LUTFailureLog2 float64
	// OK reports Log2Failure within the target.
	OK bool
	// Skipped reports a candidate ChooseLUTSetPruned did not map to the
	// end because its estimate already cost more than the best result:
	// Bootstraps and Cost are then the estimate, from the first mapping of
	// EstimatedFrom (another candidate that Covers it: Log2Failure is NaN
	// and Circuit nil), or from its own last mapping (EstimatedFrom is its
	// own name: the mapping missed the target and a tighter bound can only
	// cost more).
	Skipped       bool
	EstimatedFrom string
	// Circuit is the mapped circuit.
	Circuit *ir.Circuit
}

// String is a one-line report of the choice.
func (ch LUTChoice) String() string {
	if ch.Skipped && ch.EstimatedFrom != ch.Name {
		return fmt.Sprintf("%s: not mapped, at least %s = %.0f NAND-equivalents (estimated from %s)",
			ch.Name, ch.priceText(ch.EstimatedFrom+"'s SELs"), ch.Cost, ch.EstimatedFrom)
	}
	if ch.Bootstraps == 0 && !ch.Skipped {
		return fmt.Sprintf("%s: no bootstraps, nothing can fail", ch.Name)
	}
	s := fmt.Sprintf("%s: %s = %.0f NAND-equivalents, predicted failure 2^%.1f per run (LUTs within 2^%.0f)",
		ch.Name, ch.priceText("SELs"), ch.Cost, ch.Log2Failure, ch.LUTFailureLog2)
	if !ch.OK {
		s += ", over the target"
	}
	if ch.Skipped {
		s += "; not tightened further (it already costs more than the best)"
	}
	return s
}

// priceText is "N bootstraps × price", with the priced count beside N
// where an OpSel's measured price makes it differ ("N bootstraps (priced
// P: SELs at their measured cost) × price"), so that the product printed
// is the Cost compared. sels names whose selects were priced: "SELs" for
// a mapping of the set itself, the coverer's for an estimate taken from
// another set's mapping (the set itself may have no SELs).
func (ch LUTChoice) priceText(sels string) string {
	price := 0.0
	if ch.Priced > 0 {
		price = ch.Cost / ch.Priced
	}
	if ch.Priced == float64(ch.Bootstraps) {
		return fmt.Sprintf("%d bootstraps × %.2f", ch.Bootstraps, price)
	}
	return fmt.Sprintf("%d bootstraps (priced %.1f: %s at their measured cost) × %.2f", ch.Bootstraps, ch.Priced, sels, price)
}
