package optimize

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/hcc-fhe/hcc/ir"
)

// How the choice is computed. The front passes of ForLUTs (Fold,
// AbsorbNot, DCE) do not depend on the target, so they run once and every
// candidate maps their result with LUTMap: the same circuits as ForLUTs
// would give. Candidates map concurrently, at most GOMAXPROCS at a time
// (LUTMap itself maps two to four covers side by side). Each result
// depends only on its candidate, so the choice is deterministic.
//
// ChooseLUTSetPruned adds estimates, in three deterministic phases:
//  1. the candidates no other one Covers, and the one cheapest per
//     bootstrap, are mapped at the first bound;
//  2. each covered candidate gets the estimate max over its mapped
//     coverers of their priced bootstraps (LUTChoice.Priced) times its
//     own Cost, and is mapped only
//     if that is not above the best result within the target so far;
//  3. the mapped candidates that miss the target are tightened, each until
//     it meets it or its own priced bootstraps times its Cost exceed the best
//     first mapping of phases 1-2 (a tighter bound allows fewer functions).
//
// Phases 1 and 2 tighten a candidate right after its first mapping while
// it is not above the best result seen so far (work phase 3 would likely
// ask for, done while other candidates still map); phase 3 then walks the
// recorded steps with its fixed bound, so the result never depends on
// which candidate finished first.
//
// The estimates assume the mapper never needs fewer bootstraps when it is
// allowed fewer functions. That is what a cover optimum does, but LUTMap
// is a heuristic, so a skipped candidate could in principle have come out
// a few bootstraps cheaper; TestAutoPrunedSame (package hcc) checks that the
// choice and its counts equal ChooseLUTSet's on the test circuits.

// maxTightenings bounds the re-mappings per candidate.
const maxTightenings = 4

// firstLUTFailureLog2 is the per-bootstrap LUT bound of a candidate's
// first mapping.
const firstLUTFailureLog2 = -40.0

// ChooseLUTSet maps c (as the ForLUTs pipeline does, cuts of up to
// maxInputs leaves) for every candidate, tightening its LUT bound until
// the predicted failure of a run is at most 2^maxFailureLog2, and returns
// every candidate's result, cheapest first among those within the target
// (those that miss it follow). It fails if no candidate meets the target.
func ChooseLUTSet(c *ir.Circuit, cands []LUTCandidate, maxFailureLog2 float64, maxInputs int) ([]LUTChoice, error) {
	return chooseLUTSet(c, cands, maxFailureLog2, maxInputs, false, nil)
}

// ChooseLUTSetPruned is ChooseLUTSet that skips the candidates whose
// estimated cost (LUTCandidate.Covers, and a candidate's own mapping for
// its tightened bounds) is above the best result: results marked Skipped
// carry the estimate. The choice is ChooseLUTSet's wherever the estimates
// hold (see LUTCandidate.Covers); on aes128.hdl, of the six 128-bit FHEW
// sets, it maps three (four mappings, one tightening) where ChooseLUTSet
// maps all six ten times, with the same choice (TestAutoAES in package hcc).
func ChooseLUTSetPruned(c *ir.Circuit, cands []LUTCandidate, maxFailureLog2 float64, maxInputs int) ([]LUTChoice, error) {
	return chooseLUTSet(c, cands, maxFailureLog2, maxInputs, true, nil)
}

// ChooseLUTSetAgainst is ChooseLUTSetPruned when a result outside the
// candidates competes (another kind of parameter set): other delivers its
// cost (one value, +Inf if it misses the target; the channel may be
// written while the candidates map), and from phase 2 on the estimates are
// compared with the lower of it and the candidates' best, so candidates
// that cannot beat it are skipped. If the candidates' best is then above
// it, the result may hold no candidate within the target (the error says
// so); the caller takes the other result.
func ChooseLUTSetAgainst(c *ir.Circuit, cands []LUTCandidate, maxFailureLog2 float64, maxInputs int, other <-chan float64) ([]LUTChoice, error) {
	return chooseLUTSet(c, cands, maxFailureLog2, maxInputs, true, other)
}

