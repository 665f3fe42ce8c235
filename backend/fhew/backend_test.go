package fhew

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Compile-time checks: the adapter is what the runtime and optimizer take.
var (
	_ backend.Evaluator     = (*Backend)(nil)
	_ backend.LUTCapability = LUTTarget{}
)

// TestWorkerEval runs every op the adapter accepts through Worker.Eval on
// every input combination and compares with the plaintext truth table, on
// a P = 4 and a P = 8 toy set (MUX takes different paths there).
func TestWorkerEval(t *testing.T) {
	type opCase struct {
		name  string
		node  ir.Node
		truth func(x int) int // x bit j = input j
	}
	bit := func(x, j int) int { return x >> j & 1 }
	ops := []opCase{
		{"NOT", ir.Node{Op: ir.OpNot, In: []ir.NodeID{0}}, func(x int) int { return 1 - bit(x, 0) }},
		{"AND", ir.Node{Op: ir.OpAnd, In: []ir.NodeID{0, 1}}, func(x int) int { return bit(x, 0) & bit(x, 1) }},
		{"OR", ir.Node{Op: ir.OpOr, In: []ir.NodeID{0, 1}}, func(x int) int { return bit(x, 0) | bit(x, 1) }},
		{"XOR", ir.Node{Op: ir.OpXor, In: []ir.NodeID{0, 1}}, func(x int) int { return bit(x, 0) ^ bit(x, 1) }},
		{"NAND", ir.Node{Op: ir.OpNand, In: []ir.NodeID{0, 1}}, func(x int) int { return 1 - (bit(x, 0) & bit(x, 1)) }},
		{"NOR", ir.Node{Op: ir.OpNor, In: []ir.NodeID{0, 1}}, func(x int) int { return 1 - (bit(x, 0) | bit(x, 1)) }},
		{"XNOR", ir.Node{Op: ir.OpXnor, In: []ir.NodeID{0, 1}}, func(x int) int { return 1 - (bit(x, 0) ^ bit(x, 1)) }},
		{"ANDNY", ir.Node{Op: ir.OpAndNY, In: []ir.NodeID{0, 1}}, func(x int) int { return bit(x, 0) &^ bit(x, 1) }},
		{"MUX", ir.Node{Op: ir.OpMux, In: []ir.NodeID{0, 1, 2}}, func(x int) int {
			if bit(x, 0) == 1 {
				return bit(x, 1)
			}
			return bit(x, 2)
		}},
		// XOR3 (weights 2,2,1 at P = 4) and MAJORITY.
		{"LUT3-XOR", ir.Node{Op: ir.OpLUT, Table: 0b10010110, In: []ir.NodeID{0, 1, 2}}, func(x int) int { return bit(x, 0) ^ bit(x, 1) ^ bit(x, 2) }},
		{"LUT3-MAJ", ir.Node{Op: ir.OpLUT, Table: 0b11101000, In: []ir.NodeID{0, 1, 2}}, func(x int) int {
			return bit(x, 0)&bit(x, 1) | bit(x, 2)&(bit(x, 0)^bit(x, 1))
		}},
	}
	for _, lit := range []ParamsLiteral{ToySigned, ToySlots8} {
		k := kitFor(t, lit)
		// ToySlots8's 3-input functions fail at ~2^-38: accept them here.
		w := NewBackendWithTarget(k.ev, NewLUTTarget(k.p, -30)).NewWorker()
		for _, oc := range ops {
			t.Run(oc.name+"/"+lit.Name, func(t *testing.T) {
				arity := len(oc.node.In)
				out := w.NewCiphertext()
				for x := 0; x < 1<<arity; x++ {
					in := make([]backend.Ciphertext, arity)
					for j := range in {
						in[j] = k.enc.EncryptNew(bit(x, j))
					}
					if err := w.Eval(&oc.node, in, out); err != nil {
						t.Fatal(err)
					}
					if got, want := k.decrypt(t, out.(*Ciphertext)), oc.truth(x); got != want {
						t.Errorf("inputs %0*b: got %d, want %d", arity, x, got, want)
					}
				}
			})
		}
	}
}

