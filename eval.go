package hcc

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
	hccrt "github.com/hcc-fhe/hcc/runtime"
)

// EvalOptions configure Eval.
type EvalOptions struct {
	// Threads is the number of nodes evaluated at once; 0 is GOMAXPROCS.
	// More than MaxThreads is an error: every thread holds scratch memory
	// of its own (an FHEW or BGV worker), which a mistaken huge value
	// would multiply without making the run faster.
	Threads int
	// Progress, if set, is called as the run goes with the costly
	// operations done and in total (FHEW bootstraps, BGV multiplications),
	// at most once per finished node, from one goroutine at a time. It must
	// return quickly.
	Progress func(done, total int)
	// ReleaseInputs lets the run drop each input ciphertext once its last
	// consumer has run, so that memory follows what is live (BGV at
	// m = 65537 holds 23 MB per input bit). The input Ciphertexts are
	// emptied: they cannot be evaluated again.
	ReleaseInputs bool
}

// Stats summarise an Eval: the runtime's statistics (summed over the runs
// of a multi-pack BGV batch) and the batch shape.
type Stats struct {
	hccrt.Stats
	// Instances is the number of input sets evaluated.
	Instances int
	// Runs is the number of scheduler runs: 1 on FHEW whatever the batch
	// (all instances in one run), one per pack on BGV.
	Runs int
	// Slots is the instances one ciphertext carries (1 on FHEW).
	Slots int
}

// MaxThreads is the most EvalOptions.Threads Eval accepts: 4 per CPU, at
// least 16 (hcc --threads has the same limit).
func MaxThreads() int { return max(4*goruntime.NumCPU(), 16) }

// Eval evaluates program p on encrypted inputs with server key k and
// returns the encrypted outputs. The inputs must be p's (by circuit hash and
// layout), under k, for p's engine and parameter set. An FHEW batch runs as
// one scheduler run over all instances (the circuit replicated, instance
// after instance), so every thread stays busy across instances; a BGV batch
// runs its packs one after another, each on all threads. ctx cancels the
// run.
func Eval(ctx context.Context, p *Program, k *ServerKey, in *Ciphertexts, opts EvalOptions) (*Ciphertexts, Stats, error) {
	if opts.Threads < 0 {
		return nil, Stats{}, fmt.Errorf("threads must be at least 1, got %d", opts.Threads)
	}
	if limit := MaxThreads(); opts.Threads > limit {
		return nil, Stats{}, fmt.Errorf("%d threads is above the limit of %d (MaxThreads: 4 per CPU, at least 16): every thread holds its own scratch memory", opts.Threads, limit)
	}
	if err := checkEvalArgs(p, k, in); err != nil {
		return nil, Stats{}, err
	}
	if p.interfaceOnly {
		return nil, Stats{}, errInterfaceOnly(p)
	}
	if len(in.packs) == 0 {
		return nil, Stats{}, errors.New("no input instances (released by an earlier Eval with ReleaseInputs?)")
	}
	if err := in.checkFor(p, &k.keyInfo, ctInputs); err != nil {
		return nil, Stats{}, err
	}
	// A key that evaluates is not about to be written: a new key's
	// encoding (96 MB on STD128_T_CMUX, hcc run) need not stay beside it.
	k.fresh.Store(nil)
	if opts.Threads == 0 {
		opts.Threads = goruntime.GOMAXPROCS(0)
	}
	for _, pk := range in.packs {
		if len(pk.cts) != p.circuit.NumInputBits() {
			return nil, Stats{}, fmt.Errorf("a pack holds %d ciphertexts, program %q has %d input bits", len(pk.cts), p.name, p.circuit.NumInputBits())
		}
		if err := k.ek.check(p, pk.cts); err != nil {
			return nil, Stats{}, err
		}
	}
	out := &Ciphertexts{kind: ctOutputs, engine: in.engine, scheme: in.scheme, key: in.key,
		circuitHash: in.circuitHash, circuitName: in.circuitName, layout: layoutOf(p.circuit.Outputs), pos: in.pos}
	if pr, ok := k.ek.(planRunner); ok { // a wide plan runs as a whole (engine_fhew_wide.go)
		return evalPlan(ctx, pr, p, in, out, opts)
	}
	be, err := k.ek.evaluator(p)
	if err != nil {
		return nil, Stats{}, err
	}
	st := Stats{Instances: in.Instances(), Slots: k.scheme.slots()}
	// groups of pack indices evaluated in one scheduler run
	var groups [][]int
	if k.scheme.slots() == 1 {
		all := make([]int, len(in.packs)) // one run over every instance
		for i := range all {
			all[i] = i
		}
		groups = append(groups, all)
	} else {
		for i := range in.packs {
			groups = append(groups, []int{i})
		}
	}
	prog := newProgress(opts.Progress, be, p.circuit, in.Instances(), len(groups))
	for _, g := range groups {
		c := p.circuit
		if len(g) > 1 {
			c = replicate(p.circuit, len(g))
		}
		var inputs []backend.Ciphertext
		for _, i := range g {
			inputs = append(inputs, in.packs[i].cts...)
			if opts.ReleaseInputs {
				in.packs[i].cts, in.packs[i].released = nil, true // the run drops inputs as it goes; nothing else may hold them
			}
		}
		var ev backend.Evaluator = be
		if prog != nil {
			ev = prog.wrap(be)
		}
		outs, rs, err := hccrt.Run(ctx, c, ev, inputs, hccrt.Options{Threads: opts.Threads, ReleaseInputs: opts.ReleaseInputs})
		st.add(rs)
		if err != nil {
			return nil, st, err
		}
		bits := p.circuit.NumOutputBits()
		for j, i := range g {
			res, err := k.ek.finish(outs[j*bits : (j+1)*bits])
			if err != nil {
				return nil, st, err
			}
			out.packs = append(out.packs, pack{n: in.packs[i].n, cts: res})
		}
	}
	if opts.ReleaseInputs {
		in.packs = nil
	}
	return out, st, nil
}

