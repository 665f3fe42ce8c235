package cbs

import (
	"errors"
	"fmt"
)

// MaxBatch bounds the size of a BatchScratch (and EvalOptions.Batch):
// past a few bootstraps the key rows of a blind-rotation step no longer
// stay in L2 while the batch's accumulators work on them, so larger
// batches only cost memory.
const MaxBatch = 16

// DefaultBatch is the batch size EvalPlan uses when EvalOptions.Batch is 0
// (chosen by BenchmarkCBSBatch; see "Batched circuit bootstraps" in
// docs/fhew-cbs.md).
const DefaultBatch = 8

// BatchScratch is one worker's working memory for CBSBatch: one Scratch
// per bootstrap of the largest batch it serves. Like a Scratch, it belongs
// to one goroutine at a time.
type BatchScratch struct {
	lit    ParamsLiteral
	scs    []*Scratch
	ksOffs []uint64 // the batch's key-switch rows (keySwitchLWEBatch)
}

// NewBatchScratch allocates a BatchScratch for batches of up to k circuit
// bootstraps (1 ≤ k ≤ MaxBatch) at p.
func NewBatchScratch(p Params, k int) (*BatchScratch, error) {
	if !p.valid() {
		return nil, errors.New("cbs: NewBatchScratch: invalid parameter set")
	}
	if k < 1 || k > MaxBatch {
		return nil, fmt.Errorf("cbs: NewBatchScratch: batch of %d bootstraps (want 1..%d)", k, MaxBatch)
	}
	bs := &BatchScratch{lit: p.lit, scs: make([]*Scratch, k), ksOffs: make([]uint64, k*p.ringN*p.digKS)}
	for j := range bs.scs {
		bs.scs[j] = NewScratch(p)
	}
	return bs, nil
}

// Size returns the largest batch bs serves.
func (bs *BatchScratch) Size() int { return len(bs.scs) }

// Scratch returns bs's first Scratch, for the worker's other calls
// (EvalTable, CBS) between batches.
func (bs *BatchScratch) Scratch() *Scratch { return bs.scs[0] }

// CBSBatch circuit-bootstraps ins[j] into outs[j] for every j, with results
// bit-identical to CBS(ins[j], outs[j], ·) in turn, but faster: the batch's
// blind rotations run in lockstep (see blindRotateScaled), so each step's
// key rows are read from memory once per batch instead of once per
// bootstrap, and the LWE key switches walk their key together
// (keySwitchLWEBatch). len(ins) = len(outs) ≤ bs.Size(); an empty batch does
// nothing. The same input may appear more than once; outs should be
// distinct (as in turn, a repeated out keeps the last result). ins are not
// modified.
func (ev *Evaluator) CBSBatch(ins []*WideBit, outs []*RGSW, bs *BatchScratch) error {
	if bs == nil || bs.lit != ev.p.lit {
		return errors.New("cbs: CBSBatch: batch scratch of another parameter set (use NewBatchScratch(ev.Params(), k))")
	}
	if len(ins) != len(outs) {
		return fmt.Errorf("cbs: CBSBatch: %d inputs and %d outputs (want equal)", len(ins), len(outs))
	}
	if len(ins) > len(bs.scs) {
		return fmt.Errorf("cbs: CBSBatch: batch of %d bootstraps, the scratch holds %d", len(ins), len(bs.scs))
	}
	for j, in := range ins {
		if err := checkWide(ev.p, in); err != nil {
			return fmt.Errorf("cbs: CBSBatch: input %d: %w", j, err)
		}
		if err := ev.checkRGSW(outs[j]); err != nil {
			return fmt.Errorf("cbs: CBSBatch: output %d: %w", j, err)
		}
	}
	if len(ins) == 0 {
		return nil
	}
	if ev.ek.ks == nil {
		return errors.New("cbs: CBSBatch needs the LWE key switch z -> s, which a gate-mode evaluation key (GenGateEvaluationKey) does not hold")
	}
	scs := bs.scs[:len(ins)]
	for j, sc := range scs {
		ev.modSwitchKS(ins[j], sc)
	}
	scs[0].sink += keySwitchLWEBatch(ev.p, ev.ek, scs, bs.ksOffs)
	for _, sc := range scs {
		ev.roundToAlpha(sc)
	}
	ev.blindRotateScaled(scs)
	for j, sc := range scs {
		ev.finishRGSW(outs[j], sc)
	}
	return nil
}
