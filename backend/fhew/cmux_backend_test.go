package fhew

import (
	"math"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// cmuxCircuit builds a small circuit with SEL and CMUX nodes: a CMux
// chain, a gate on a CMux output, a SEL node used as a gate input, and a
// select made from a CMux output.
func cmuxCircuit(t *testing.T) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("cmux")
	s := b.Input("s", 1, false)[0]
	a := b.Input("a", 2, false)
	f := b.Input("b", 2, false)
	sel := b.Sel(s)
	o0 := b.CMux(sel, a[0], f[0])
	o1 := b.CMux(sel, a[1], f[1])
	o2 := b.CMux(sel, o0, b.Not(f[1]))
	o3 := b.And(o2, a[1])
	o4 := b.Xor(sel, a[0])
	sel2 := b.Sel(o1)
	o5 := b.CMux(sel2, b.Not(o0), f[0])
	o6 := b.CMux(sel2, b.Const(true), a[0])
	b.Output("o", 7, false, []ir.NodeID{o0, o1, o2, o3, o4, o5, o6})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runWorker evaluates c on one input vector with one worker, node by node
// (the runtime's job, without its scheduling).
func runWorker(t *testing.T, k *testKit, w backend.Worker, c *ir.Circuit, in []int) []int {
	t.Helper()
	cts := make([]backend.Ciphertext, len(c.Nodes))
	next := 0
	for _, bus := range c.Inputs {
		for _, id := range bus.Bits {
			cts[id] = k.enc.EncryptNew(in[next])
			next++
		}
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch n.Op {
		case ir.OpInput:
			continue
		case ir.OpConst0, ir.OpConst1:
			cts[i] = w.NewCiphertext()
			w.Constant(n.Op == ir.OpConst1, cts[i])
			continue
		}
		ins := make([]backend.Ciphertext, len(n.In))
		for j, f := range n.In {
			ins[j] = cts[f]
		}
		cts[i] = w.NewCiphertext()
		if err := w.Eval(n, ins, cts[i]); err != nil {
			t.Fatalf("node %d (%v): %v", i, n.Op, err)
		}
	}
	var out []int
	for _, bus := range c.Outputs {
		for _, id := range bus.Bits {
			out = append(out, k.decrypt(t, cts[id].(*Ciphertext)))
		}
	}
	return out
}

// TestWorkerCMux runs the SEL/CMUX circuit through Backend workers on
// every input and compares with ir's plaintext evaluator.
func TestWorkerCMux(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) { checkWorkerCMux(t, kitFor(t, lit)) })
	}
}

