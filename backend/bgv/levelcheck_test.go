package bgv

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/runtime"
)

// ancestryCircuit is a small circuit (shrunk by hand from a random one) on
// which the noise policy is not monotone in the inputs' ancestry: 3
// inputs, 8 products and one XOR at ToyM257Deep. With
// p = x0·x1, q = p·x2 and r = p·x1 computed from three fresh encryptions,
// the product q·r sees two operands whose estimates are 6 bits of energy
// wide when all inputs share ancestry (FreshState), so mulPlan first
// switches both down to the rounding floor; with three distinct ancestry
// bits their estimates are lower and only 2 and 4 bits wide, nothing is
// switched, and the product stays at the input level with 2^89.5 of
// energy. The next product then drops two levels at once, and the chain
// ends at level 0 one product earlier: with distinct bits the circuit
// needs one prime more than with shared ones. prefix outputs p, q, r and
// q·r instead of the chain's end.
func ancestryCircuit(t testing.TB, prefix bool) *ir.Circuit {
	b := ir.NewBuilder("ancestry")
	x := b.Input("x", 3, false)
	p := b.And(x[0], x[1])
	q := b.And(p, x[2])
	r := b.And(p, x[1])
	s := b.And(q, r)
	if prefix {
		b.Output("y", 4, false, []ir.NodeID{p, q, r, s})
	} else {
		u := b.And(r, b.Xor(s, x[1]))
		w := b.And(b.And(b.And(u, p), x[1]), x[1])
		b.Output("y", 1, false, []ir.NodeID{w})
	}
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// atLevel returns the states in moved to level t.
func atLevel(in []NoiseState, t int) []NoiseState {
	out := append([]NoiseState(nil), in...)
	for i := range out {
		out[i].Level = t
	}
	return out
}

// TestNoisePolicyNotMonotone pins down why every fresh encryption must
// carry FreshState's ancestry: on ancestryCircuit, inputs whose estimates
// are lower at every step up to the first switch (distinct ancestry bits,
// as the Encryptor once drew at random) fail at the level that
// LevelForCircuit picks for FreshState inputs, and need one level more.
func TestNoisePolicyNotMonotone(t *testing.T) {
	pr := testParams(t, ToyM257DeepLiteral)
	c := ancestryCircuit(t, false)
	level, err := pr.LevelForCircuit(c)
	if err != nil {
		t.Fatal(err)
	}
	shared := pr.freshInputs(c, level)
	distinct := pr.freshInputs(c, level)
	for i := range distinct {
		distinct[i].Noise.anc = [4]uint64{1 << (i + 1)}
	}
	prefix := ancestryCircuit(t, true)
	a, err := pr.Simulate(prefix, shared)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pr.Simulate(prefix, distinct)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // p, q, r: same level, distinct estimates lower
		if d[i].Level != a[i].Level || d[i].Noise.hi >= a[i].Noise.hi {
			t.Errorf("output %d: distinct ancestry level %d hi %.1f, shared level %d hi %.1f", i, d[i].Level, d[i].Noise.hi, a[i].Level, a[i].Noise.hi)
		}
	}
	if d[3].Level != level || a[3].Level != level-1 {
		t.Errorf("q·r at level %d (distinct) and %d (shared), want %d and %d", d[3].Level, a[3].Level, level, level-1)
	}
	if _, err := pr.Simulate(c, distinct); err == nil {
		t.Errorf("distinct ancestry runs at level %d too: the test no longer shows the non-monotone policy", level)
	}
	if _, err := pr.Simulate(c, atLevel(distinct, level+1)); err != nil {
		t.Errorf("distinct ancestry at level %d: %v", level+1, err)
	}
}

