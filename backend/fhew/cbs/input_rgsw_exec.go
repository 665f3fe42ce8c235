package cbs

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hcc-fhe/hcc/ir"
)

// inputForms is EvalPlan's record of the forms it builds from the client's
// input RGSWs (EvalOptions.InputRGSW) instead of circuit-bootstrapping
// them. A nil *inputForms covers nothing (today's behaviour).
type inputForms struct {
	in       []*InputRGSW
	g        Gadget
	numIn    int
	maxTerms int
	bufs     [][]*InputRGSW // one per worker: a form's terms
}

// newInputForms checks opt.InputRGSW against plan (one per input bit, every
// entry an InputRGSW of ev's set) and returns nil, nil when it is nil.
func (ev *Evaluator) newInputForms(plan *ir.WidePlan, in []*InputRGSW, threads int) (*inputForms, error) {
	if in == nil {
		return nil, nil
	}
	if len(in) != plan.NumInputs {
		return nil, fmt.Errorf("cbs: plan %q has %d input bits, got %d input RGSWs (EvalOptions.InputRGSW)", plan.Name, plan.NumInputs, len(in))
	}
	g, err := inputGadget(ev.p)
	if err != nil {
		return nil, err
	}
	for i, c := range in {
		if err := ev.checkInputRGSW(c, g); err != nil {
			return nil, fmt.Errorf("input RGSW %d: %w", i, err)
		}
	}
	f := &inputForms{in: in, g: g, numIn: plan.NumInputs, maxTerms: ev.p.InputFormMaxTerms(), bufs: make([][]*InputRGSW, threads)}
	for w := range f.bufs {
		f.bufs[w] = make([]*InputRGSW, 0, f.maxTerms)
	}
	return f, nil
}

// covers reports whether EvalPlan builds form from input RGSWs (see
// coveredForm).
func (f *inputForms) covers(form *ir.LinearForm) bool {
	return f != nil && coveredForm(form, f.numIn, f.maxTerms)
}

// coveredForm reports whether a form is built from input RGSWs: all its
// terms are input bits (ids below numIn) and there are at most maxTerms
// of them (Params.InputFormMaxTerms: beyond, a CBS is cheaper or less
// noisy).
func coveredForm(form *ir.LinearForm, numIn, maxTerms int) bool {
	if len(form.Terms) == 0 || len(form.Terms) > maxTerms {
		return false
	}
	for _, s := range form.Terms {
		if int(s) >= numIn {
			return false
		}
	}
	return true
}

// InputFormsBuilt returns how many of plan's distinct table input forms
// EvalPlan builds from input RGSWs (EvalOptions.InputRGSW) at p instead of
// circuit-bootstrapping them: with input RGSWs a run of plan makes
// Stats().DistinctIn minus this many bootstraps.
func (p Params) InputFormsBuilt(plan *ir.WidePlan) int {
	maxTerms := p.InputFormMaxTerms()
	seen := map[string]bool{}
	for i := range plan.Tables {
		for j := range plan.Tables[i].In {
			if form := &plan.Tables[i].In[j]; coveredForm(form, plan.NumInputs, maxTerms) {
				seen[formKey(form)] = true
			}
		}
	}
	return len(seen)
}

// build writes RGSW(forms[i]) into outs[i] for every i on the workers
// (InputFormRGSW in each worker's Scratch), adding the time spent to busy.
func (f *inputForms) build(ctx context.Context, ev *Evaluator, threads int, forms []*ir.LinearForm, outs []*RGSW, bss []*BatchScratch, busy *atomic.Int64) error {
	if len(forms) == 0 {
		return nil
	}
	return parallel(ctx, threads, len(forms), func(w, i int) error {
		t0 := time.Now()
		terms := f.bufs[w][:0]
		for _, s := range forms[i].Terms {
			terms = append(terms, f.in[s])
		}
		ev.inputForm(terms, f.g, outs[i], bss[w].Scratch())
		if busy != nil {
			busy.Add(int64(time.Since(t0)))
		}
		return nil
	})
}
