package fhew

import (
	"errors"
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/ir"
)

// evalSel is Worker.Eval of an ir.OpSel (out = a copy of x carrying x's
// select form, so it is also an ordinary gate ciphertext, as an MLUT's
// output carries its accumulator) or an ir.OpCMux (In[0] is such a
// ciphertext).
func (w *worker) evalSel(n *ir.Node, x []*Ciphertext, o *Ciphertext) error {
	ev := w.ev
	if !ev.params.HasCMux() {
		return fmt.Errorf("fhew: cannot evaluate a %v node on %s (no CMux gadget)", n.Op, ev.params.Name())
	}
	if n.Op == ir.OpSel {
		if len(x) != 1 {
			return fmt.Errorf("fhew: SEL with %d inputs", len(x))
		}
		if o.sel == nil {
			o.sel = ev.NewSelector()
		}
		o.CopyFrom(x[0])
		if err := ev.Select(o, o.sel, w.sc); err != nil {
			return err
		}
		o.selOK = true
		return nil
	}
	if len(x) != 3 {
		return fmt.Errorf("fhew: CMUX with %d inputs", len(x))
	}
	s := x[0]
	if s.sel == nil || !s.selOK || s == o {
		return errors.New("fhew: CMUX's first fanin holds no select form (it must be a SEL node's output)")
	}
	return ev.CMux(s.sel, x[1], x[2], o, w.sc)
}

// selectCost is one Select in the set's own gate bootstraps (NANDs),
// measured with BenchmarkCMuxCost, Select and the set's NAND interleaved:
//
//	go test ./backend/fhew -run '^$' -bench CMuxCost -benchtime 100x
//
// 2026-12-01, 2-core AMD EPYC shared with other agents (load 1.3-2.8):
// Select/NAND 3.13 (40 rounds), 3.03, 3.04, 3.08, 3.16 (100 rounds each),
// mean 3.09; one CMux 0.0122-0.0127 NAND (one lift, of a − b); the NAND
// itself 0.76-0.79 of STD128_LOWFAIL_T's. docs/fhew-cmux.md has the table.
var selectCost = map[string]float64{
	STD128_T_CMUX.Name: 3.09,
}

// selectCostDefault is used for sets without a measurement (the toys): the
// STD128_T_CMUX ratio, the only 128-bit CMux set.
const selectCostDefault = 3.09

// SelectCost is the measured price of one ir.OpSel in this set's gate
// bootstraps, unrounded (3.09 on STD128_T_CMUX); 0 on sets without the
// CMux gadget. optimize.LUTMap prices an OpSel at it (optimize.SelectCoster:
// the cover, the CMux groups, the choice between covers); the counts
// (SelectBootstraps, GateBootstraps, Cost) round it up.
func (t LUTTarget) SelectCost() float64 {
	if !t.p.HasCMux() {
		return 0
	}
	if c, ok := selectCost[t.p.lit.Name]; ok {
		return c
	}
	return selectCostDefault
}

// SelectBootstraps is one ir.OpSel counted in this set's gate bootstraps
// (optimize.SelectTarget): ⌈SelectCost⌉, the whole number every report of
// bootstraps uses; 0 on sets without the CMux gadget, which the mapper
// reads as "not available". ir.OpCMux costs 0.
func (t LUTTarget) SelectBootstraps() int {
	return int(math.Ceil(t.SelectCost()))
}
