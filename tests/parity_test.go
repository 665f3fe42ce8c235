package tests

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// spnCircuit is a miniature substitution-permutation network: AND/OR
// "S-boxes" on 16 input bits, a linear layer where each bit is the XOR of 9
// S-box outputs (and a constant for some), a second non-linear layer, and
// outputs that XOR 5 of those. Its linear layers are what the LUT mapper
// turns into PARITY nodes.
func spnCircuit(t *testing.T) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("spn")
	x := b.Input("x", 16, false)
	s := make([]ir.NodeID, 16)
	for i := range s {
		a, c := x[i], x[(i+5)%16]
		if i%2 == 0 {
			s[i] = b.And(a, c)
		} else {
			s[i] = b.Or(a, b.Not(c))
		}
	}
	lin := make([]ir.NodeID, 16)
	for i := range lin {
		r := s[i]
		for j := 1; j < 9; j++ {
			r = b.Xor(r, s[(i+3*j)%16])
		}
		if i%3 == 0 {
			r = b.Not(r)
		}
		lin[i] = r
	}
	u := make([]ir.NodeID, 16)
	for i := range u {
		u[i] = b.And(lin[i], lin[(i+7)%16])
	}
	out := make([]ir.NodeID, 16)
	for i := range out {
		r := u[i]
		for j := 1; j < 5; j++ {
			r = b.Xor(r, u[(i+j*5)%16])
		}
		out[i] = b.Xor(r, x[i])
	}
	b.Output("y", 16, false, out)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFHEWParity compiles spnCircuit with hcc eval's pipeline (PARITY nodes
// from the mapper), runs it encrypted at ToySigned and at STD128_LOWFAIL_T,
// and compares with the plaintext simulator; it also runs a hand-built
// PARITY of 40 inputs directly.
func TestFHEWParity(t *testing.T) {
	c := spnCircuit(t)
	sets := []string{"ToySigned", "STD128_LOWFAIL_T"}
	if testing.Short() {
		sets = sets[:1]
	}
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			k := kitFor(t, set)
			d := compileFHEW(t, c, k)
			st := d.Stats()
			widest := 0
			for i := range d.Nodes {
				if n := &d.Nodes[i]; n.Op == ir.OpParity {
					widest = max(widest, len(n.In))
				}
			}
			if widest < 7 {
				t.Fatalf("no PARITY wider than a LUT after mapping:\n%v", st)
			}
			plain := k.be.LUTTarget().CircuitBootstraps(d)
			t.Logf("%s: %d gates -> %d bootstraps, %d PARITY (widest %d)", set, c.Stats().Gates, plain, st.Count[ir.OpParity], widest)
			rng := rand.New(rand.NewPCG(3, uint64(len(set))))
			runs := 3
			if set != "ToySigned" {
				runs = 1
			}
			for r := 0; r < runs; r++ {
				runEncrypted(t, c, d, k, randomInputs(c, rng), 2)
			}
		})
	}
	t.Run("raw/ToySigned", func(t *testing.T) {
		k := kitFor(t, "ToySigned")
		b := ir.NewBuilder("par40")
		x := b.Input("x", 40, false)
		p := b.Raw(ir.Node{Op: ir.OpParity, In: x})
		q := b.Raw(ir.Node{Op: ir.OpParity, In: []ir.NodeID{p, x[0], x[1]}})
		b.Output("y", 2, false, []ir.NodeID{p, b.Not(q)})
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []uint64{0, 1, 1<<40 - 1, 0x5a5a5a5a5a} {
			runEncrypted(t, c, c, k, ir.Values{"x": {new(big.Int).SetUint64(v)}}, 2)
		}
	})
}