func TestWorkerConstantAndErrors(t *testing.T) {
	k := kitFor(t, ToySigned)
	w := NewBackend(k.ev).NewWorker()
	c := w.NewCiphertext()
	for _, v := range []bool{false, true} {
		w.Constant(v, c)
		if got := k.decrypt(t, c.(*Ciphertext)); got != b2i(v) {
			t.Errorf("Constant(%v) decrypts to %d", v, got)
		}
		// A constant feeds a gate like any ciphertext.
		and := ir.Node{Op: ir.OpAnd, In: []ir.NodeID{0, 1}}
		out := w.NewCiphertext()
		if err := w.Eval(&and, []backend.Ciphertext{c, k.enc.EncryptNew(1)}, out); err != nil {
			t.Fatal(err)
		}
		if got := k.decrypt(t, out.(*Ciphertext)); got != b2i(v) {
			t.Errorf("AND(Constant(%v), 1) decrypts to %d", v, got)
		}
	}
	x := k.enc.EncryptNew(1)
	// AND3 is no one-bootstrap function at P = 4: the adapter refuses it
	// (the optimizer splits such cuts) and leaves out alone.
	and3 := ir.Node{Op: ir.OpLUT, Table: 0x80, In: []ir.NodeID{0, 1, 2}}
	if err := w.Eval(&and3, []backend.Ciphertext{x, x, x}, c); err == nil {
		t.Error("LUT3 AND3 at P = 4: no error")
	}
	bad := ir.Node{Op: ir.OpAnd, In: []ir.NodeID{0, 1}}
	if err := w.Eval(&bad, []backend.Ciphertext{x, "not a ciphertext"}, c); err == nil {
		t.Error("foreign ciphertext type: no error")
	}
	if err := w.Eval(&ir.Node{Op: ir.OpInput}, nil, c); err == nil {
		t.Error("INPUT node: no error")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLUTTarget pins the capability the optimizer sees: the failure bound
// keeps wide-weight functions off STD128_T, the low-failure set keeps the
// 3-input XOR, and MUX costs what the evaluator spends.
func TestLUTTarget(t *testing.T) {
	get := func(name string) LUTTarget {
		p, err := ParamsByName(name, false)
		if err != nil {
			t.Fatal(err)
		}
		return NewLUTTarget(p, DefaultLUTFailureLog2)
	}
	const xor3, maj3, and3 = 0b10010110, 0b11101000, 0b10000000
	low, std, p8 := get("STD128_LOWFAIL_T"), get("STD128_T"), get("STD128_LOWFAIL3_T")
	for _, c := range []struct {
		name  string
		t     LUTTarget
		table uint64
		k     int
		want  bool
	}{
		{"LOWFAIL_T/XOR3", low, xor3, 3, true},
		{"LOWFAIL_T/MAJ3", low, maj3, 3, true},
		{"LOWFAIL_T/AND3", low, and3, 3, false}, // not a P = 4 function at all
		{"STD128_T/XOR3", std, xor3, 3, true},   // 2,2,1 was 2^-30; 2,2,2 at margin 1/4 is 2^-87
		{"STD128_T/MAJ3", std, maj3, 3, true},   // weights 1,1,1: 2^-66
		{"STD128_T/XOR2", std, 0b0110, 2, true}, // weights 2,2 at margin 1/4: 2^-123
		{"LOWFAIL3_T/AND3", p8, and3, 3, true},
		{"LOWFAIL_T/k=7", low, 1, 7, false},
	} {
		if got := c.t.CanEvalLUT(c.table, c.k); got != c.want {
			t.Errorf("%s: CanEvalLUT = %v, want %v", c.name, got, c.want)
		}
	}
	if got := low.MaxLUTInputs(); got != MaxLUTInputs {
		t.Errorf("STD128_LOWFAIL_T: MaxLUTInputs = %d, want %d", got, MaxLUTInputs)
	}
	// Weights 1,...,1 stay within 2^-40 up to k = 6 even on STD128_T.
	if got := std.MaxLUTInputs(); got != MaxLUTInputs {
		t.Errorf("STD128_T: MaxLUTInputs = %d, want %d", got, MaxLUTInputs)
	}
	// s ? a : b is no function of one weighted sum even at P = 8.
	if low.GateBootstraps(ir.OpMux) != 2 || p8.GateBootstraps(ir.OpMux) != 2 {
		t.Errorf("MUX bootstraps: P = 4 %d, P = 8 %d; want 2 and 2", low.GateBootstraps(ir.OpMux), p8.GateBootstraps(ir.OpMux))
	}
	if low.GateBootstraps(ir.OpNot) != 0 || low.GateBootstraps(ir.OpXor) != 1 || low.GateBootstraps(ir.OpConst1) != 0 {
		t.Error("NOT must be free and XOR one bootstrap")
	}
	b := ir.NewBuilder("m")
	in := b.Input("x", 3, false)
	b.Output("y", 2, false, []ir.NodeID{b.Mux(in[0], in[1], in[2]), b.Not(b.Xor(in[0], in[1]))})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := low.CircuitBootstraps(c); got != 3 {
		t.Errorf("MUX + XOR + NOT: CircuitBootstraps = %d, want 3", got)
	}
}

func TestCiphertextEncoding(t *testing.T) {
	k := kitFor(t, ToySigned)
	bits := []bool{true, false, false, true, true}
	cts := k.enc.EncryptBits(bits)
	var buf []byte
	for _, c := range cts {
		buf = AppendCiphertext(buf, c.(*Ciphertext))
	}
	size := CiphertextSize(k.p)
	if len(buf) != size*len(bits) {
		t.Fatalf("encoded %d bytes, want %d", len(buf), size*len(bits))
	}
	back := make([]backend.Ciphertext, len(bits))
	for i := range back {
		c, err := DecodeCiphertext(k.p, buf[i*size:(i+1)*size])
		if err != nil {
			t.Fatal(err)
		}
		back[i] = c
	}
	got, err := k.sk.DecryptBits(back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bits {
		if got[i] != bits[i] {
			t.Errorf("bit %d: got %v, want %v", i, got[i], bits[i])
		}
	}
	if _, err := DecodeCiphertext(k.p, buf[:size-1]); err == nil {
		t.Error("short ciphertext: no error")
	}
	bad := append([]byte(nil), buf[:size]...)
	bad[1] = 0xff // β >= Q_ks = 2^14
	if _, err := DecodeCiphertext(k.p, bad); err == nil {
		t.Error("unreduced entry: no error")
	}
}

// TestWideLUTs evaluates 4- to 6-input functions the default target accepts
// (the LUT mapper emits them) on every input combination at ToySigned. The
// tables come from random weights and random negacyclic decision patterns,
// so they are evaluable by construction; parity is always among them.
func TestWideLUTs(t *testing.T) {
	k := kitFor(t, ToySigned)
	target := NewLUTTarget(k.p, DefaultLUTFailureLog2)
	w := NewBackendWithTarget(k.ev, target).NewWorker()
	rng := rand.New(rand.NewPCG(21, 22))
	choices := []int{0, 1, -1, 2}
	for kk := 4; kk <= MaxLUTInputs && kk <= target.MaxLUTInputs(); kk++ {
		tables := []uint64{}
		parity := uint64(0)
		for x := 0; x < 1<<kk; x++ {
			if bits.OnesCount(uint(x))%2 == 1 {
				parity |= 1 << uint(x)
			}
		}
		tables = append(tables, parity)
		for tries := 0; len(tables) < 4; tries++ {
			if tries == 10000 {
				t.Fatalf("LUT%d: no random weighted function passes the target's failure bound", kk)
			}
			weights := make([]int, kk)
			for j := range weights {
				weights[j] = choices[rng.IntN(len(choices))]
			}
			h := rng.IntN(4) // decisions for v = 0, 1 (mod 4); v + 2 negates
			var table uint64
			for x := 0; x < 1<<kk; x++ {
				v := 0
				for j := range weights {
					v += weights[j] * (x >> j & 1)
				}
				v = ((v % 4) + 4) % 4
				out := h >> (v % 2) & 1
				if v >= 2 {
					out ^= 1
				}
				table |= uint64(out) << uint(x)
			}
			if target.CanEvalLUT(table, kk) {
				tables = append(tables, table)
			}
		}
		for _, table := range tables {
			node := ir.Node{Op: ir.OpLUT, Table: table, In: make([]ir.NodeID, kk)}
			out := w.NewCiphertext()
			for x := 0; x < 1<<kk; x++ {
				in := make([]backend.Ciphertext, kk)
				for j := range in {
					in[j] = k.enc.EncryptNew(x >> j & 1)
				}
				if err := w.Eval(&node, in, out); err != nil {
					t.Fatalf("LUT%d %#x: %v", kk, table, err)
				}
				if got, want := k.decrypt(t, out.(*Ciphertext)), int(table>>uint(x)&1); got != want {
					t.Fatalf("LUT%d %#x at %0*b: got %d, want %d", kk, table, kk, x, got, want)
				}
			}
		}
	}
}
