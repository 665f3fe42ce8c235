package main

import (
	"fmt"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
)

// newBGVKeys draws a secret key and the evaluation keys the bit-sliced
// executor needs (relinearization only: it never rotates).
func newBGVKeys(pr *bgv.Params) (*bgv.SecretKey, *bgv.EvaluationKeySet) {
	kg := bgv.NewKeyGenerator(pr, bgv.NewSampler())
	sk := kg.GenSecretKey()
	return sk, bgv.NewEvaluationKeySet(kg.GenRelinKey(sk))
}

// runBGV runs the compiled circuit d on the bit-sliced executor, after
// simulating the executor's noise bookkeeping on these very inputs (a
// circuit the chain cannot carry fails before any work, at the node where
// the run would), and reports the run on stderr.
func runBGV(e *cmdEnv, w *workflowFlags, d *ir.Circuit, ev *bgv.Evaluator, in []backend.Ciphertext) ([]backend.Ciphertext, error) {
	cts := make([]*bgv.Ciphertext, len(in))
	for i, ct := range in {
		x, ok := ct.(*bgv.Ciphertext)
		if !ok {
			return nil, fmt.Errorf("internal error: input %d is %T, not BGV", i, ct)
		}
		cts[i] = x
	}
	if err := ev.Params().CheckInputs(d, cts); err != nil {
		return nil, err
	}
	outs, st, err := runOn(e, w, d, bgv.NewBackend(ev), in)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stderr, "evaluated (%d slots): %v\n", ev.Params().Slots(), st)
	return outs, nil
}

// runRunBGV is hcc run --backend bgv: compile, pick and check the
// parameters, fresh keys, encrypt (one input set in every slot, or one
// --batch instance per slot), evaluate, decrypt, print.
func runRunBGV(e *cmdEnv, w *workflowFlags) error {
	c, err := loadCircuit(e)
	if err != nil {
		return err
	}
	set, err := readInstances(e, c, w.batch)
	if err != nil {
		return err
	}
	instances, err := set.packed(c)
	if err != nil {
		return err
	}
	d, err := compileBGV(e, c)
	if err != nil {
		return err
	}
	pr, level, err := w.bgvParamsFor(d, len(instances))
	if err != nil {
		return err
	}
	if len(instances) > pr.Slots() {
		return fmt.Errorf("%d instances do not fit in the %d slots of %s (split the batch file)", len(instances), pr.Slots(), pr.Name())
	}
	t0 := time.Now()
	sk, keys := newBGVKeys(pr)
	client, err := newBGVClient(pr, sk)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "keygen %s (bgv backend, %d slots, AND-depth %d available) in %v\n",
		pr.Name(), pr.Slots(), pr.DepthAvailable(), time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	in, err := client.encryptAt(instances, level)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "encrypted %d input bits at level %d of %d in %v\n", len(in), level, pr.MaxLevel(), time.Since(t0).Round(time.Millisecond))
	outs, err := runBGV(e, w, d, bgv.NewEvaluator(pr, keys), in)
	if err != nil {
		return err
	}
	got, err := client.decrypt(outs, set.count())
	if err != nil {
		return fmt.Errorf("decrypting the outputs: %w", err)
	}
	var want []ir.Values
	if w.check {
		for j, v := range set.values {
			o, err := c.Eval(v)
			if err != nil {
				return set.at(j, err)
			}
			want = append(want, o)
		}
	}
	return printInstances(e, c, got, set.batch, want)
}

// bgvParamsFor resolves --params for the compiled circuit d and returns the
// level at which to encrypt its inputs (Params.LevelForCircuit, the noise
// model's simulation of the run). Without --params it takes the first of
// bgvAutoSets with enough slots on which d runs by the simulation, else
// the last set's error: the node where the noise budget runs out and the
// primes needed against those available.
func (w *workflowFlags) bgvParamsFor(d *ir.Circuit, instances int) (*bgv.Params, int, error) {
	if w.params != "" {
		pr, err := w.bgvParams(bgv.CircuitDepth(d), instances)
		if err != nil {
			return nil, 0, err
		}
		level, err := pr.LevelForCircuit(d)
		return pr, level, err
	}
	var err error
	for i, name := range bgvAutoSets {
		lit, lerr := bgv.LiteralByName(name)
		if lerr != nil {
			return nil, 0, lerr
		}
		pr, perr := bgv.NewParams(lit)
		if perr != nil {
			return nil, 0, perr
		}
		if pr.Slots() < instances && i < len(bgvAutoSets)-1 {
			continue
		}
		var level int
		if level, err = pr.LevelForCircuit(d); err == nil || i == len(bgvAutoSets)-1 {
			return pr, level, err
		}
	}
	return nil, 0, err
}
