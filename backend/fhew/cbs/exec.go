package cbs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hcc-fhe/hcc/ir"
)

// maxPlanBytes bounds the memory of a plan's wide bits (EvalPlan).
const maxPlanBytes = 16 << 30

// EvalOptions tunes EvalPlan.
type EvalOptions struct {
	// Threads is the number of workers (0: GOMAXPROCS). Each owns one
	// BatchScratch and Batch form buffers.
	Threads int
	// Batch is how many circuit bootstraps a worker runs at once, in
	// lockstep (CBSBatch): 0 means DefaultBatch, 1 one at a time; at most
	// MaxBatch. Results do not depend on it.
	Batch int
	// Progress, if set, is called after every finished circuit bootstrap
	// with the number done and the plan's total (one per distinct input
	// form, less those built from InputRGSW), from one goroutine at a
	// time; a batch's calls come together when the batch ends.
	Progress func(done, total int)
	// Busy, if set, accumulates the nanoseconds the workers spent inside
	// CBSBatch, InputFormRGSW and EvalTable (summed over workers).
	Busy *atomic.Int64
	// InputRGSW, if set, holds the client's RGSW encryption of every input
	// bit (Encryptor.EncryptInputRGSW; one per input bit, the plan's
	// layout): a form whose terms are all input bits (at most
	// Params.InputFormMaxTerms of them) is then built from them
	// (InputFormRGSW, a few external products) instead of
	// circuit-bootstrapped. nil: every form is bootstrapped.
	InputRGSW []*InputRGSW
}