// add accumulates one run's statistics.
func (s *Stats) add(r hccrt.Stats) {
	if s.Runs == 0 {
		s.Stats = r
	} else {
		s.Nodes += r.Nodes
		s.Costly += r.Costly
		s.Wall += r.Wall
		s.Busy += r.Busy
		s.CPU += r.CPU
	}
	s.Runs++
}

// replicate returns k copies of c in one circuit, copy after copy (the
// runtime starts the lowest ready index first, so instances finish roughly
// in order and memory holds about one instance's live values, while idle
// threads pick up the next instance's ready nodes). Inputs and outputs are
// the copies' buses in order, so the input and output bits of instance j
// follow those of instance j-1.
func replicate(c *ir.Circuit, k int) *ir.Circuit {
	n := len(c.Nodes)
	d := &ir.Circuit{Name: c.Name, Nodes: make([]ir.Node, 0, n*k)}
	fanins := make([]ir.NodeID, 0, n*k*2)
	for j := 0; j < k; j++ {
		off := ir.NodeID(j * n)
		nb := int32(j * len(c.Inputs))
		for i := range c.Nodes {
			node := c.Nodes[i]
			start := len(fanins)
			for _, x := range node.In {
				fanins = append(fanins, x+off)
			}
			node.In = fanins[start:len(fanins):len(fanins)]
			if node.Op == ir.OpInput {
				node.Bus += nb
			}
			d.Nodes = append(d.Nodes, node)
		}
		for _, b := range c.Inputs {
			d.Inputs = append(d.Inputs, shiftBus(b, j, off))
		}
		for _, b := range c.Outputs {
			d.Outputs = append(d.Outputs, shiftBus(b, j, off))
		}
	}
	return d
}

func shiftBus(b ir.Bus, j int, off ir.NodeID) ir.Bus {
	bits := make([]ir.NodeID, len(b.Bits))
	for i, x := range b.Bits {
		bits[i] = x + off
	}
	b.Name = fmt.Sprintf("%s#%d", b.Name, j)
	b.Bits = bits
	return b
}

// progress counts the costly operations of an Eval across its runs and
// reports them to the caller's callback.
type progress struct {
	mu    sync.Mutex
	f     func(done, total int)
	cost  func(ir.Op) int
	done  int
	total int
}

func newProgress(f func(done, total int), be backend.Evaluator, c *ir.Circuit, instances, runs int) *progress {
	if f == nil {
		return nil
	}
	caps := be.Capabilities()
	per := 0
	for i := range c.Nodes {
		per += caps.OpCost(c.Nodes[i].Op)
	}
	total := per * instances
	if runs > 1 || caps.Slots > 1 {
		total = per * runs // BGV: one run per pack, whatever its instances
	}
	return &progress{f: f, cost: caps.OpCost, total: total}
}

func (p *progress) add(op ir.Op) {
	k := p.cost(op)
	if k == 0 {
		return
	}
	p.mu.Lock()
	p.done += k
	p.f(p.done, p.total)
	p.mu.Unlock()
}

// wrap returns be with every worker reporting finished nodes to p.
func (p *progress) wrap(be backend.Evaluator) backend.Evaluator {
	return progressEvaluator{Evaluator: be, p: p}
}

type progressEvaluator struct {
	backend.Evaluator
	p *progress
}

func (e progressEvaluator) NewWorker() backend.Worker {
	return progressWorker{Worker: e.Evaluator.NewWorker(), p: e.p}
}

type progressWorker struct {
	backend.Worker
	p *progress
}

func (w progressWorker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	err := w.Worker.Eval(n, in, out)
	if err == nil {
		w.p.add(n.Op)
	}
	return err
}

// levelCache holds a value an engine computes once per program (BGV: the
// input level).
type levelCache struct {
	once  sync.Once
	level int
	err   error
}

func (l *levelCache) get(f func() (int, error)) (int, error) {
	l.once.Do(func() { l.level, l.err = f() })
	return l.level, l.err
}

// set records a value computed elsewhere (a no-op once one is known).
func (l *levelCache) set(level int) { l.get(func() (int, error) { return level, nil }) }
