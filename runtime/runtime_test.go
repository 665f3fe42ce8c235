package runtime

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// clearBackend is a plaintext test double: a "ciphertext" is a *uint64 of 64
// lanes, and Eval applies the reference gate semantics. It lets the scheduler
// be tested for ordering, parallelism and memory reuse without cryptography.
type clearBackend struct {
	allocated atomic.Int64
	failAt    ir.NodeID // node index whose Eval fails; -1 for none
	nodes     []ir.Node
	delay     time.Duration
	running   atomic.Int32
	maxRun    atomic.Int32
	cost      func(ir.Op) int
}

func (b *clearBackend) Capabilities() backend.Capabilities {
	return backend.Capabilities{Ops: []ir.Op{ir.OpNot, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNand, ir.OpNor,
		ir.OpXnor, ir.OpAndNY, ir.OpMux, ir.OpLUT, ir.OpParity}, LUT: anyLUT{}, Slots: 64, Cost: b.cost}
}

type anyLUT struct{}

func (anyLUT) MaxLUTInputs() int                   { return ir.MaxLUTInputs }
func (anyLUT) CanEvalLUT(table uint64, k int) bool { return k <= 3 }

func (b *clearBackend) NewWorker() backend.Worker { return &clearWorker{b: b} }

type clearWorker struct {
	b  *clearBackend
	in [ir.MaxParityInputs]uint64
}

func (w *clearWorker) NewCiphertext() backend.Ciphertext {
	w.b.allocated.Add(1)
	return new(uint64)
}

func (w *clearWorker) Constant(v bool, out backend.Ciphertext) {
	*out.(*uint64) = 0
	if v {
		*out.(*uint64) = ^uint64(0)
	}
}

func (w *clearWorker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	if r := w.b.running.Add(1); r > w.b.maxRun.Load() {
		w.b.maxRun.Store(r)
	}
	defer w.b.running.Add(-1)
	if w.b.delay > 0 {
		time.Sleep(w.b.delay)
	}
	if w.b.failAt >= 0 && n == &w.b.nodes[w.b.failAt] {
		return errors.New("injected failure")
	}
	for j, ct := range in {
		w.in[j] = *ct.(*uint64)
	}
	*out.(*uint64) = ir.EvalGate(n.Op, n.Table, w.in[:len(in)])
	return nil
}

// randomCircuit is the runtime's shape of circuittest.Random: every op, LUTs
// of up to 3 inputs (what clearBackend's capabilities allow), PARITY up to
// ir.MaxParityInputs wide (wider than any LUT: the workers' fanin buffer),
// fanins leaning to the last 12 nodes so that circuits are deep as well as
// wide, 16 outputs.
func randomCircuit(t testing.TB, rng *rand.Rand, nIn, nGates int) *ir.Circuit {
	return circuittest.Random(t, rng, circuittest.Config{Inputs: nIn, Gates: nGates, Outputs: 16,
		MaxLUTInputs: 3, MaxParityInputs: ir.MaxParityInputs, Window: 12})
}

func encryptClear(in []uint64) []backend.Ciphertext {
	cts := make([]backend.Ciphertext, len(in))
	for i := range in {
		v := in[i]
		cts[i] = &v
	}
	return cts
}

