package circuittest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// fakeTB records a failure instead of failing the test, to show that the
// kit's testing.TB helpers do fail.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs body with a fakeTB and returns its failure message ("" if
// it did not fail).
func failure(t *testing.T, body func(tb testing.TB)) string {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	return f.msg
}

func TestRandomCoversEveryOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[ir.Op]int{}
	lutWidths, parWidths := map[int]bool{}, map[int]bool{}
	constFanin, repeatedFanin := false, false
	for iter := 0; iter < 40; iter++ {
		c := Random(t, rng, Config{Inputs: 1 + rng.IntN(20), Gates: 60, Outputs: 5})
		if err := ir.Verify(c); err != nil {
			t.Fatal(err)
		}
		if c.NumInputBits() < 1 || c.NumOutputBits() != 5 {
			t.Fatalf("interface %d -> %d", c.NumInputBits(), c.NumOutputBits())
		}
		for _, n := range c.Nodes {
			seen[n.Op]++
			switch n.Op {
			case ir.OpLUT:
				lutWidths[len(n.In)] = true
			case ir.OpParity:
				parWidths[len(n.In)] = true
			}
			for j, x := range n.In {
				if op := c.Nodes[x].Op; op == ir.OpConst0 || op == ir.OpConst1 {
					constFanin = true
				}
				for _, y := range n.In[:j] {
					repeatedFanin = repeatedFanin || x == y
				}
			}
		}
	}
	for _, op := range append([]ir.Op{ir.OpConst0, ir.OpConst1, ir.OpInput}, AllGateOps...) {
		if seen[op] == 0 {
			t.Errorf("no %v node in 40 random circuits", op)
		}
	}
	for k := 1; k <= ir.MaxLUTInputs; k++ {
		if !lutWidths[k] {
			t.Errorf("no %d-input LUT", k)
		}
	}
	for k := 2; k <= 8; k++ {
		if !parWidths[k] {
			t.Errorf("no %d-input PARITY", k)
		}
	}
	if parWidths[9] || !constFanin || !repeatedFanin {
		t.Errorf("PARITY widths %v, constant fanin %v, repeated fanin %v", parWidths, constFanin, repeatedFanin)
	}
}

func TestRandomConfig(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := Random(t, rng, Config{Inputs: 4, Gates: 200, Ops: []ir.Op{ir.OpXor, ir.OpXor, ir.OpAnd}, NoConstants: true, Duplicates: true})
	dup := false
	keys := map[string]bool{}
	for _, n := range c.Nodes {
		switch n.Op {
		case ir.OpXor, ir.OpAnd, ir.OpInput:
		default:
			t.Fatalf("op %v outside Ops", n.Op)
		}
		if n.Op.IsGate() {
			k := fmt.Sprint(n.Op, n.In)
			dup = dup || keys[k]
			keys[k] = true
		}
	}
	if !dup || c.NumOutputBits() != 8 {
		t.Errorf("duplicates %v, %d outputs", dup, c.NumOutputBits())
	}
	for _, bad := range []Config{{Inputs: 0, Gates: 3}, {Inputs: 2, Gates: 3, MaxLUTInputs: 7},
		{Inputs: 2, Gates: 3, MaxParityInputs: 1}, {Inputs: 2, Gates: 3, Ops: []ir.Op{ir.OpInput}}} {
		if msg := failure(t, func(tb testing.TB) { Random(tb, rng, bad) }); !strings.Contains(msg, "circuittest.Random") {
			t.Errorf("Random(%+v) did not fail: %q", bad, msg)
		}
	}
}

// lanes returns the assignments (as integers over the first n bits) that
// the vectors contain.
func lanes(vs [][]uint64, n int) map[uint64]bool {
	got := map[uint64]bool{}
	for _, in := range vs {
		for lane := 0; lane < 64; lane++ {
			var a uint64
			for k := 0; k < n; k++ {
				a |= (in[k] >> lane & 1) << k
			}
			got[a] = true
		}
	}
	return got
}

func TestVectorsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 5, 6, 7, 11, ExhaustiveLimit} {
		vs := Vectors(rng, n, 3)
		if want := max(1, (1<<n)/64); len(vs) != want {
			t.Fatalf("n=%d: %d words, want %d", n, len(vs), want)
		}
		if got := lanes(vs, n); len(got) != 1<<n {
			t.Fatalf("n=%d: %d distinct assignments, want %d", n, len(got), 1<<n)
		}
	}
}

func TestVectorsEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 40
	vs := Vectors(rng, n, 2)
	edges := 6 + 2*n
	if want := (edges+63)/64 + 2; len(vs) != want {
		t.Fatalf("%d words, want %d", len(vs), want)
	}
	got := lanes(vs, n)
	all := uint64(1)<<n - 1
	want := []uint64{0, all, 0xaaaaaaaaaa & all, 0x5555555555 & all, 1<<(n/2) - 1, all &^ (1<<(n/2) - 1)}
	for j := 0; j < n; j++ {
		want = append(want, 1<<j, all&^(1<<j))
	}
	for _, a := range want {
		if !got[a] {
			t.Errorf("edge case %#x missing", a)
		}
	}
	if len(got) < edges+2*64-1 { // random lanes are (almost surely) new
		t.Errorf("only %d distinct assignments", len(got))
	}
}

