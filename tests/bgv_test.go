package tests

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/runtime"
)

// TestBGVBitSliced runs Bristol circuits through the runtime on the BGV
// bit-sliced executor at m = 257: every one of the 16 slots holds a
// different random instance, and each slot's outputs must equal the
// plaintext evaluation of that instance, and each output ciphertext's level
// and noise estimate what Params.Simulate predicts from the inputs'.
func TestBGVBitSliced(t *testing.T) {
	lit := bgv.ToyM257DeepLiteral
	lit.AllowInsecure = true // insecure: tests only
	pr, err := bgv.NewParams(lit)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := bgv.NewEncoder(pr)
	if err != nil {
		t.Fatal(err)
	}
	smp := bgv.NewSamplerFromSeed([32]byte{42})
	kg := bgv.NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	en := bgv.NewPublicEncryptor(pr, kg.GenPublicKey(sk), smp)
	de := bgv.NewDecryptor(pr, sk)
	ev := bgv.NewEvaluator(pr, bgv.NewEvaluationKeySet(kg.GenRelinKey(sk)))
	be := bgv.NewBackend(ev)
	slots := enc.Slots()
	mask := uint64(1)<<uint(slots) - 1
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"adder64", "zero_equal"} {
		t.Run(name, func(t *testing.T) {
			c, err := ir.ReadFile(filepath.Join(sharedCircuits(t), name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if err := pr.CheckCircuit(c); err != nil {
				t.Fatal(err)
			}
			// Lane j of in[i] is input bit i of instance j.
			in := make([]uint64, c.NumInputBits())
			for i := range in {
				in[i] = rng.Uint64() & mask
			}
			if name == "zero_equal" {
				// Make some instances zero so that both outputs occur.
				for i := range in {
					in[i] &^= 0x5
				}
			}
			want := c.EvalBits(in)
			cts := make([]backend.Ciphertext, len(in))
			states := make([]bgv.NoiseState, len(in))
			bits := make([]uint8, slots)
			pt := bgv.NewBinaryPoly(pr.N())
			for i, v := range in {
				for j := range bits {
					bits[j] = uint8(v >> uint(j) & 1)
				}
				if err := enc.EncodeBits(bits, pt); err != nil {
					t.Fatal(err)
				}
				ct := en.Encrypt(pt)
				cts[i], states[i] = ct, ct.State()
			}
			// The noise model's simulation of these inputs predicts every
			// output's level and estimate exactly.
			sim, err := pr.Simulate(c, states)
			if err != nil {
				t.Fatal(err)
			}
			outs, stats, err := runtime.Run(context.Background(), c, be, cts, runtime.Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d gates in %v, depth %d", name, stats.Nodes, stats.Wall, bgv.CircuitDepth(c))
			for o, ct := range outs {
				if st := ct.(*bgv.Ciphertext).State(); st != sim[o] {
					t.Errorf("output bit %d: level %d, estimate 2^%.2f; simulated level %d, 2^%.2f",
						o, st.Level, st.Noise.LogEnergy(), sim[o].Level, sim[o].Noise.LogEnergy())
				}
				if err := enc.DecodeBits(de.Decrypt(ct.(*bgv.Ciphertext)), bits); err != nil {
					t.Fatal(err)
				}
				got := uint64(0)
				for j, b := range bits {
					got |= uint64(b) << uint(j)
				}
				if got != want[o]&mask {
					t.Errorf("output bit %d: slots %016b, want %016b", o, got, want[o]&mask)
				}
			}
		})
	}
}
