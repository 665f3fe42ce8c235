package runtime

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// namedBackend is clearBackend with a cost name, as BGV reports
// multiplications rather than bootstraps.
type namedBackend struct {
	*clearBackend
	name string
}

func (b namedBackend) Capabilities() backend.Capabilities {
	caps := b.clearBackend.Capabilities()
	caps.CostName = b.name
	return caps
}

func andChain(n int) *ir.Circuit {
	b := ir.NewBuilder("chain")
	x := b.Input("x", 2, false)
	y := x[0]
	for range n {
		y = b.And(y, x[1])
	}
	b.Output("y", 1, false, []ir.NodeID{y})
	c, _ := b.Build()
	return c
}

// TestStatsCPUReceived checks that a run reports the CPU time the process
// received during the run, apart from the busy time: workers that sleep
// inside Eval are busy but get no CPU, which is what a loaded machine looks
// like. CPU spent before the run must not be counted.
func TestStatsCPUReceived(t *testing.T) {
	if _, ok := ProcessCPU(); !ok {
		t.Skip("no process CPU time on this platform")
	}
	spin(200 * time.Millisecond) // CPU before the run: not part of it
	c := andChain(10)
	be := &clearBackend{failAt: -1, nodes: c.Nodes, delay: 20 * time.Millisecond}
	_, st, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 2)), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !st.CPUKnown || st.Busy < 200*time.Millisecond {
		t.Fatalf("stats %+v: want known CPU and at least 200ms busy", st)
	}
	if st.CPU >= st.Busy/2 {
		t.Errorf("sleeping workers: CPU %v for %v busy (the spin before the run counted?)", st.CPU, st.Busy)
	}
	if st.Efficiency() < 0.5 || st.CPUShare() >= st.Efficiency()/2 {
		t.Errorf("busy share %.2f, CPU share %.2f: want the CPU share far below", st.Efficiency(), st.CPUShare())
	}
	s := st.String()
	for _, want := range []string{"10 bootstraps", "busy ", "CPU received "} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, want %q in it", s, want)
		}
	}

	// Workers that compute do receive CPU time.
	be = &clearBackend{failAt: -1, nodes: c.Nodes}
	spinner := spinBackend{be, 20 * time.Millisecond}
	_, st, err = Run(context.Background(), c, spinner, encryptClear(make([]uint64, 2)), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.CPU < time.Millisecond {
		t.Errorf("spinning workers: CPU %v for %v busy", st.CPU, st.Busy)
	}
}

// spinBackend burns CPU for d inside every Eval.
type spinBackend struct {
	*clearBackend
	d time.Duration
}

func (b spinBackend) NewWorker() backend.Worker {
	return spinWorker{b.clearBackend.NewWorker(), b.d}
}

type spinWorker struct {
	backend.Worker
	d time.Duration
}

func (w spinWorker) Eval(n *ir.Node, in []backend.Ciphertext, out backend.Ciphertext) error {
	spin(w.d)
	return w.Worker.Eval(n, in, out)
}

// spin keeps the CPU busy for d of wall time.
func spin(d time.Duration) {
	x := uint64(1)
	for t0 := time.Now(); time.Since(t0) < d; {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
}

var sink uint64

// TestStatsNoCostlyOps checks that a run without costly operations prints
// no per-operation time or efficiency (which would read 0% or nonsense).
func TestStatsNoCostlyOps(t *testing.T) {
	b := ir.NewBuilder("nots")
	x := b.Input("x", 1, false)
	b.Output("y", 1, false, []ir.NodeID{b.Not(b.Not(x[0]))})
	c, _ := b.Build()
	be := &clearBackend{failAt: -1, nodes: c.Nodes}
	_, st, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 1)), Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Costly != 0 || st.Efficiency() != 0 || st.CPUShare() != 0 || st.PerOp() != 0 {
		t.Errorf("stats %+v: efficiency %v, CPU share %v, per op %v", st, st.Efficiency(), st.CPUShare(), st.PerOp())
	}
	s := st.String()
	if !strings.HasPrefix(s, "no bootstraps: ") || strings.Contains(s, "%") || strings.Contains(s, "efficiency") {
		t.Errorf("String() = %q, want no percentages", s)
	}
}

// TestStatsCostName checks that the backend's name for its costly operation
// reaches the stats, their text and the progress line.
func TestStatsCostName(t *testing.T) {
	c := andChain(3)
	be := namedBackend{&clearBackend{failAt: -1, nodes: c.Nodes, delay: 2 * time.Millisecond}, "multiplications"}
	var progress bytes.Buffer
	_, st, err := Run(context.Background(), c, be, encryptClear(make([]uint64, 2)),
		Options{Threads: 1, Progress: &progress, ProgressEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if st.CostName != "multiplications" || st.Costly != 3 {
		t.Fatalf("stats %+v, want 3 multiplications", st)
	}
	if s := st.String(); !strings.HasPrefix(s, "3 multiplications in ") || !strings.Contains(s, " per multiplication)") || strings.Contains(s, "bootstrap") {
		t.Errorf("String() = %q", s)
	}
	if p := progress.String(); !strings.Contains(p, "3/3 multiplications (100%)") || strings.Contains(p, "bootstrap") {
		t.Errorf("progress %q", p)
	}
	one := Stats{Nodes: 1, Costly: 1, CostName: "multiplications", Wall: time.Millisecond, Busy: time.Millisecond, Threads: 1}
	if s := one.String(); !strings.HasPrefix(s, "1 multiplication in 1ms (1ms per multiplication)") {
		t.Errorf("String() = %q", s)
	}
	for _, tc := range []struct {
		caps backend.Capabilities
		want string
	}{
		{backend.Capabilities{}, "bootstraps"},
		{backend.Capabilities{Cost: func(ir.Op) int { return 1 }}, "costly operations"},
		{backend.Capabilities{CostName: "multiplications"}, "multiplications"},
	} {
		if got := tc.caps.OpCostName(); got != tc.want {
			t.Errorf("OpCostName() = %q, want %q", got, tc.want)
		}
	}
}