// checkWorkerCMux is TestWorkerCMux on one key set (also run by the
// opt-in TestCMux128).
func checkWorkerCMux(t *testing.T, k *testKit) {
	be := NewBackend(k.ev)
	caps := be.Capabilities()
	has := map[ir.Op]bool{}
	for _, op := range caps.Ops {
		has[op] = true
	}
	if !has[ir.OpSel] || !has[ir.OpCMux] {
		t.Fatalf("capabilities %v lack SEL/CMUX", caps.Ops)
	}
	c := cmuxCircuit(t)
	nin := c.NumInputBits()
	words := make([]uint64, nin)
	for x := 0; x < 1<<nin; x++ {
		for j := range words {
			words[j] |= uint64(x>>j&1) << x
		}
	}
	want := c.EvalBits(words)
	w := be.NewWorker()
	for x := 0; x < 1<<nin; x++ {
		in := make([]int, nin)
		for j := range in {
			in[j] = x >> j & 1
		}
		got := runWorker(t, k, w, c, in)
		for j, g := range got {
			if e := int(want[j] >> x & 1); g != e {
				t.Errorf("input %05b output %d: got %d, want %d", x, j, g, e)
			}
		}
	}
	fail, err := k.p.CircuitFailure(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("predicted failure 2^%.1f over %d bootstraps", fail.Log2Failure, fail.Bootstraps)
	tg := NewLUTTarget(k.p, -40)
	if got, want := tg.CircuitBootstraps(c), 2*tg.SelectBootstraps()+2; got != want {
		t.Errorf("CircuitBootstraps = %d, want %d (two SEL, an AND and an XOR)", got, want)
	}
	per, err := tg.NodeFailureLog2(c)
	if err != nil {
		t.Fatal(err)
	}
	decrypted := map[ir.NodeID]bool{} // CMuxes whose output is decrypted (through NOTs)
	for _, bus := range c.Outputs {
		for _, id := range bus.Bits {
			for c.Nodes[id].Op == ir.OpNot {
				id = c.Nodes[id].In[0]
			}
			decrypted[id] = true
		}
	}
	for i, n := range c.Nodes {
		switch {
		case n.Op == ir.OpSel && !(per[i] < -40 && per[i] > math.Inf(-1)):
			t.Errorf("SEL node %d: NodeFailureLog2 %v", i, per[i])
		case n.Op == ir.OpCMux && decrypted[ir.NodeID(i)] && !(per[i] < -40 && per[i] > math.Inf(-1)):
			t.Errorf("CMUX node %d (an output): NodeFailureLog2 %v, want its decryption's failure", i, per[i])
		case n.Op == ir.OpCMux && !decrypted[ir.NodeID(i)] && !math.IsInf(per[i], -1):
			t.Errorf("CMUX node %d: NodeFailureLog2 %v, want -Inf (no decision)", i, per[i])
		}
	}
}

// TestWorkerCMuxErrors: SEL/CMUX on a set without the gadget, and a CMUX
// whose first fanin is no SEL output, are errors.
func TestWorkerCMuxErrors(t *testing.T) {
	k := kitFor(t, ToySignedCMux)
	w := NewBackend(k.ev).NewWorker()
	x := k.enc.EncryptNew(1)
	out := w.NewCiphertext()
	cm := ir.Node{Op: ir.OpCMux, In: []ir.NodeID{0, 1, 2}}
	if err := w.Eval(&cm, []backend.Ciphertext{x, x, x}, out); err == nil {
		t.Error("CMUX on a plain ciphertext accepted")
	}
	sel := ir.Node{Op: ir.OpSel, In: []ir.NodeID{0}}
	s := w.NewCiphertext()
	if err := w.Eval(&sel, []backend.Ciphertext{x}, s); err != nil {
		t.Fatal(err)
	}
	// s is recycled as a gate output: its select form is stale.
	and := ir.Node{Op: ir.OpAnd, In: []ir.NodeID{0, 1}}
	if err := w.Eval(&and, []backend.Ciphertext{x, x}, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Eval(&cm, []backend.Ciphertext{s, x, x}, out); err == nil {
		t.Error("CMUX on a recycled SEL ciphertext accepted")
	}
	plain := kitFor(t, ToySigned)
	pw := NewBackend(plain.ev).NewWorker()
	if err := pw.Eval(&sel, []backend.Ciphertext{plain.enc.EncryptNew(1)}, pw.NewCiphertext()); err == nil {
		t.Error("SEL on a set without the gadget accepted")
	}
	if NewLUTTarget(plain.p, -40).SelectBootstraps() != 0 || NewLUTTarget(plain.p, -40).GateBootstraps(ir.OpSel) != 0 {
		t.Error("SelectBootstraps > 0 on a set without the gadget")
	}
	tg := NewLUTTarget(k.p, -40)
	if tg.SelectBootstraps() < 1 || tg.GateBootstraps(ir.OpSel) != tg.SelectBootstraps() || tg.GateBootstraps(ir.OpCMux) != 0 {
		t.Errorf("costs: SEL %d (SelectBootstraps %d), CMUX %d", tg.GateBootstraps(ir.OpSel), tg.SelectBootstraps(), tg.GateBootstraps(ir.OpCMux))
	}
	if _, err := plain.p.CircuitFailure(cmuxCircuit(t)); err == nil {
		t.Error("CircuitFailure of SEL/CMUX on a set without the gadget")
	}
}