func chooseLUTSet(c *ir.Circuit, cands []LUTCandidate, maxFailureLog2 float64, maxInputs int, prune bool, other <-chan float64) ([]LUTChoice, error) {
	if len(cands) == 0 {
		return nil, fmt.Errorf("optimize: no parameter set to choose from")
	}
	pre, err := (&Pipeline{Passes: []Pass{Fold, AbsorbNot, DCE}}).Run(c)
	if err != nil {
		return nil, err
	}
	// steps[i] are candidate i's mappings so far: the first bound, then
	// each tightening (a candidate is mapped iff len(steps[i]) > 0).
	steps := make([][]LUTChoice, len(cands))
	remap := func(i int, prev LUTChoice) (LUTChoice, error) {
		bound := firstLUTFailureLog2
		if prev.Name != "" {
			bound = prev.LUTFailureLog2 - (math.Ceil(prev.Log2Failure-maxFailureLog2) + 2)
		}
		ch, err := mapCandidate(pre, cands[i], bound, maxFailureLog2, maxInputs)
		if err != nil {
			return ch, fmt.Errorf("optimize: %s: %w", cands[i].Name, err)
		}
		return ch, nil
	}
	needsTightening := func(ch LUTChoice, try int) bool {
		return try <= maxTightenings && !ch.OK && !math.IsInf(ch.Log2Failure, 0)
	}
	// best is the lowest cost within the target seen so far. mapAll reads
	// it only to decide what to compute ahead (a candidate that misses the
	// target is tightened at once while it is not above it: the
	// tightenings phase 3 would ask for, done while other candidates still
	// map); what counts is decided in phase 3 from the recorded steps, so
	// the result does not depend on timing.
	var mu sync.Mutex
	best := math.Inf(1)
	// The outside result, received once (its own lock: a worker may wait
	// for it while others record their steps).
	var omu sync.Mutex
	outside, outsideKnown := math.Inf(1), other == nil
	receive := func() float64 {
		omu.Lock()
		defer omu.Unlock()
		if !outsideKnown {
			v, ok := <-other
			outside, outsideKnown = v, true
			if !ok {
				outside = math.Inf(1)
			}
		}
		return outside
	}
	mapAll := func(idx []int) error {
		var g errgroup.Group
		g.SetLimit(runtime.GOMAXPROCS(0))
		for _, i := range idx {
			g.Go(func() error {
				var ch LUTChoice
				for try := 0; try == 0 || needsTightening(ch, try); try++ {
					if try > 0 && prune {
						o := receive() // before tightening ahead: usually known by now
						mu.Lock()
						ahead := ch.Cost <= min(best, o)
						mu.Unlock()
						if !ahead {
							break
						}
					}
					next, err := remap(i, ch)
					if err != nil {
						return err
					}
					ch = next
					mu.Lock()
					steps[i] = append(steps[i], ch)
					if ch.OK {
						best = min(best, ch.Cost)
					}
					mu.Unlock()
				}
				return nil
			})
		}
		return g.Wait()
	}
	out := make([]LUTChoice, len(cands))
	firstOK := func() float64 { // the best first mapping within the target
		b := math.Inf(1)
		for i := range steps {
			if len(steps[i]) > 0 && steps[i][0].OK {
				b = min(b, steps[i][0].Cost)
			}
		}
		return b
	}

	// Phase 1: the candidates no other candidate covers (all of them
	// without pruning), and the cheapest, cheapest first (the likeliest to
	// need tightening).
	coveredBy := make([][]int, len(cands))
	if prune {
		byName := map[string]int{}
		for i, cand := range cands {
			byName[cand.Name] = i
		}
		for j, cand := range cands {
			for _, name := range cand.Covers {
				if i, ok := byName[name]; ok && i != j {
					coveredBy[i] = append(coveredBy[i], j)
				}
			}
		}
	}
	var roots, covered []int
	for i := range cands {
		if len(coveredBy[i]) == 0 || cheapest(cands, i) {
			roots = append(roots, i)
		} else {
			covered = append(covered, i)
		}
	}
	sort.SliceStable(roots, func(a, b int) bool { return cands[roots[a]].Cost < cands[roots[b]].Cost })
	if err := mapAll(roots); err != nil {
		return nil, err
	}

	// Phase 2: a covered candidate is mapped unless its estimate is above
	// the best first mapping so far.
	var toMap []int
	best1 := min(firstOK(), receive())
	for _, i := range covered {
		// The estimate is a coverer's priced count (what its mapper
		// minimised), the count beside it for the report.
		est, from := -1.0, -1
		for _, j := range coveredBy[i] {
			if len(steps[j]) > 0 && steps[j][0].Priced > est {
				est, from = steps[j][0].Priced, j
			}
		}
		if from >= 0 && est*cands[i].Cost > best1 {
			out[i] = LUTChoice{Name: cands[i].Name, Bootstraps: steps[from][0].Bootstraps, Priced: est, Cost: est * cands[i].Cost,
				Log2Failure: math.NaN(), LUTFailureLog2: firstLUTFailureLog2, Skipped: true, EstimatedFrom: cands[from].Name}
			continue
		}
		toMap = append(toMap, i)
	}
	if err := mapAll(toMap); err != nil {
		return nil, err
	}

	// Phase 3: tighten the candidates that miss the target while they are
	// not above the best first mapping, reusing the steps mapped ahead.
	best3 := min(firstOK(), outside)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range cands {
		if len(steps[i]) == 0 {
			continue
		}
		g.Go(func() error {
			ch := steps[i][0]
			for try := 1; needsTightening(ch, try); try++ {
				if prune && ch.Cost > best3 {
					ch.Skipped, ch.EstimatedFrom = true, ch.Name
					break
				}
				if try < len(steps[i]) {
					ch = steps[i][try]
					continue
				}
				next, err := remap(i, ch)
				if err != nil {
					return err
				}
				ch = next
			}
			out[i] = ch
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
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

// mapCandidate maps the front passes' output pre for cand with LUT bound
// 2^bound and predicts its failure.
func mapCandidate(pre *ir.Circuit, cand LUTCandidate, bound, maxFailureLog2 float64, maxInputs int) (LUTChoice, error) {
	tg := cand.Target(bound)
	d, err := (&Pipeline{Passes: []Pass{LUTMap(tg, maxInputs)}}).Run(pre)
	if err != nil {
		return LUTChoice{}, err
	}
	f, err := cand.Failure(d)
	if err != nil {
		return LUTChoice{}, err
	}
	// Counted for the reports, priced (as the mapper priced the cover)
	// for the choice.
	n, pr := coverCost(tg)(d), coverPrice(tg)(d)
	return LUTChoice{Name: cand.Name, Bootstraps: n, Priced: pr, Cost: pr * cand.Cost,
		Log2Failure: f, LUTFailureLog2: bound, OK: f <= maxFailureLog2, Circuit: d}, nil
}

// cheapest reports whether candidate i costs less per bootstrap than
// every other candidate. Its estimate is a coverer's bootstraps at the
// lowest price of all, which exceeds the best result only when that
// coverer needs many more bootstraps than the best; so it is mapped in
// phase 1, beside its coverers, rather than after them (and tightened in
// phase 3 as usual).
func cheapest(cands []LUTCandidate, i int) bool {
	for j := range cands {
		if j != i && cands[j].Cost <= cands[i].Cost {
			return false
		}
	}
	return true
}
