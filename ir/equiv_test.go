package ir_test

// ir's round trips and its compiled evaluator on random circuits of every
// op, checked with the shared kit. (The kit imports ir, so only ir's
// external tests can use it; the internal tests keep their small
// sameFunction for fixed circuits.)

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// randomCircuits draws circuits of every op across the exhaustive limit.
func randomCircuits(t *testing.T, seed uint64, count int) []*ir.Circuit {
	rng := rand.New(rand.NewPCG(seed, 1))
	var cs []*ir.Circuit
	for range count {
		n := 1 + rng.IntN(circuittest.ExhaustiveLimit+8)
		cs = append(cs, circuittest.Random(t, rng, circuittest.Config{Inputs: n, Gates: 10 + rng.IntN(120),
			Outputs: 1 + rng.IntN(12), Window: 10, Duplicates: rng.IntN(2) == 0}))
	}
	return cs
}

// The .hir text format keeps a circuit exactly, so also its function.
func TestHIRRoundTripRandom(t *testing.T) {
	for i, c := range randomCircuits(t, 1, 60) {
		var buf bytes.Buffer
		if err := ir.WriteHIR(&buf, c); err != nil {
			t.Fatal(err)
		}
		d, err := ir.ReadHIR(&buf, "random.hir")
		if err != nil {
			t.Fatalf("circuit %d: %v", i, err)
		}
		if !reflect.DeepEqual(c, d) {
			t.Fatalf("circuit %d changed in the round trip", i)
		}
		circuittest.Equivalent(t, c, d)
	}
}

// Bristol lowers LUT, PARITY, MUX and the other gates to AND/XOR/INV/EQW
// and names the buses in0, out0: the function must survive.
func TestBristolRoundTripRandom(t *testing.T) {
	for i, c := range randomCircuits(t, 2, 60) {
		var buf bytes.Buffer
		if err := ir.WriteBristol(&buf, c); err != nil {
			t.Fatal(err)
		}
		d, err := ir.ReadBristol(&buf, "random.txt")
		if err != nil {
			t.Fatalf("circuit %d: %v", i, err)
		}
		if err := ir.Verify(d); err != nil {
			t.Fatalf("circuit %d: %v", i, err)
		}
		if len(d.Inputs) != 1 || len(d.Outputs) != 1 {
			t.Fatalf("circuit %d: %d input and %d output buses after the round trip", i, len(d.Inputs), len(d.Outputs))
		}
		d.Name, d.Inputs[0].Name, d.Outputs[0].Name = c.Name, c.Inputs[0].Name, c.Outputs[0].Name
		circuittest.Equivalent(t, c, d)
	}
}

// Sort and Clone are identities on a sorted circuit's function.
func TestSortCloneRandom(t *testing.T) {
	for _, c := range randomCircuits(t, 3, 30) {
		s, err := ir.Sort(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, s)
		circuittest.Equivalent(t, c, c.Clone())
	}
}

// The compiled Program computes what Circuit.EvalBits computes, on the
// kit's vectors (every input up to 16 bits, else edge cases and random).
func TestProgramMatchesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for i, c := range randomCircuits(t, 4, 60) {
		p := c.Compile()
		vals, out := make([]uint64, p.ScratchLen()), make([]uint64, c.NumOutputBits())
		for _, in := range circuittest.Vectors(rng, c.NumInputBits(), 4) {
			p.EvalBitsInto(in, vals, out)
			if want := c.EvalBits(in); !reflect.DeepEqual(out, want) {
				t.Fatalf("circuit %d: Program %#x, EvalBits %#x", i, out, want)
			}
		}
	}
}
