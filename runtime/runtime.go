// Package runtime runs a compiled circuit on an encrypted backend. Its
// scheduler is dataflow-driven: a node starts as soon as its last fanin is
// ready (no level barriers; among ready nodes the lowest index goes first),
// at most Threads nodes run at once, and a
// ciphertext goes back to a free list once its last consumer has run, so
// memory follows the circuit's live width rather than its size.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Options configure a run.
type Options struct {
	// Threads bounds the number of nodes evaluated at once (>= 1).
	Threads int
	// Progress, if non-nil, receives a progress line while the run goes on
	// (done/total costly operations, named by the backend, rate, ETA). Pass os.Stderr only when it is a
	// terminal (see IsTerminal); nil keeps the run quiet.
	Progress io.Writer
	// ProgressEvery is the refresh interval (default 250 ms).
	ProgressEvery time.Duration
	// ReleaseInputs lets the run drop each input ciphertext once its last
	// consumer has run, setting the caller's inputs[i] to nil, so that the
	// memory can be reclaimed during the run (BGV at m = 65537 holds 23 MB
	// per top-level input bit). Leave it off when the caller reuses inputs.
	ReleaseInputs bool
}

// Stats summarise a finished run.
type Stats struct {
	Nodes int // nodes evaluated (gates and constants)
	// Costly is the number of the backend's costly operations (its
	// Capabilities.Cost summed over the nodes), and CostName what they are,
	// in the plural: "bootstraps" for FHEW, "multiplications" for BGV.
	Costly   int
	CostName string
	Wall     time.Duration // elapsed time of the whole run
	// Busy is the summed wall time workers spent inside Eval. It counts the
	// time a worker waited for the operating system to run its thread, so on
	// a loaded machine it can be Threads × Wall while the process got half
	// of that in CPU time; CPU is what the process actually received.
	Busy time.Duration
	// CPU is the process's CPU time (user + system, all threads, the
	// garbage collector included) received between the start and the end of
	// the run, from getrusage(RUSAGE_SELF); CPUKnown is false on platforms
	// without it. It is the whole process's: runs going on at the same time
	// in one process (a cluster worker's) each count the others' CPU too.
	CPU      time.Duration
	CPUKnown bool
	Threads  int
}

// PerOp is the average wall time per costly operation (0 without any).
func (s Stats) PerOp() time.Duration {
	if s.Costly == 0 {
		return 0
	}
	return s.Wall / time.Duration(s.Costly)
}

// Efficiency is busy time / (threads × wall): 1 means every worker was
// inside Eval for the whole run (whether or not the operating system ran
// it; compare CPUShare). It is 0 for a run without costly operations,
// where it measures nothing but bookkeeping.
func (s Stats) Efficiency() float64 {
	if s.Wall <= 0 || s.Threads == 0 || s.Costly == 0 {
		return 0
	}
	return float64(s.Busy) / (float64(s.Threads) * float64(s.Wall))
}

// CPUShare is the CPU time received / (threads × wall): 1 means the
// process had a core per thread for the whole run. Below Efficiency, the
// workers were runnable but not running (a loaded machine). It is 0 when
// CPU is unknown or the run had no costly operations.
func (s Stats) CPUShare() float64 {
	if !s.CPUKnown || s.Wall <= 0 || s.Threads == 0 || s.Costly == 0 {
		return 0
	}
	return float64(s.CPU) / (float64(s.Threads) * float64(s.Wall))
}

// String renders the stats for the CLI, e.g. "85 bootstraps in 1.6s (19ms
// per bootstrap), 2 threads: busy 3.2s (100% of 2 × wall), CPU received
// 1.6s (50%)": busy workers that received half the CPU they could use, on
// a loaded machine. A run without costly operations reports its nodes and
// time only.
func (s Stats) String() string {
	name := s.CostName
	if name == "" {
		name = "costly operations"
	}
	wall := s.Wall.Round(time.Millisecond)
	if s.Costly == 0 {
		return fmt.Sprintf("no %s: %d nodes in %v, %d threads", name, s.Nodes, wall, s.Threads)
	}
	var sb strings.Builder
	counted := name
	if s.Costly == 1 {
		counted = singular(name)
	}
	fmt.Fprintf(&sb, "%d %s in %v (%v per %s), %d threads: busy %v (%.0f%% of %d × wall)",
		s.Costly, counted, wall, s.PerOp().Round(time.Microsecond), singular(name), s.Threads,
		s.Busy.Round(time.Millisecond), 100*s.Efficiency(), s.Threads)
	if s.CPUKnown {
		fmt.Fprintf(&sb, ", CPU received %v (%.0f%%)", s.CPU.Round(time.Millisecond), 100*s.CPUShare())
	}
	return sb.String()
}

