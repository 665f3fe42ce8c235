package bgv

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// allOpsCircuit uses every gate op and LUTs of degrees 1 to 4.
func allOpsCircuit(t *testing.T) *ir.Circuit {
	b := ir.NewBuilder("allops")
	x := b.Input("x", 6, false)
	b.SetHashing(false)
	b.SetFolding(false)
	var outs []ir.NodeID
	outs = append(outs, b.Not(x[0]), b.And(x[0], x[1]), b.Or(x[1], x[2]), b.Xor(x[2], x[3]),
		b.Nand(x[3], x[4]), b.Nor(x[4], x[5]), b.Xnor(x[5], x[0]), b.AndNY(x[0], x[2]),
		b.Mux(x[1], x[3], x[5]),
		b.LUT(0x96, x[0], x[1], x[2]),                      // 3-input XOR: affine
		b.LUT(0xe8, x[1], x[2], x[3]),                      // majority: degree 2
		b.LUT(0x8000, x[0], x[1], x[2], x[3]),              // 4-input AND: degree 4
		b.LUT(0x8000000000000000, x...),                    // 6-input AND: degree 6, depth 3
		b.LUT(0x6996966996696996^0x0123456789abcdef, x...), // a fixed "random" 6-input function
	)
	b.Output("y", len(outs), false, outs)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExecutorAllOps evaluates every op on 16 random instances (one per
// slot) at m = 257 in node order and compares with ir's bit-sliced
// evaluator; CircuitDepth and CheckCircuit agree with what the run needs.
func TestExecutorAllOps(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	c := allOpsCircuit(t)
	be := NewBackend(k.ev)
	caps := be.Capabilities()
	if caps.Slots != 16 || !caps.Supports(ir.OpLUT) || !caps.LUT.CanEvalLUT(0x8000, 4) || caps.OpCostName() != "multiplications" {
		t.Fatalf("capabilities %+v", caps)
	}
	if d := CircuitDepth(c); d != 3 { // the 6-input LUT has degree <= 6: depth 3
		t.Errorf("CircuitDepth = %d, want 3", d)
	}
	if err := k.pr.CheckCircuit(c); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	l := k.enc.Slots()
	in := make([]uint64, c.NumInputBits())
	for i := range in {
		in[i] = rng.Uint64() & (1<<uint(l) - 1)
	}
	want := c.EvalBits(in)
	w := be.NewWorker()
	cts := make([]backend.Ciphertext, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch n.Op {
		case ir.OpInput:
			cts[i] = k.encryptBits(t, in[n.Bit])
			continue
		case ir.OpConst0, ir.OpConst1:
			cts[i] = w.NewCiphertext()
			w.Constant(n.Op == ir.OpConst1, cts[i])
			continue
		}
		args := make([]backend.Ciphertext, len(n.In))
		for j, f := range n.In {
			args[j] = cts[f]
		}
		cts[i] = w.NewCiphertext()
		if err := w.Eval(n, args, cts[i]); err != nil {
			t.Fatal(err)
		}
	}
	for j, id := range c.Outputs[0].Bits {
		if got := k.decryptBits(t, cts[id].(*Ciphertext)); got != want[j]&(1<<uint(l)-1) {
			t.Errorf("output %d (%v): got %016b, want %016b", j, c.Nodes[id].Op, got, want[j])
		}
	}
	// Depth errors name both depths.
	shallow := testParams(t, ToyM17Literal)
	deep := ir.NewBuilder("deep")
	v := deep.Input("v", 40, false)
	acc := v[0]
	for _, x := range v[1:] {
		acc = deep.And(acc, x)
	}
	deep.Output("o", 1, false, []ir.NodeID{acc})
	dc, err := deep.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := shallow.CheckCircuit(dc); !errors.Is(err, ErrDepth) || !errors.Is(err, ErrNoiseBudget) || !strings.Contains(err.Error(), "primes by the noise model") {
		t.Errorf("CheckCircuit of a depth-39 chain at m = 17: %v", err)
	}
}

// encryptBits encrypts the bit vector v (bit j in slot j).
func (k *testKit) encryptBits(t testing.TB, v uint64) *Ciphertext {
	t.Helper()
	b := make([]uint8, k.enc.Slots())
	for j := range b {
		b[j] = uint8(v >> uint(j) & 1)
	}
	pt := NewBinaryPoly(k.pr.N())
	if err := k.enc.EncodeBits(b, pt); err != nil {
		t.Fatal(err)
	}
	return k.en.Encrypt(pt)
}

// decryptBits decrypts a bit vector.
func (k *testKit) decryptBits(t testing.TB, ct *Ciphertext) uint64 {
	t.Helper()
	b := make([]uint8, k.enc.Slots())
	if err := k.enc.DecodeBits(k.de.Decrypt(ct), b); err != nil {
		t.Fatal(err)
	}
	v := uint64(0)
	for j, x := range b {
		v |= uint64(x) << uint(j)
	}
	return v
}