// EncryptBits encrypts bits as fresh wide bits (the plan's input layout).
func (enc *Encryptor) EncryptBits(bits []bool) ([]*WideBit, error) {
	out := make([]*WideBit, len(bits))
	for i, b := range bits {
		out[i] = NewWideBit(enc.sk.params)
		if err := enc.Encrypt(b, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecryptBits decrypts wide bits.
func (sk *SecretKey) DecryptBits(ws []*WideBit) ([]bool, error) {
	out := make([]bool, len(ws))
	for i, w := range ws {
		b, err := sk.Decrypt(w)
		if err != nil {
			return nil, fmt.Errorf("cbs: output bit %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// formKey identifies a linear form by its terms (Const is handled by
// permuting the reading table: RGSW(¬b) is never needed).
func formKey(f *ir.LinearForm) string {
	b := make([]byte, 0, 4*len(f.Terms))
	for _, t := range f.Terms {
		b = append(b, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	return string(b)
}

// execTable is a plan table prepared for execution: its inputs' cache keys
// and its truth tables with the inputs' constants folded in
// (T'[x] = T[x ⊕ c], c the inputs' Const bits).
type execTable struct {
	keys  []string
	tabs  [][]uint64
	first int // first output signal id
	level int
}

// foldConsts returns the truth tables of t with every input's Const folded
// into the index.
func foldConsts(t *ir.WideTable) [][]uint64 {
	k := len(t.In)
	c := 0
	for j, f := range t.In {
		if f.Const {
			c |= 1 << uint(j)
		}
	}
	out := make([][]uint64, len(t.Out))
	for o, tt := range t.Out {
		if c == 0 {
			out[o] = tt
			continue
		}
		nt := make([]uint64, len(tt))
		for x := 0; x < 1<<uint(k); x++ {
			y := x ^ c
			if tt[y/64]>>(uint(y)%64)&1 == 1 {
				nt[x/64] |= 1 << (uint(x) % 64)
			}
		}
		out[o] = nt
	}
	return out
}

// EvalPlan evaluates plan on encrypted inputs (one wide bit per input bit,
// the plan's input layout) and returns one wide bit per output bit, in bus
// order. Tables run level by level (a table's level is one more than the
// highest level of the tables it reads); within a level, first every
// input form not yet circuit-bootstrapped is bootstrapped (one RGSW per
// distinct set of terms, cached until its last reader has run), then every
// table is evaluated, each step on a pool of workers that own their
// scratch. A worker bootstraps opt.Batch forms at a time in lockstep
// (CBSBatch; smaller batches at the end of a level). The evaluator itself
// is not modified.
func (ev *Evaluator) EvalPlan(ctx context.Context, plan *ir.WidePlan, in []*WideBit, opt EvalOptions) ([]*WideBit, error) {
	if plan == nil {
		return nil, errors.New("cbs: nil plan")
	}
	if err := plan.Verify(); err != nil {
		return nil, err
	}
	p := ev.p
	if len(in) != plan.NumInputs {
		return nil, fmt.Errorf("cbs: plan %q has %d input bits, got %d ciphertexts", plan.Name, plan.NumInputs, len(in))
	}
	for i, w := range in {
		if err := checkWide(p, w); err != nil {
			return nil, fmt.Errorf("input bit %d: %w", i, err)
		}
	}
	for _, t := range plan.Tables {
		if len(t.In) > p.lit.LogN {
			return nil, fmt.Errorf("cbs: a table of %d inputs does not fit N = %d", len(t.In), p.ringN)
		}
	}
	// Every table output is a wide bit of 8(N+1) bytes; refuse plans that
	// cannot fit instead of failing inside the allocator.
	outs := plan.NumSignals() - plan.NumInputs
	if need := uint64(outs) * uint64(p.ringN+1) * 8; need > maxPlanBytes {
		return nil, fmt.Errorf("cbs: plan %q has %d table outputs: %d MiB of wide bits, more than %d MiB",
			plan.Name, outs, need>>20, uint64(maxPlanBytes)>>20)
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// Each worker owns a BatchScratch (batch Scratches of ~0.45 MB at
	// N = 2048): more workers than 4 per CPU only cost memory.
	threads = min(threads, 4*runtime.NumCPU())
	batch := opt.Batch
	if batch == 0 {
		batch = DefaultBatch
	}
	if batch < 1 || batch > MaxBatch {
		return nil, fmt.Errorf("cbs: EvalOptions.Batch = %d (want 0 for the default, or 1..%d)", opt.Batch, MaxBatch)
	}
	direct, err := ev.newInputForms(plan, opt.InputRGSW, threads)
	if err != nil {
		return nil, err
	}
	sig := make([]*WideBit, plan.NumSignals())
	copy(sig, in)
	tabs, byLevel, uses := schedule(plan)
	totalCBS := len(uses)
	if direct != nil {
		totalCBS -= p.InputFormsBuilt(plan)
	}
	for i := range tabs {
		for o := range tabs[i].tabs {
			sig[tabs[i].first+o] = NewWideBit(p)
		}
	}
	maxLevel := len(byLevel) - 1
	bss := make([]*BatchScratch, threads)
	forms := make([][]*WideBit, threads)
	outsOf := make([][]*RGSW, threads)
	for w := range bss {
		bs, err := NewBatchScratch(p, batch)
		if err != nil {
			return nil, err
		}
		bss[w] = bs
		forms[w] = make([]*WideBit, batch)
		for j := range forms[w] {
			forms[w][j] = NewWideBit(p)
		}
		outsOf[w] = make([]*RGSW, batch)
	}
	var progressMu sync.Mutex
	done := 0
	cache := map[string]*RGSW{}
	var pool []*RGSW
	type cbsJob struct {
		form *ir.LinearForm
		out  *RGSW
	}
	for lv := 1; lv <= maxLevel; lv++ {
		var jobs []cbsJob
		var dForms []*ir.LinearForm
		var dOuts []*RGSW
		for _, ti := range byLevel[lv] {
			t := &plan.Tables[ti]
			for j, key := range tabs[ti].keys {
				if cache[key] != nil {
					continue
				}
				var g *RGSW
				if n := len(pool); n > 0 {
					g, pool = pool[n-1], pool[:n-1]
				} else {
					g = ev.NewRGSW()
				}
				cache[key] = g
				if direct.covers(&t.In[j]) {
					dForms, dOuts = append(dForms, &t.In[j]), append(dOuts, g)
					continue
				}
				jobs = append(jobs, cbsJob{form: &t.In[j], out: g})
			}
		}
		if err := direct.build(ctx, ev, threads, dForms, dOuts, bss, opt.Busy); err != nil {
			return nil, err
		}
		err = parallelChunks(ctx, threads, batch, len(jobs), func(w, lo, hi int) error {
			fs, gs := forms[w][:hi-lo], outsOf[w][:hi-lo]
			for j := range fs {
				formInto(p, jobs[lo+j].form, sig, fs[j])
				gs[j] = jobs[lo+j].out
			}
			t0 := time.Now()
			if err := ev.CBSBatch(fs, gs, bss[w]); err != nil {
				return err
			}
			if opt.Busy != nil {
				opt.Busy.Add(int64(time.Since(t0)))
			}
			if opt.Progress != nil {
				progressMu.Lock()
				for range fs {
					done++
					opt.Progress(done, totalCBS)
				}
				progressMu.Unlock()
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		ids := byLevel[lv]
		err = parallel(ctx, threads, len(ids), func(w, i int) error {
			et := &tabs[ids[i]]
			rg := make([]*RGSW, len(et.keys))
			for j, key := range et.keys {
				rg[j] = cache[key] // read-only during this step
			}
			t0 := time.Now()
			err := ev.EvalTable(rg, et.tabs, sig[et.first:et.first+len(et.tabs)], bss[w].Scratch())
			if opt.Busy != nil {
				opt.Busy.Add(int64(time.Since(t0)))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, ti := range ids {
			for _, key := range tabs[ti].keys {
				if uses[key]--; uses[key] == 0 {
					pool = append(pool, cache[key])
					delete(cache, key)
				}
			}
		}
	}
	out := make([]*WideBit, len(plan.OutForms))
	for o := range plan.OutForms {
		out[o] = NewWideBit(p)
		formInto(p, &plan.OutForms[o], sig, out[o])
		if plan.OutForms[o].Const {
			NotInPlace(p, out[o])
		}
	}
	return out, nil
}

// schedule prepares plan's tables for execution: their cache keys and
// folded truth tables, their levels (1 + the highest level of a signal they
// read; inputs are level 0), the tables of each level, and how many table
// inputs read each cache key.
func schedule(plan *ir.WidePlan) (tabs []execTable, byLevel [][]int, uses map[string]int) {
	level := make([]int, plan.NumSignals())
	base := plan.SignalBase()
	tabs = make([]execTable, len(plan.Tables))
	uses = map[string]int{}
	maxLevel := 0
	for i := range plan.Tables {
		t := &plan.Tables[i]
		et := execTable{tabs: foldConsts(t), first: base[i]}
		lv := 0
		for j := range t.In {
			for _, s := range t.In[j].Terms {
				lv = max(lv, level[s])
			}
			key := formKey(&t.In[j])
			et.keys = append(et.keys, key)
			uses[key]++
		}
		et.level = lv + 1
		maxLevel = max(maxLevel, et.level)
		for o := range t.Out {
			level[et.first+o] = et.level
		}
		tabs[i] = et
	}
	byLevel = make([][]int, maxLevel+1)
	for i := range tabs {
		byLevel[tabs[i].level] = append(byLevel[tabs[i].level], i)
	}
	return tabs, byLevel, uses
}

// formInto writes the XOR of f's terms (not its Const) into out.
func formInto(p Params, f *ir.LinearForm, sig []*WideBit, out *WideBit) {
	clear(out.A)
	out.B = 0
	for _, s := range f.Terms {
		w := sig[s]
		for i, a := range w.A {
			out.A[i] = addModQ(out.A[i], a, p.q)
		}
		out.B = addModQ(out.B, w.B, p.q)
	}
}

// parallel runs fn(worker, i) for i in [0, n) on up to threads workers
// (worker ids 0..threads-1, each used by one goroutine at a time), stopping
// at the first error or when ctx is done.
func parallel(ctx context.Context, threads, n int, fn func(w, i int) error) error {
	return parallelChunks(ctx, threads, 1, n, func(w, lo, _ int) error { return fn(w, lo) })
}

// parallelChunks runs fn(worker, lo, hi) on chunks [lo, hi) that cover
// [0, n), as parallel does with single items. A worker takes min(k,
// ⌈rest/threads⌉) items at a time (rest: those not taken yet): full chunks
// while there is work for every worker, smaller ones at the end, so that
// the workers finish together (a level's last full batches would leave a
// worker idle for up to k bootstraps).
func parallelChunks(ctx context.Context, threads, k, n int, fn func(w, lo, hi int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	next := 0
	take := func() (lo, hi int) {
		mu.Lock()
		defer mu.Unlock()
		lo = next
		next += min(k, (n-lo+threads-1)/threads)
		return lo, next
	}
	for w := 0; w < min(threads, n); w++ {
		g.Go(func() error {
			for {
				if err := gctx.Err(); err != nil {
					return err
				}
				lo, hi := take()
				if lo >= hi {
					return nil
				}
				if err := fn(w, lo, hi); err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
