package fhew

import (
	"math"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// circuitOf builds a circuit directly from nodes (no builder folding, so
// that repeated and negated fanins survive); inputs are one bus of k bits.
func circuitOf(k int, nodes ...ir.Node) *ir.Circuit {
	c := &ir.Circuit{Name: "t"}
	in := ir.Bus{Name: "x", Width: k}
	for i := 0; i < k; i++ {
		c.Nodes = append(c.Nodes, ir.Node{Op: ir.OpInput, Bus: 0, Bit: int32(i)})
		in.Bits = append(in.Bits, ir.NodeID(i))
	}
	c.Inputs = []ir.Bus{in}
	c.Nodes = append(c.Nodes, nodes...)
	last := ir.NodeID(len(c.Nodes) - 1)
	c.Outputs = []ir.Bus{{Name: "y", Width: 1, Bits: []ir.NodeID{last}}}
	return c
}

func node(op ir.Op, in ...ir.NodeID) ir.Node { return ir.Node{Op: op, In: in} }

func TestCircuitFailure(t *testing.T) {
	p, err := NewParams(STD128_T)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Noise()
	fresh := p.lit.Sigma * p.lit.Sigma / float64(p.qks*p.qks)
	tail := func(v float64) float64 { return log2GaussTail(p.margin() / math.Sqrt(v+m.KeySwitch+m.Rounding)) }
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: log2 failure %.6f, want %.6f", name, got, want)
		}
	}

	// x0 AND x1 on fresh inputs; then NAND of two bootstrapped gates: the
	// second-level gate is exactly GateFailureLog2(1, 1).
	f, err := p.CircuitFailure(circuitOf(4, node(ir.OpAnd, 0, 1), node(ir.OpOr, 2, 3), node(ir.OpNand, 4, 5)))
	if err != nil {
		t.Fatal(err)
	}
	first := tail(2 * fresh)
	second := p.GateFailureLog2([]int{1, 1})
	near("three gates", f.Log2Failure, math.Log2(2*math.Exp2(first)+math.Exp2(second)))
	if f.Bootstraps != 3 || f.WorstNode != 6 || f.WorstLog2 != second {
		t.Errorf("three gates: %+v", f)
	}

	// One source reaching a gate twice adds coherently; through a NOT the
	// contributions cancel (XOR uses weights 2, 2 at P = 4 with margin 1/4:
	// nothing of g is left, only key switching and rounding).
	f, _ = p.CircuitFailure(circuitOf(2, node(ir.OpAnd, 0, 1), node(ir.OpAnd, 2, 2)))
	near("AND(g, g)", f.Log2Failure, math.Log2(math.Exp2(tail(2*fresh))+math.Exp2(tail(4*m.Output))))
	f, _ = p.CircuitFailure(circuitOf(2, node(ir.OpAnd, 0, 1), node(ir.OpNot, 2), node(ir.OpXor, 2, 3)))
	if pl := gatePlan(p, gateXOR); len(pl.spec.Weights) != 2 || pl.spec.Weights[0] != 2 || pl.spec.Weights[1] != 2 || pl.d != 2 {
		t.Fatalf("XOR plan %+v", pl)
	}
	wide := log2GaussTail(2 * p.margin() / math.Sqrt(m.KeySwitch+m.Rounding))
	near("XOR(g, NOT g)", f.Log2Failure, math.Log2(math.Exp2(tail(2*fresh))+math.Exp2(wide)))
	if f.Bootstraps != 2 {
		t.Errorf("NOT is free: %d bootstraps", f.Bootstraps)
	}

	// MUX takes two bootstraps at P = 4, LUTs one; a LUT that needs two is
	// refused; constants are noiseless.
	f, err = p.CircuitFailure(circuitOf(3, node(ir.OpMux, 0, 1, 2), ir.Node{Op: ir.OpLUT, In: []ir.NodeID{0, 1, 3}, Table: 0b11101000}))
	if err != nil || f.Bootstraps != 3 {
		t.Fatalf("MUX + MAJ LUT: %+v, %v", f, err)
	}
	if _, err := p.CircuitFailure(circuitOf(3, ir.Node{Op: ir.OpLUT, In: []ir.NodeID{0, 1, 2}, Table: 0b10000000})); err == nil {
		t.Error("AND3 LUT accepted at P = 4")
	}
	f, _ = p.CircuitFailure(circuitOf(1, node(ir.OpConst1), node(ir.OpAnd, 0, 1)))
	near("AND(x, 1)", f.Log2Failure, tail(fresh))

	// No bootstraps: failure is impossible.
	f, _ = p.CircuitFailure(circuitOf(1, node(ir.OpNot, 0)))
	if f.Bootstraps != 0 || !math.IsInf(f.Log2Failure, -1) || f.WorstNode != -1 {
		t.Errorf("NOT only: %+v", f)
	}

	// A chain of 1000 identical second-level gates costs log2(1000) more.
	nodes := []ir.Node{node(ir.OpAnd, 0, 1)}
	for i := 0; i < 1000; i++ {
		nodes = append(nodes, node(ir.OpNand, ir.NodeID(2+i), 1))
	}
	f, _ = p.CircuitFailure(circuitOf(2, nodes...))
	// Each NAND sees one bootstrapped and one fresh input.
	near("chain", f.Log2Failure, math.Log2(math.Exp2(tail(2*fresh))+1000*math.Exp2(tail(m.Output+fresh))))
}

// The prediction bounds an encrypted run's failure rate at a Toy set whose
// key-switching noise is raised until gates fail often enough to count.
// At P = 4 every decision fails in one direction only (each sum has one
// neighbour with the other output), so the true rate is about half the
// two-sided Gaussian tail the model uses: the model is an upper bound
// within a factor of about 2.
func TestCircuitFailureBoundsToyRate(t *testing.T) {
	lit := ToySigned
	lit.Name, lit.QKS, lit.LogBKS = "ToySignedNoisy", 1<<11, 3
	p, err := NewParamsInsecure(lit)
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.CircuitFailure(circuitOf(2, node(ir.OpAnd, 0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	rate := math.Exp2(f.Log2Failure)
	if rate < 0.03 || rate > 0.2 {
		t.Fatalf("noisy toy set predicts %.3g per gate, outside the range this test counts", rate)
	}
	k := kitFor(t, lit)
	sc := NewScratch(k.p)
	out := NewCiphertext(k.p)
	const trials = 1000
	wrong := 0
	for i := 0; i < trials; i++ {
		a, b := i&1, (i>>1)&1
		k.ev.AND(k.enc.EncryptNew(a), k.enc.EncryptNew(b), out, sc)
		if v, err := k.sk.Decrypt(out); err != nil || v != a&b {
			wrong++
		}
	}
	want := trials * rate
	if sd := math.Sqrt(want); float64(wrong) > want+4*sd || float64(wrong) < want/8 {
		t.Errorf("%d of %d ANDs wrong, predicted bound %.1f", wrong, trials, want)
	}
	t.Logf("%d of %d ANDs wrong, bound %.1f", wrong, trials, want)
}