// singular turns the plural cost names ("bootstraps", "multiplications")
// into the unit of a per-operation time.
func singular(name string) string {
	if strings.HasSuffix(name, "s") {
		return name[:len(name)-1]
	}
	return name
}

// NodeError reports the node at which a run failed.
type NodeError struct {
	Node ir.NodeID
	Op   ir.Op
	Pos  string // source position, if the circuit carries one
	Err  error
}

func (e *NodeError) Error() string {
	where := fmt.Sprintf("node %d (%v)", e.Node, e.Op)
	if e.Pos != "" {
		where += " from " + e.Pos
	}
	return where + ": " + e.Err.Error()
}

func (e *NodeError) Unwrap() error { return e.Err }

// Run evaluates c on encrypted inputs (one ciphertext per input bit, in the
// layout of ir.Circuit.EvalBits) and returns one ciphertext per output bit.
// The first error cancels the run and is returned as a *NodeError.
func Run(ctx context.Context, c *ir.Circuit, ev backend.Evaluator, inputs []backend.Ciphertext, opts Options) ([]backend.Ciphertext, Stats, error) {
	if len(inputs) != c.NumInputBits() {
		return nil, Stats{}, fmt.Errorf("circuit %q takes %d input bits, got %d ciphertexts", c.Name, c.NumInputBits(), len(inputs))
	}
	caps := ev.Capabilities()
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op.IsGate() && !caps.Supports(n.Op) {
			return nil, Stats{}, &NodeError{Node: ir.NodeID(i), Op: n.Op, Pos: n.Pos, Err: errors.New("the backend cannot evaluate this op; lower it first")}
		}
		if n.Op == ir.OpLUT && (caps.LUT == nil || !caps.LUT.CanEvalLUT(n.Table, len(n.In))) {
			return nil, Stats{}, &NodeError{Node: ir.NodeID(i), Op: n.Op, Pos: n.Pos, Err: fmt.Errorf("the backend cannot evaluate LUT%d %#x in one bootstrap", len(n.In), n.Table)}
		}
	}
	threads := max(opts.Threads, 1)
	s := newSchedule(c, caps.OpCost, !opts.ReleaseInputs)
	r := &run{c: c, s: s, cost: caps.OpCost, costName: caps.OpCostName(), ct: make([]backend.Ciphertext, len(c.Nodes)), workers: make(chan backend.Worker, threads)}
	for i := 0; i < threads; i++ {
		r.workers <- ev.NewWorker()
	}
	offs := inputOffsets(c)
	r.inputs, r.inputIndex = inputs, make(map[ir.NodeID]int, len(inputs))
	for i := range c.Nodes {
		if n := &c.Nodes[i]; n.Op == ir.OpInput {
			k := offs[n.Bus] + int(n.Bit)
			r.ct[i], r.inputIndex[ir.NodeID(i)] = inputs[k], k
		}
	}

	cpu0, cpuKnown := ProcessCPU()
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(threads)
	ready := newReadyQueue(len(c.Nodes))
	for _, id := range s.initial {
		ready.push(id)
	}
	stopProgress := r.startProgress(opts, start)
	total := s.gates
	dispatched := 0
	var err error
	slots := make(chan struct{}, threads) // one token per running node