// flipWhenAllOnes is a deliberately wrong pass: it XORs the first output
// bit with the AND of every input, so it changes the function on exactly
// one assignment (all ones).
func flipWhenAllOnes(c *ir.Circuit) (*ir.Circuit, error) {
	d := c.Clone()
	add := func(n ir.Node) ir.NodeID {
		d.Nodes = append(d.Nodes, n)
		return ir.NodeID(len(d.Nodes) - 1)
	}
	var acc ir.NodeID = -1
	for _, bus := range d.Inputs {
		for _, x := range bus.Bits {
			if acc < 0 {
				acc = x
			} else {
				acc = add(ir.Node{Op: ir.OpAnd, In: []ir.NodeID{acc, x}})
			}
		}
	}
	out := &d.Outputs[0].Bits[0]
	*out = add(ir.Node{Op: ir.OpXor, In: []ir.NodeID{*out, acc}})
	return d, nil
}

// notNot is a correct pass: every output goes through two NOTs.
func notNot(c *ir.Circuit) (*ir.Circuit, error) {
	d := c.Clone()
	for i := range d.Outputs {
		for j, x := range d.Outputs[i].Bits {
			d.Nodes = append(d.Nodes, ir.Node{Op: ir.OpNot, In: []ir.NodeID{x}})
			d.Nodes = append(d.Nodes, ir.Node{Op: ir.OpNot, In: []ir.NodeID{ir.NodeID(len(d.Nodes) - 1)}})
			d.Outputs[i].Bits[j] = ir.NodeID(len(d.Nodes) - 1)
		}
	}
	return d, nil
}

// The kit catches a wrong pass exhaustively up to 16 inputs and, beyond,
// through the edge cases, where random vectors alone (almost surely) miss
// it; a correct pass goes through.
func TestKitCatchesWrongPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{3, ExhaustiveLimit, ExhaustiveLimit + 1, 48} {
		c := Random(t, rng, Config{Inputs: n, Gates: 80, Window: 8})
		if _, err := RunPass("not-not", notNot, c, 4); err != nil {
			t.Fatalf("n=%d: correct pass rejected: %v", n, err)
		}
		_, err := RunPass("flip", flipWhenAllOnes, c, 4)
		if err == nil || !strings.Contains(err.Error(), "flip changed the function") || !strings.Contains(err.Error(), "y[0]") {
			t.Fatalf("n=%d: wrong pass not caught: %v", n, err)
		}
		if n > ExhaustiveLimit {
			d, _ := flipWhenAllOnes(c)
			random := Vectors(rng, n, 4)[(6+2*n+63)/64:]
			if err := Compare(c, d, random); err != nil {
				t.Fatalf("n=%d: random vectors hit the all-ones input: %v", n, err)
			}
		}
		msg := failure(t, func(tb testing.TB) { CheckPass(tb, "flip", flipWhenAllOnes, c) })
		if !strings.Contains(msg, "flip changed the function") {
			t.Fatalf("n=%d: CheckPass did not fail t: %q", n, msg)
		}
		msg = failure(t, func(tb testing.TB) { d, _ := flipWhenAllOnes(c); Equivalent(tb, c, d) })
		if !strings.Contains(msg, "differ at output y[0]") || !strings.Contains(msg, "on input x=0b"+strings.Repeat("1", n)) {
			t.Fatalf("n=%d: Equivalent did not fail t with the input: %q", n, msg)
		}
	}
}

// RunPass also rejects a pass that fails, returns an invalid circuit,
// modifies its input or changes the interface.
func TestRunPassRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := Random(t, rng, Config{Inputs: 6, Gates: 30})
	for _, tc := range []struct {
		name string
		run  func(*ir.Circuit) (*ir.Circuit, error)
		want string
	}{
		{"fails", func(*ir.Circuit) (*ir.Circuit, error) { return nil, errors.New("boom") }, "fails: boom"},
		{"nil", func(*ir.Circuit) (*ir.Circuit, error) { return nil, nil }, "returned no circuit"},
		{"invalid", func(c *ir.Circuit) (*ir.Circuit, error) {
			d := c.Clone()
			d.Outputs[0].Bits[0] = ir.NodeID(len(d.Nodes) + 5)
			return d, nil
		}, "produced an invalid circuit"},
		{"mutates", func(c *ir.Circuit) (*ir.Circuit, error) {
			d := c.Clone()
			c.Name = "changed"
			return d, nil
		}, "modified its input"},
		{"renames", func(c *ir.Circuit) (*ir.Circuit, error) {
			d := c.Clone()
			d.Outputs[0].Name = "z"
			return d, nil
		}, "interfaces differ"},
	} {
		_, err := RunPass(tc.name, tc.run, c.Clone(), 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	bad := c.Clone()
	bad.Outputs[0].Bits[0] = ir.NodeID(len(bad.Nodes))
	if _, err := RunPass("id", func(c *ir.Circuit) (*ir.Circuit, error) { return c.Clone(), nil }, bad, 1); err == nil ||
		!strings.Contains(err.Error(), "input circuit") {
		t.Errorf("invalid input accepted: %v", err)
	}
}
