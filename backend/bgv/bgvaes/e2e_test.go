package bgvaes

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
)

// reluCircuit is y[i] = max(x[i], 0) for 16 signed bytes: bit j of y[i]
// is bit j of x[i] AND NOT the sign bit (AND-depth 1).
func reluCircuit(t *testing.T) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("relu16")
	x := b.Input("x", 8, true, 16)
	var y []ir.NodeID
	for i := range 16 {
		sign := x[8*i+7]
		for j := range 8 {
			y = append(y, b.AndNY(x[8*i+j], sign))
		}
	}
	b.Output("y", 8, true, y, 16)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// evalCircuit runs c on bit ciphertexts with the bit-sliced executor's
// worker, node by node (the runtime's scheduler is not needed for a test).
func evalCircuit(t *testing.T, ev *bgv.Evaluator, c *ir.Circuit, in []*bgv.Ciphertext) []*bgv.Ciphertext {
	t.Helper()
	w := bgv.NewBackend(ev).NewWorker()
	vals := make([]backend.Ciphertext, len(c.Nodes))
	offs := make([]int, len(c.Inputs))
	for i := 1; i < len(offs); i++ {
		offs[i] = offs[i-1] + len(c.Inputs[i-1].Bits)
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch n.Op {
		case ir.OpInput:
			vals[i] = in[offs[n.Bus]+int(n.Bit)]
			continue
		case ir.OpConst0, ir.OpConst1:
			vals[i] = w.NewCiphertext()
			w.Constant(n.Op == ir.OpConst1, vals[i])
			continue
		}
		args := make([]backend.Ciphertext, len(n.In))
		for k, f := range n.In {
			args[k] = vals[f]
		}
		vals[i] = w.NewCiphertext()
		if err := w.Eval(n, args, vals[i]); err != nil {
			t.Fatalf("node %d (%v): %v", i, n.Op, err)
		}
	}
	var out []*bgv.Ciphertext
	for _, bus := range c.Outputs {
		for _, id := range bus.Bits {
			out = append(out, vals[id].(*bgv.Ciphertext))
		}
	}
	return out
}

// TestTranscipherThenCircuit is the whole transciphering workflow on
// ToyM257Deep: the client AES-128-CTR-encrypts 16-byte sensor records
// (crypto/cipher, as openssl enc -aes-128-ctr would) and sends its AES key
// encrypted under BGV; the server transciphers them to slot bits, checks
// the ReLU circuit's noise budget on the actual states (bgv.CheckInputs)
// and runs it on every record at once; the client decrypts the results,
// which equal the circuit's plaintext evaluation of the records.
func TestTranscipherThenCircuit(t *testing.T) {
	k := newKit(t, bgv.ToyM257DeepLiteral, 6)
	rng := rand.New(rand.NewPCG(7, 8))
	var key, iv [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	copy(iv[:], randomBlocks(rng, 1)[0][:])
	records := randomBlocks(rng, 13)
	var msg []byte
	for _, r := range records {
		msg = append(msg, r[:]...)
	}
	upload := ctrEncrypt(t, key, iv, msg)
	kp, err := k.a.EncodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyCts := k.encrypt16(t, kp, 24)

	ev, err := k.a.NewEvaluator(k.ev, 2)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := ev.TranscipherCTR(keyCts, iv, upload, true)
	if err != nil {
		t.Fatal(err)
	}
	c := reluCircuit(t)
	if err := k.pr.CheckInputs(c, batches[0].Bits); err != nil {
		t.Fatal(err)
	}
	out := evalCircuit(t, k.ev, c, batches[0].Bits)

	pts := make([]bgv.BinaryPoly, len(out))
	for i, ct := range out {
		pts[i] = k.de.Decrypt(ct)
	}
	got, err := k.a.DecodeRecords(pts, len(records))
	if err != nil {
		t.Fatal(err)
	}
	in := make([]uint64, c.NumInputBits()) // instance b in bit b of each word
	for b, r := range records {
		for i := range 128 {
			in[i] |= uint64(r[i/8]>>uint(i%8)&1) << uint(b)
		}
	}
	want := c.EvalBits(in)
	for b, r := range records {
		for i := range 16 {
			var w byte
			for j := range 8 {
				w |= byte(want[8*i+j]>>uint(b)&1) << uint(j)
			}
			if relu := max(int8(r[i]), 0); byte(relu) != w {
				t.Fatalf("reference: relu(%d) = %d, circuit %d", int8(r[i]), relu, int8(w))
			}
			if got[b][i] != w {
				t.Fatalf("record %d byte %d: %d, want %d", b, i, int8(got[b][i]), int8(w))
			}
		}
	}
	t.Logf("%d records: transciphered bits at level %d, ReLU outputs at level %d", len(records), batches[0].Bits[0].Level(), out[0].Level())
}
