package optimize

import (
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/internal/testenv"
	"github.com/hcc-fhe/hcc/ir"
)

// withParity is a LUT target that also evaluates parities of up to par bits.
type withParity struct {
	LUTTarget
	par int
}

func (w withParity) MaxParityInputs() int { return w.par }

// checkParityMapped fails on PARITY nodes wider than K.
func checkParityMapped(t *testing.T, c *ir.Circuit, K int) {
	t.Helper()
	for i, n := range c.Nodes {
		if n.Op == ir.OpParity && len(n.In) > K {
			t.Fatalf("node %d: PARITY of %d inputs, target allows %d", i, len(n.In), K)
		}
	}
}

// wideXORCircuit has AND gates fed by wide, overlapping XOR cones (the shape
// of AES's linear layers between S-box AND gates): n inputs, ANDs of
// neighbouring pairs, then outputs that AND two XORs of w AND outputs each,
// and the ANDs themselves.
func wideXORCircuit(t *testing.T, n, w int) *ir.Circuit {
	b := ir.NewBuilder("widexor")
	x := b.Input("x", n, false)
	z := make([]ir.NodeID, n)
	for i := range z {
		z[i] = b.And(x[i], x[(i+1)%n])
	}
	xorOf := func(start, step int) ir.NodeID {
		r := z[start%n]
		for j := 1; j < w; j++ {
			r = b.Xor(r, z[(start+j*step)%n])
		}
		return r
	}
	var outs []ir.NodeID
	for i := 0; i < n; i++ {
		outs = append(outs, b.And(xorOf(i, 1), b.Not(xorOf(i+3, 2))))
	}
	outs = append(outs, z...) // the ANDs are needed anyway, as in an S-box
	b.Output("y", len(outs), false, outs)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLUTMapParityWideXOR(t *testing.T) {
	c := wideXORCircuit(t, 16, 9)
	c, err := Default().Run(c)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := LUTMap(anyFunction{6}, 6).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	before := bootstraps(plain)
	for _, K := range []int{4, 9, 16} {
		d, err := LUTMap(withParity{anyFunction{6}, K}, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Verify(d); err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		checkParityMapped(t, d, K)
		after := bootstraps(d)
		t.Logf("K=%d: %d -> %d bootstraps, %d PARITY nodes", K, before, after, d.Stats().Count[ir.OpParity])
		// Each output is AND(parity of 9, ¬parity of 9): with K >= 9 the two
		// parities and the AND are three bootstraps, plus the 16 ANDs.
		if K >= 9 && after > 16+3*16 {
			t.Errorf("K=%d: %d bootstraps, want at most %d", K, after, 16+3*16)
		}
		if after > before {
			t.Errorf("K=%d: parity cuts raised bootstraps %d -> %d", K, before, after)
		}
	}
}

func TestLUTMapParityRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for iter := 0; iter < 80; iter++ {
		c := randomXORHeavy(t, rng, 2+rng.IntN(14), 40+rng.IntN(120))
		c, err := Default().Run(c)
		if err != nil {
			t.Fatal(err)
		}
		K := 3 + rng.IntN(12)
		tg := withParity{anyFunction{3 + rng.IntN(4)}, K}
		d, err := LUTMap(tg, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		checkMapped(t, d, tg, tg.MaxLUTInputs())
		checkParityMapped(t, d, K)
		plain, err := LUTMap(tg.LUTTarget, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		// Area recovery is heuristic; parity cuts may not lose more than a
		// few bootstraps to the mapping without them.
		if bootstraps(d) > bootstraps(plain)+2 {
			t.Errorf("iter %d: with parity cuts %d bootstraps, without %d", iter, bootstraps(d), bootstraps(plain))
		}
		// Mapping a mapped circuit (PARITY nodes as input) stays correct,
		// also for a target with narrower parities or none.
		for _, again := range []LUTTarget{tg, withParity{anyFunction{4}, 3}, anyFunction{4}} {
			e, err := LUTMap(again, 6).Run(d)
			if err != nil {
				t.Fatal(err)
			}
			circuittest.Equivalent(t, c, e)
		}
		// The other pipelines accept PARITY too: Default folds it, ForDepth
		// lowers it to XORs (AND-depth 0).
		for _, pl := range []*Pipeline{Default(), ForDepth(), {Passes: []Pass{AbsorbNot, Hash}}} {
			pl.Check = true
			e, err := pl.Run(d)
			if err != nil {
				t.Fatal(err)
			}
			circuittest.Equivalent(t, c, e)
			if e.Stats().AndDepth > d.Stats().AndDepth {
				t.Errorf("iter %d: AND-depth %d -> %d", iter, d.Stats().AndDepth, e.Stats().AndDepth)
			}
		}
	}
}

// randomXORHeavy is randomCircuit with mostly XOR/XNOR gates and PARITY
// nodes of up to 9 inputs (no constants), so that XOR cones are wide.
func randomXORHeavy(t testing.TB, rng *rand.Rand, nIn, nGates int) *ir.Circuit {
	x := ir.OpXor
	return circuittest.Random(t, rng, circuittest.Config{Inputs: nIn, Gates: nGates, MaxParityInputs: 9, NoConstants: true,
		Ops: []ir.Op{x, x, x, x, x, ir.OpXnor, ir.OpNot, ir.OpParity, ir.OpAnd, ir.OpMux}})
}

// TestLUTMapParityAES maps aes_128.txt with parity cuts (K = 64, any
// 6-input LUT) and checks the FIPS-197 vectors, random vectors against the
// original, and the issue-4 target: at most half the AND+XOR gate count.
func TestLUTMapParityAES(t *testing.T) {
	if testing.Short() {
		t.Skip("maps all of AES (a few seconds)")
	}
	f, err := os.Open(filepath.Join(testenv.SharedCircuits(t), "aes_128.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ir.ReadBristol(f, "aes_128.txt")
	if err != nil {
		t.Fatal(err)
	}
	gates := bootstraps(c)
	pre, err := (&Pipeline{Passes: []Pass{Fold, AbsorbNot, DCE}}).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := mapLUTs(pre, withParity{anyFunction{6}, 64}, 6, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(d); err != nil {
		t.Fatal(err)
	}
	checkParityMapped(t, d, 64)
	for _, v := range [][3]string{
		{"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"},
		{"2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734", "3925841d02dc09fbdc118597196a0b32"},
	} {
		key, _ := new(big.Int).SetString(v[0], 16)
		pt, _ := new(big.Int).SetString(v[1], 16)
		out, err := d.Eval(ir.Values{"in0": {key}, "in1": {pt}})
		if err != nil {
			t.Fatal(err)
		}
		if got := out["out0"][0].Text(16); got != v[2] {
			t.Errorf("AES(%s, %s) = %s, want %s", v[0], v[1], got, v[2])
		}
	}
	circuittest.EquivalentRounds(t, c, d, 4)
	after := bootstraps(d)
	t.Logf("aes_128: %d AND+XOR -> %d bootstraps (%.3fx), %d PARITY nodes", gates, after, float64(after)/float64(gates), d.Stats().Count[ir.OpParity])
	if 2*after > gates {
		t.Errorf("%d bootstraps, more than half of %d", after, gates)
	}
}
