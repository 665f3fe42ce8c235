package hcc

import (
	"fmt"
	"math"
	"slices"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
)

// AutoParams as Target.Params lets the compiler choose the parameter set
// per circuit (FHEW only): it maps the circuit on every 128-bit set
// (fhew.SecureNames and the 128-bit wide-table sets: never a set below the
// 128-bit target, never an insecure one, whatever Target.Insecure says),
// tightens a LUT set's per-bootstrap LUT bound while the predicted failure
// of one run is above 2^MaxFailureLog2, and keeps the cheapest within it,
// in NAND-equivalents of the default set (bootstraps ×
// fhew.Params.BootstrapCost, a SEL at the measured price the mapper gave
// it, fhew.LUTTarget.SelectCost; a wide-table plan's circuit bootstraps,
// tables and outputs at their measured prices). Sets whose
// estimated cost is already above the best are not mapped
// (optimize.ChooseLUTSetPruned). The program records the chosen set
// (Program.Target().Params, its file, its Hash, the keys it needs), never
// "auto"; Program.Choice reports every candidate.
const AutoParams = "auto"

// ParamsChoice is how AutoParams chose a program's parameter set.
type ParamsChoice struct {
	// Candidates holds every candidate's result, the chosen set first,
	// then the other sets within the failure target by cost, then those
	// that miss it or were not mapped.
	Candidates []ParamsCandidate
	// MaxFailureLog2 is the failure target of one run the choice met.
	MaxFailureLog2 float64
}

// Chosen is the chosen set's result (Candidates[0]).
func (c *ParamsChoice) Chosen() ParamsCandidate { return c.Candidates[0] }

// ParamsCandidate is one parameter set's result in a ParamsChoice.
type ParamsCandidate struct {
	// Params is the set's name.
	Params string
	// Bootstraps is the mapped circuit's bootstrap count (a SEL counted as
	// its whole bootstraps, as Program.Summary counts it) and Cost what the
	// choice compares: that count with each SEL at its measured fractional
	// price (optimize.LUTChoice.Priced, what the mapper minimised) times
	// the set's bootstrap price, in NAND-equivalents of the default set.
	Bootstraps int
	Cost       float64
	// FailureLog2 is log2 of the predicted failure of one run (NaN when
	// Skipped without a mapping); LUTFailureLog2 is the per-bootstrap LUT
	// bound the circuit was mapped with.
	FailureLog2, LUTFailureLog2 float64
	// OK reports FailureLog2 within the target.
	OK bool
	// Skipped reports a set that was not mapped (or not tightened) to the
	// end because its estimated cost already exceeded the best: Bootstraps
	// and Cost are then that estimate.
	Skipped bool
	// Wide reports a wide-table set (circuit bootstrapping and vertical
	// packing): Bootstraps counts circuit bootstraps, LUTFailureLog2 is NaN.
	Wide bool
	// Line is the one-line report hcc prints for the candidate.
	Line string
}

// String is Line.
func (c ParamsCandidate) String() string { return c.Line }

// Choice reports how AutoParams chose the program's set, or nil when the
// program was compiled for a named set (or read from a file, which
// records only the chosen set).
func (p *Program) Choice() *ParamsChoice { return p.choice }

// paramsChooser is an engine that understands AutoParams.
type paramsChooser interface {
	// autoCandidate reports whether AutoParams may choose the set name.
	autoCandidate(name string) bool
}

func (fhewEngine) autoCandidate(name string) bool {
	return slices.Contains(fhew.SecureNames(), name) || slices.Contains(wideNames(false), name)
}

// autoCandidates are the sets AutoParams chooses among for t, with the
// Covers relation that lets the choice skip sets (optimize.LUTCandidate).
func fhewAutoCandidates(t Target) ([]optimize.LUTCandidate, error) {
	// The default set first: candidates of equal cost (a circuit without
	// bootstraps costs nothing anywhere) resolve to the earlier one.
	names := []string{fhewDefaultParams}
	for _, name := range fhew.SecureNames() {
		if name != fhewDefaultParams {
			names = append(names, name)
		}
	}
	ps := make([]fhew.Params, len(names))
	for i, name := range names {
		s, err := fhewEngine{}.scheme(name, false)
		if err != nil {
			return nil, err
		}
		ps[i] = s.(*fhewScheme).p
	}
	pf := t.ParityFailureLog2
	if pf == 0 {
		pf = fhew.DefaultParityFailureLog2
	}
	cands := make([]optimize.LUTCandidate, len(names))
	for i, p := range ps {
		var covers []string
		for j, q := range ps {
			if i != j && fhewCovers(p, q) {
				covers = append(covers, names[j])
			}
		}
		cands[i] = optimize.LUTCandidate{
			Name: names[i], Cost: p.BootstrapCost(), Covers: covers,
			// At the first bound (2^-40) this is fhewLUTTarget(p, t), the
			// named set's own mapping; a tightened LUT bound tightens
			// the PARITY bound with it where it is the lower one.
			Target: func(b float64) optimize.LUTTarget {
				return newMemoLUTTarget(fhew.NewLUTTarget(p, b).WithParityFailure(min(pf, b)))
			},
			Failure: func(c *ir.Circuit) (float64, error) {
				f, err := p.CircuitFailure(c)
				return f.Log2Failure, err
			},
		}
	}
	return cands, nil
}