// TestLevelForCircuitRealInputs is the property LevelForCircuit promises
// hcc's client: on ancestryCircuit and on random circuits (circuittest's
// gate mix, half of them lowered by optimize.ForDepth), inputs that a
// symmetric Encryptor encrypts at LevelForCircuit's level have exactly
// FreshState's state, pass CheckInputs, and run to outputs of exactly the
// simulated states, whose measured noise is below the estimate, and which
// decrypt to the plaintext evaluation in every slot.
func TestLevelForCircuitRealInputs(t *testing.T) {
	k := newTestKit(t, ToyM257DeepLiteral)
	pr := k.pr
	en := NewSymmetricEncryptor(pr, k.sk, NewSamplerFromSeed([32]byte{71}))
	rng := rand.New(rand.NewPCG(71, 72))
	circuits := []*ir.Circuit{ancestryCircuit(t, false)}
	const count = 48
	for len(circuits) < count {
		var c *ir.Circuit
		if len(circuits)%2 == 0 {
			r := circuittest.Random(t, rng, circuittest.Config{Inputs: 3 + rng.IntN(10), Gates: 10 + rng.IntN(70), MaxLUTInputs: 4, Window: 6})
			var err error
			if c, err = optimize.ForDepth().Run(r); err != nil {
				t.Fatal(err)
			}
		} else {
			c = randomGateCircuit(t, rng, 3+rng.IntN(8), 10+rng.IntN(50))
		}
		if pr.CheckCircuit(c) == nil {
			circuits = append(circuits, c)
		}
	}
	mask := uint64(1)<<uint(k.enc.Slots()) - 1
	levels := map[int]int{}
	bits := make([]uint8, k.enc.Slots())
	pt := NewBinaryPoly(pr.N())
	for ci, c := range circuits {
		level, err := pr.LevelForCircuit(c)
		if err != nil {
			t.Fatalf("circuit %d: %v", ci, err)
		}
		levels[level]++
		in := make([]uint64, c.NumInputBits())
		cts := make([]*Ciphertext, len(in))
		args := make([]backend.Ciphertext, len(in))
		for i := range in {
			in[i] = rng.Uint64() & mask
			for j := range bits {
				bits[j] = uint8(in[i] >> uint(j) & 1)
			}
			if err := k.enc.EncodeBits(bits, pt); err != nil {
				t.Fatal(err)
			}
			if cts[i], err = en.EncryptAtLevel(pt, level); err != nil {
				t.Fatal(err)
			}
			if cts[i].State() != pr.FreshState(level) {
				t.Fatalf("circuit %d input %d: encryption state %+v, FreshState %+v", ci, i, cts[i].State(), pr.FreshState(level))
			}
			args[i] = cts[i]
		}
		if err := pr.CheckInputs(c, cts); err != nil {
			t.Errorf("circuit %d (%d nodes): CheckInputs at LevelForCircuit's level %d: %v", ci, len(c.Nodes), level, err)
			continue
		}
		sim, err := pr.Simulate(c, pr.freshInputs(c, level))
		if err != nil {
			t.Fatal(err)
		}
		outs, _, err := runtime.Run(context.Background(), c, NewBackend(k.ev), args, runtime.Options{Threads: 1 + ci%2})
		if err != nil {
			t.Errorf("circuit %d: run at level %d: %v", ci, level, err)
			continue
		}
		want := c.EvalBits(in)
		for i, o := range outs {
			ct := o.(*Ciphertext)
			if ct.State() != sim[i] {
				t.Errorf("circuit %d output %d: state %+v, simulated %+v", ci, i, ct.State(), sim[i])
			}
			// A constant's noise is its message, at most 1 (2^0), below
			// a Gaussian bound of energy 1.
			if measured, _ := k.de.NoiseBits(ct); measured > max(pr.NoiseBound(ct), 0) {
				t.Errorf("circuit %d output %d: noise 2^%.1f above the estimate 2^%.1f", ci, i, measured, pr.NoiseBound(ct))
			}
			if got := k.decryptBits(t, ct); got != want[i]&mask {
				t.Errorf("circuit %d output %d: got %016b, want %016b", ci, i, got, want[i]&mask)
			}
		}
	}
	t.Logf("%d circuits, inputs at levels %v", len(circuits), levels)
	if len(levels) < 3 {
		t.Errorf("inputs at levels %v only: the circuits exercise too few levels", levels)
	}
}
