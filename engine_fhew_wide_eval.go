package hcc

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
	"github.com/hcc-fhe/hcc/ir"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// The wide-table sets' keys, ciphertexts and runs (engine_fhew_wide.go has
// the sets, their compile and their plans): every bit is a cbs.WideBit
// (an input bit with its RGSW a wideInput, engine_fhew_wide_rgsw.go),
// and a program runs as a whole plan per pack (runPlan) instead of node
// by node through the runtime.

func (s *wideScheme) newKeys() (secretKey, serverKey, error) {
	sk, err := cbs.NewSecretKey(s.p)
	if err != nil {
		return nil, nil, err
	}
	ek, err := cbs.GenEvaluationKey(sk)
	if err != nil {
		return nil, nil, err
	}
	return &wideSecret{s: s, sk: sk}, &wideServer{s: s, ek: ek}, nil
}

func (s *wideScheme) readSecretKey(body []byte) (secretKey, error) {
	sk, err := cbs.UnmarshalSecretKey(s.p, body)
	if err != nil {
		return nil, err
	}
	return &wideSecret{s: s, sk: sk}, nil
}

func (s *wideScheme) readServerKey(body []byte) (serverKey, error) {
	ek, err := cbs.UnmarshalEvaluationKey(s.p, body)
	if err != nil {
		return nil, err
	}
	return &wideServer{s: s, ek: ek}, nil
}

func (s *wideScheme) encode(cts []backend.Ciphertext) (int, [][]byte, error) {
	return s.encodeWide(cts)
}

func (s *wideScheme) decode(data []byte) (backend.Ciphertext, error) {
	return s.decodeWide(data)
}

// wideSecret is a wide-table secret key.
type wideSecret struct {
	s  *wideScheme
	sk *cbs.SecretKey
}

func (k *wideSecret) marshal() ([]byte, error) { return k.sk.MarshalBinary() }

func (k *wideSecret) encrypt(p *Program, pack [][]bool, _ bool) ([]backend.Ciphertext, error) {
	if err := p.checkInsecure("encrypt"); err != nil {
		return nil, err
	}
	if len(pack) != 1 {
		return nil, fmt.Errorf("internal error: a wide-table pack holds one instance, not %d", len(pack))
	}
	enc, err := cbs.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	ws, err := enc.EncryptBits(pack[0])
	if err != nil {
		return nil, err
	}
	return asCiphertexts(ws), nil
}

func (k *wideSecret) decrypt(cts []backend.Ciphertext, n int) ([][]bool, error) {
	if n > 1 {
		return nil, fmt.Errorf("a wide-table pack holds one instance, not %d", n)
	}
	ws, err := wideBits(cts)
	if err != nil {
		return nil, err
	}
	bits, err := k.sk.DecryptBits(ws)
	if err != nil {
		return nil, err
	}
	return [][]bool{bits}, nil
}

// wideBits converts ciphertexts to wide bits (an input's without its
// RGSW).
func wideBits(cts []backend.Ciphertext) ([]*cbs.WideBit, error) {
	bits, _, err := wideParts([][]backend.Ciphertext{cts})
	if err != nil {
		return nil, err
	}
	return bits[0], nil
}

// wideServer is a wide-table evaluation key; its evaluator (64 MB of
// tables at N = 2048) is built on first use and shared by every Eval.
type wideServer struct {
	s    *wideScheme
	ek   *cbs.EvaluationKey
	once sync.Once
	ev   *cbs.Evaluator
	err  error
}

func (k *wideServer) marshal() ([]byte, error) { return k.ek.MarshalBinary() }

// evaluator is never used: Eval runs wide-table programs through runPlan.
func (k *wideServer) evaluator(p *Program) (backend.Evaluator, error) {
	return nil, fmt.Errorf("internal error: %s runs wide plans, not a gate evaluator", k.s.name())
}

func (k *wideServer) check(_ *Program, in []backend.Ciphertext) error {
	for i, ct := range in {
		if w, _ := wideOf(ct); w == nil || len(w.A) != k.s.p.N() {
			return fmt.Errorf("input ciphertext %d is %T, not a wide bit of %s", i, ct, k.s.name())
		}
	}
	return nil
}

func (k *wideServer) finish(out []backend.Ciphertext) ([]backend.Ciphertext, error) { return out, nil }