// fhewCovers reports whether p allows at least what q allows at any bound
// (optimize.LUTCandidate.Covers): the same message space, and for every
// input noise the mapper asks about (bootstrapped outputs, multi-output
// extractions) a variance no larger on its own and no larger with the key
// switching and rounding every sum gets (a sum's weights have Σw² >= 1).
func fhewCovers(p, q fhew.Params) bool {
	// A set with the shared-select CMux gadget maps MUXes to CMuxes, which
	// a set without it cannot: its count is no estimate of q's.
	if p.Slots() != q.Slots() || (q.HasCMux() && !p.HasCMux()) {
		return false
	}
	mp, mq := p.Noise(), q.Noise()
	fixedP, fixedQ := mp.KeySwitch+mp.Rounding, mq.KeySwitch+mq.Rounding
	for _, v := range [][2]float64{{mp.Output, mq.Output}, {p.MultiOutputVariance(), q.MultiOutputVariance()}} {
		if v[0] > v[1] || v[0]+fixedP > v[1]+fixedQ {
			return false
		}
	}
	return true
}

// compileAuto is the FHEW compile for AutoParams: the choice, the chosen
// set's scheme and circuit, and the report.
func (e fhewEngine) compileAuto(c *ir.Circuit, t Target, cfg *compileConfig) (*ir.Circuit, scheme, error) {
	cands, err := fhewAutoCandidates(t)
	if err != nil {
		return nil, nil, err
	}
	if cfg.observe != nil {
		s, err := e.scheme(fhewDefaultParams, false)
		if err != nil {
			return nil, nil, err
		}
		cfg.observe("input", fhewPassSummary(c, fhewLUTTarget(s.(*fhewScheme).p, t)))
	}
	// The wide-table sets map beside the LUT sets; their best cost within
	// the target lets the LUT choice skip what cannot beat it.
	var wide []wideCandidate
	wideDone := make(chan struct{})
	wideBest := make(chan float64, 1)
	go func() {
		defer close(wideDone)
		wide = fhewAutoWide(c)
		b := math.Inf(1)
		for _, r := range wide {
			if r.err == nil && r.failure <= MaxFailureLog2 {
				b = min(b, r.cost)
			}
		}
		wideBest <- b
	}()
	choices, lutErr := optimize.ChooseLUTSetAgainst(c, cands, MaxFailureLog2, t.LUTInputs, wideBest)
	<-wideDone
	if choices == nil { // not "no set meets the target", which a wide set may
		return nil, nil, fmt.Errorf("compiling %q with parameter set auto: %w", c.Name, lutErr)
	}
	pc := &ParamsChoice{MaxFailureLog2: MaxFailureLog2}
	for _, ch := range choices {
		pc.Candidates = append(pc.Candidates, ParamsCandidate{
			Params: ch.Name, Bootstraps: ch.Bootstraps, Cost: ch.Cost,
			FailureLog2: ch.Log2Failure, LUTFailureLog2: ch.LUTFailureLog2,
			OK: ch.OK, Skipped: ch.Skipped, Line: ch.String(),
		})
	}
	byName := map[string]wideCandidate{}
	for _, r := range wide {
		pc.Candidates = append(pc.Candidates, r.paramsCandidate())
		byName[r.name] = r
	}
	// Within the target first, then by cost; ties keep the LUT sets' order
	// (the default set first) ahead of the wide ones.
	slices.SortStableFunc(pc.Candidates, func(a, b ParamsCandidate) int {
		switch {
		case a.OK != b.OK && a.OK:
			return -1
		case a.OK != b.OK:
			return 1
		case a.Cost < b.Cost:
			return -1
		case a.Cost > b.Cost:
			return 1
		}
		return 0
	})
	best := pc.Candidates[0]
	if !best.OK {
		return nil, nil, fmt.Errorf("compiling %q with parameter set auto: no parameter set meets the failure target 2^%.0f (best %s)", c.Name, float64(MaxFailureLog2), best)
	}
	cfg.choice = pc
	if r, ok := byName[best.Params]; ok {
		if cfg.observe != nil {
			cfg.observe("wide-map", r.s.describe(r.plan))
		}
		return r.d, r.s, nil
	}
	s, err := e.scheme(best.Params, false)
	if err != nil {
		return nil, nil, err
	}
	if choices[0].Name != best.Params {
		return nil, nil, fmt.Errorf("internal error: auto chose %s, the LUT choice %s", best.Params, choices[0].Name)
	}
	d := choices[0].Circuit
	if cfg.observe != nil {
		cfg.observe("lut-map", fhewPassSummary(d, fhewLUTTarget(s.(*fhewScheme).p, t)))
	}
	return d, s, nil
}

// autoError is the refusal of AutoParams where no circuit is compiled.
func autoError(what string) error {
	return fmt.Errorf("parameter set %s is chosen per circuit by Compile (hcc compile/run --params auto); %s needs the chosen set: that of the compiled program (Program.Target().Params, hcc keygen --for PROGRAM.hcp)", AutoParams, what)
}