loop:
	for dispatched < total {
		// Take a worker slot first and only then pick a node, so that the
		// pick sees everything that became ready while all workers were busy.
		select {
		case slots <- struct{}{}:
		case <-gctx.Done():
			break loop
		}
		for {
			if id, ok := ready.pop(); ok {
				dispatched++
				g.Go(func() error {
					defer func() { <-slots }()
					return r.evalNode(gctx, id, ready)
				})
				break
			}
			select {
			case <-ready.signal:
			case <-gctx.Done():
				break loop
			}
		}
	}
	if werr := g.Wait(); werr != nil {
		err = werr
	} else if cerr := ctx.Err(); cerr != nil && dispatched < total {
		err = cerr
	}
	stopProgress()
	stats := Stats{Nodes: total, Costly: s.costly, CostName: r.costName, Wall: time.Since(start), Busy: time.Duration(r.busy.Load()), Threads: threads}
	if cpu1, ok := ProcessCPU(); ok && cpuKnown {
		stats.CPU, stats.CPUKnown = cpu1-cpu0, true
	}
	if err != nil {
		return nil, stats, err
	}
	out := make([]backend.Ciphertext, 0, c.NumOutputBits())
	for i := range c.Outputs {
		for _, id := range c.Outputs[i].Bits {
			out = append(out, r.ct[id])
		}
	}
	return out, stats, nil
}

type run struct {
	c    *ir.Circuit
	s    *schedule
	cost func(ir.Op) int
	// costName is what cost counts ("bootstraps"), for the progress line.
	costName string
	ct       []backend.Ciphertext
	inputs   []backend.Ciphertext // the caller's, cleared only with ReleaseInputs
	// inputIndex maps an INPUT node to its position in inputs.
	inputIndex map[ir.NodeID]int
	workers    chan backend.Worker
	busy       atomic.Int64 // nanoseconds inside Eval
	done       atomic.Int64 // costly operations finished
	freeMu     sync.Mutex
	free       []backend.Ciphertext // released ciphertexts for reuse
}

func (r *run) evalNode(ctx context.Context, id ir.NodeID, ready *readyQueue) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := <-r.workers
	defer func() { r.workers <- w }()
	n := &r.c.Nodes[id]
	out := r.take(w)
	t0 := time.Now()
	if n.Op == ir.OpConst0 || n.Op == ir.OpConst1 {
		w.Constant(n.Op == ir.OpConst1, out)
	} else {
		var inBuf [max(ir.MaxLUTInputs, ir.MaxParityInputs)]backend.Ciphertext
		in := inBuf[:len(n.In)]
		for j, x := range n.In {
			in[j] = r.ct[x]
		}
		if err := w.Eval(n, in, out); err != nil {
			return &NodeError{Node: id, Op: n.Op, Pos: n.Pos, Err: err}
		}
	}
	r.busy.Add(int64(time.Since(t0)))
	if k := r.cost(n.Op); k > 0 {
		r.done.Add(int64(k))
	}
	r.ct[id] = out
	for _, x := range n.In {
		if !r.s.release(x) {
			continue
		}
		if r.c.Nodes[x].Op == ir.OpInput {
			// Only with ReleaseInputs: the caller's ciphertext, dropped
			// rather than recycled (it need not come from this backend's
			// NewCiphertext).
			r.inputs[r.inputIndex[x]] = nil
		} else {
			r.give(r.ct[x])
		}
		r.ct[x] = nil
	}
	for _, consumer := range r.s.consumers[id] {
		if r.s.pending[consumer].Add(-1) == 0 {
			ready.push(consumer)
		}
	}
	return nil
}

func (r *run) take(w backend.Worker) backend.Ciphertext {
	r.freeMu.Lock()
	defer r.freeMu.Unlock()
	if k := len(r.free); k > 0 {
		ct := r.free[k-1]
		r.free = r.free[:k-1]
		return ct
	}
	return w.NewCiphertext()
}

func (r *run) give(ct backend.Ciphertext) {
	r.freeMu.Lock()
	r.free = append(r.free, ct)
	r.freeMu.Unlock()
}

func inputOffsets(c *ir.Circuit) []int {
	offs := make([]int, len(c.Inputs))
	off := 0
	for i := range c.Inputs {
		offs[i] = off
		off += len(c.Inputs[i].Bits)
	}
	return offs
}