func TestRunMatchesEvaluator(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 50; iter++ {
		c := randomCircuit(t, rng, 1+rng.IntN(20), 1+rng.IntN(400))
		// The first and the last input words of the kit's vectors: up to
		// 16 inputs the lowest and the highest 64 assignments (all zeros,
		// all ones), beyond them the edge cases and one random round.
		vs := circuittest.Vectors(rng, c.NumInputBits(), 1)
		for _, in := range [][]uint64{vs[0], vs[len(vs)-1]} {
			want := c.EvalBits(in)
			for _, threads := range []int{1, 2, 7} {
				be := &clearBackend{failAt: -1, nodes: c.Nodes}
				out, st, err := Run(context.Background(), c, be, encryptClear(in), Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				for k := range want {
					if got := *out[k].(*uint64); got != want[k] {
						t.Fatalf("iter %d threads %d: output bit %d = %#x, want %#x", iter, threads, k, got, want[k])
					}
				}
				if st.Threads != threads || st.Costly > st.Nodes {
					t.Fatalf("bad stats %+v", st)
				}
			}
		}
	}
}

// TestRunReusesCiphertexts checks that dead ciphertexts are recycled: a long
// chain needs a handful of live values, not one per node.
func TestRunReusesCiphertexts(t *testing.T) {
	b := ir.NewBuilder("chain")
	x := b.Input("x", 2, false)
	v := x[0]
	for i := 0; i < 1000; i++ {
		v = b.Xor(v, x[1])
		v = b.And(v, x[i%2])
	}
	b.Output("y", 1, false, []ir.NodeID{v})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	be := &clearBackend{failAt: -1, nodes: c.Nodes}
	in := []uint64{0xdead_beef, 0x1234_5678}
	out, _, err := Run(context.Background(), c, be, encryptClear(in), Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *out[0].(*uint64), c.EvalBits(in)[0]; got != want {
		t.Fatalf("chain = %#x, want %#x", got, want)
	}
	if n := be.allocated.Load(); n > 8 {
		t.Errorf("a 2000-gate chain allocated %d ciphertexts; dead ones should be reused", n)
	}
}

// TestRunParallel checks that independent gates really run concurrently.
func TestRunParallel(t *testing.T) {
	b := ir.NewBuilder("wide")
	x := b.Input("x", 64, false)
	var outs []ir.NodeID
	for i := 0; i < 32; i++ {
		outs = append(outs, b.And(x[2*i], x[2*i+1]))
	}
	b.Output("y", 32, false, outs)
	c, _ := b.Build()
	be := &clearBackend{failAt: -1, nodes: c.Nodes, delay: 5 * time.Millisecond}
	_, st, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 64)), Options{Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	if be.maxRun.Load() < 2 {
		t.Errorf("at most %d gates ran at once with 4 threads on 32 independent gates", be.maxRun.Load())
	}
	if be.maxRun.Load() > 4 {
		t.Errorf("%d gates ran at once with a limit of 4 threads", be.maxRun.Load())
	}
	if st.Efficiency() <= 0 {
		t.Errorf("efficiency %v", st.Efficiency())
	}
}

func TestRunReportsFailingNode(t *testing.T) {
	b := ir.NewBuilder("f")
	x := b.Input("x", 2, false)
	b.SetPos("f.hdl:3:7")
	g := b.And(x[0], x[1])
	b.SetPos("")
	h := b.Or(g, x[0])
	b.Output("y", 1, false, []ir.NodeID{h})
	c, _ := b.Build()
	be := &clearBackend{failAt: g, nodes: c.Nodes}
	_, _, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 2)), Options{Threads: 2})
	var ne *NodeError
	if !errors.As(err, &ne) || ne.Node != g || !strings.Contains(err.Error(), "f.hdl:3:7") || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("error = %v, want a NodeError at node %d from f.hdl:3:7", err, g)
	}
}

func TestRunRejectsUnsupported(t *testing.T) {
	b := ir.NewBuilder("lut4")
	x := b.Input("x", 4, false)
	b.Output("y", 1, false, []ir.NodeID{b.LUT(0x8000, x...)})
	c, _ := b.Build()
	_, _, err := Run(context.Background(), c, &clearBackend{failAt: -1, nodes: c.Nodes}, encryptClear(make([]uint64, 4)), Options{})
	if err == nil || !strings.Contains(err.Error(), "LUT4") {
		t.Fatalf("error = %v, want a refusal of the 4-input LUT", err)
	}
	_, _, err = Run(context.Background(), c, &clearBackend{failAt: -1}, encryptClear(make([]uint64, 3)), Options{})
	if err == nil {
		t.Fatal("wrong number of input ciphertexts accepted")
	}
}

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	writeProgress(&buf, 50, 200, "bootstraps", 10*time.Second)
	if got := buf.String(); !strings.Contains(got, "50/200 bootstraps (25%), 5.0/s, ETA 30s") {
		t.Errorf("progress line %q", got)
	}
}

// TestRunCountsBackendCost checks that statistics use the backend's cost per
// op (a MUX that takes two bootstraps counts two).
func TestRunCountsBackendCost(t *testing.T) {
	b := ir.NewBuilder("cost")
	x := b.Input("x", 3, false)
	m := b.Mux(x[0], x[1], x[2])
	y := b.Not(b.And(m, x[0]))
	b.Output("y", 1, false, []ir.NodeID{y})
	c, _ := b.Build()
	for _, tc := range []struct {
		name string
		cost func(ir.Op) int
		want int
	}{
		{"default", nil, 2},
		{"mux=2", func(op ir.Op) int {
			switch op {
			case ir.OpMux:
				return 2
			case ir.OpNot:
				return 0
			}
			return 1
		}, 3},
	} {
		be := &clearBackend{failAt: -1, nodes: c.Nodes, cost: tc.cost}
		_, st, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 3)), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if st.Costly != tc.want {
			t.Errorf("%s: %d bootstraps, want %d", tc.name, st.Costly, tc.want)
		}
	}
}