// planCtx is plan for Eval: it returns when ctx ends even while the
// mapping, which takes no context (AES: 13 s on STD128_CBS, the first Eval
// of a loaded .hcp), runs on; that finishes in the background and fills
// the cache.
func (s *wideScheme) planCtx(ctx context.Context, c *ir.Circuit) (*ir.WidePlan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		p   *ir.WidePlan
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := s.plan(c)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wideEvalCostName is what a wide plan's run counts (Stats.CostName,
// Program.EvalCostName).
const wideEvalCostName = "circuit bootstraps"

// planRunner is a server key whose programs run as a whole per pack
// instead of node by node through the runtime (wide plans: level by
// level, one circuit bootstrap per distinct table input). Eval hands it
// every pack.
type planRunner interface {
	runPlan(ctx context.Context, p *Program, packs [][]backend.Ciphertext, opts EvalOptions) ([][]backend.Ciphertext, Stats, error)
}

// runPlan evaluates p's plan on each pack in turn, every pack on all
// threads, with the packs' input RGSWs when they carry them
// (EncryptOptions.InputRGSW). Stats count the circuit bootstraps run (the
// plan's distinct table input forms, per pack, less those built from input
// RGSWs) as the costly operations and the tables as
// the nodes; Busy is the executor workers' time inside CBS and vertical
// packing, CPU the process's. Progress follows every circuit bootstrap.
func (k *wideServer) runPlan(ctx context.Context, p *Program, packs [][]backend.Ciphertext, opts EvalOptions) ([][]backend.Ciphertext, Stats, error) {
	st := Stats{Slots: 1}
	st.CostName = wideEvalCostName
	st.Threads = min(opts.Threads, 4*goruntime.NumCPU()) // cbs.EvalPlan's own cap
	// Every pack's bits, and their input RGSWs when all carry one (a mix
	// is refused here, before the plan is mapped).
	bits, rgsw, err := wideParts(packs)
	if err != nil {
		return nil, st, err
	}
	plan, err := k.s.planCtx(ctx, p.circuit)
	if err != nil {
		return nil, st, err
	}
	k.once.Do(func() { k.ev, k.err = cbs.NewEvaluator(k.ek) })
	if k.err != nil {
		return nil, st, k.err
	}
	ps := plan.Stats()
	perPack := ps.DistinctIn // the circuit bootstraps of one pack
	if rgsw != nil {
		perPack -= k.s.p.InputFormsBuilt(plan)
	}
	total := perPack * len(packs)
	var busy atomic.Int64
	copt := cbs.EvalOptions{Threads: opts.Threads, Busy: &busy}
	if opts.Progress != nil && total > 0 { // as the runtime: no calls without costly operations
		opts.Progress(0, total)
		copt.Progress = func(done, _ int) { opts.Progress(st.Costly+done, total) }
	}
	t0 := time.Now()
	cpu0, cpuOK := hccrt.ProcessCPU()
	outs := make([][]backend.Ciphertext, len(packs))
	for i := range packs {
		in := bits[i]
		copt.InputRGSW = nil
		if rgsw != nil {
			copt.InputRGSW = rgsw[i]
		}
		if opts.ReleaseInputs {
			packs[i], bits[i] = nil, nil
			if rgsw != nil {
				rgsw[i] = nil
			}
		}
		res, err := k.ev.EvalPlan(ctx, plan, in, copt)
		st.Busy = time.Duration(busy.Load())
		if err != nil {
			return nil, st, err
		}
		outs[i] = asCiphertexts(res)
		st.Nodes += ps.Tables
		st.Costly += perPack
	}
	st.Wall = time.Since(t0)
	if cpu1, ok := hccrt.ProcessCPU(); ok && cpuOK {
		st.CPU, st.CPUKnown = cpu1-cpu0, true
	}
	st.Instances = len(packs)
	st.Runs = len(packs)
	return outs, st, nil
}

var _ planRunner = (*wideServer)(nil)

// evalPlan is Eval for a planRunner's key: every pack through runPlan.
func evalPlan(ctx context.Context, pr planRunner, p *Program, in, out *Ciphertexts, opts EvalOptions) (*Ciphertexts, Stats, error) {
	packs := make([][]backend.Ciphertext, len(in.packs))
	for i := range in.packs {
		packs[i] = in.packs[i].cts
		if opts.ReleaseInputs {
			in.packs[i].cts, in.packs[i].released = nil, true // runPlan drops each pack once it has run
		}
	}
	res, st, err := pr.runPlan(ctx, p, packs, opts)
	if err != nil {
		return nil, st, err
	}
	for i := range res {
		out.packs = append(out.packs, pack{n: in.packs[i].n, cts: res[i]})
	}
	if opts.ReleaseInputs {
		in.packs = nil
	}
	return out, st, nil
}
