package hcc

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
)

// randomMuxCircuit builds a random mux-heavy circuit on k input bits: MUXes
// whose selects come from a small pool (shared selects), Bristol's MUX
// form b ⊕ (s ∧ (a ⊕ b)), XORs with a shared operand, AND/OR/NOT, and
// (withSel) ready-made SEL/CMUX nodes, as an imported .hir may hold.
func randomMuxCircuit(t *testing.T, seed uint64, k, gates int, withSel bool) *ir.Circuit {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	b := ir.NewBuilder(fmt.Sprintf("rand%d", seed))
	in := b.Input("x", k, false)
	pool := append([]ir.NodeID(nil), in...)
	pick := func() ir.NodeID { return pool[rng.IntN(len(pool))] }
	sels := []ir.NodeID{pick(), pick()}
	var selNodes []ir.NodeID
	for g := 0; g < gates; g++ {
		if rng.IntN(6) == 0 { // a new shared select, often a computed one
			sels = append(sels, pick())
		}
		s := sels[rng.IntN(len(sels))]
		var n ir.NodeID
		switch rng.IntN(8) {
		case 0, 1:
			n = b.Mux(s, pick(), pick())
		case 2:
			x, y := pick(), pick()
			n = b.Xor(y, b.And(s, b.Xor(x, y)))
		case 3:
			n = b.Xor(s, pick())
		case 4:
			n = b.And(pick(), pick())
		case 5:
			n = b.Or(pick(), b.Not(pick()))
		case 6:
			n = b.Mux(b.Not(s), pick(), pick())
		case 7:
			if !withSel {
				n = b.Mux(s, pick(), pick())
				break
			}
			if len(selNodes) == 0 || rng.IntN(3) == 0 {
				selNodes = append(selNodes, b.Sel(s))
			}
			n = b.CMux(selNodes[rng.IntN(len(selNodes))], pick(), pick())
		}
		pool = append(pool, n)
	}
	outs := pool[len(pool)-min(8, gates):]
	b.Output("y", len(outs), false, outs)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// exhaustiveWords is every assignment of k ≤ 12 input bits, bit-sliced
// for ir.Circuit.EvalBits: word w of input i holds assignments 64w..64w+63.
func exhaustiveWords(k int) [][]uint64 {
	n := 1 << k
	var out [][]uint64
	for base := 0; base < n; base += 64 {
		in := make([]uint64, k)
		for j := 0; j < 64 && base+j < n; j++ {
			for i := 0; i < k; i++ {
				if (base+j)>>i&1 == 1 {
					in[i] |= 1 << j
				}
			}
		}
		out = append(out, in)
	}
	return out
}

// TestCMuxRandomCircuits maps random mux-heavy circuits (with and without
// ready-made SEL/CMUX nodes) on ToySignedCMux, STD128_T_CMUX and ToySigned
// (and STD128_T) and checks every mapping against the source on every
// input (plaintext), every node's predicted failure against its bound,
// and, on the toy CMux set, a few encrypted runs against the plaintext
// evaluator.
func TestCMuxRandomCircuits(t *testing.T) {
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	std := Target{Engine: "fhew", Params: "STD128_T_CMUX"}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		const k = 10
		c := randomMuxCircuit(t, seed, k, 40+int(seed)*3, seed%2 == 0)
		words := exhaustiveWords(k)
		for _, tg := range []Target{toyCMux, std, toyFHEW, {Engine: "fhew", Params: "STD128_T"}} {
			p, err := Compile(FromCircuit(c), tg)
			if err != nil {
				t.Fatalf("seed %d on %s: %v", seed, tg.Params, err)
			}
			for _, in := range words {
				want, got := c.EvalBits(in), p.Circuit().EvalBits(in)
				for j := range want {
					if want[j] != got[j] {
						t.Fatalf("seed %d on %s: output bit %d differs from the source (%#x vs %#x)", seed, tg.Params, j, got[j], want[j])
					}
				}
			}
			// Every bootstrapped node (and SEL) within its bound: the
			// mapper's contract; the per-run sum may exceed 2^-40 on the
			// noisier sets, as it does without CMuxes (STD128_T).
			if fp, err := fhew.ParamsByName(tg.Params, true); err == nil && tg.Engine == "fhew" {
				lt := fhewLUTTarget(fp, p.Target())
				per, err := lt.NodeFailureLog2(p.Circuit())
				if err != nil {
					t.Fatalf("seed %d on %s: %v", seed, tg.Params, err)
				}
				for i, f := range per {
					if op := p.Circuit().Nodes[i].Op; f > lt.NodeFailureBound(op) {
						t.Errorf("seed %d on %s: node %d (%v) fails with 2^%.1f, above its bound 2^%.0f", seed, tg.Params, i, op, f, lt.NodeFailureBound(op))
					}
				}
			}
			if tg != toyCMux || seed > 6 {
				continue
			}
			st := p.Stats()
			t.Logf("seed %d: %d SEL, %d CMUX, %d LUT", seed, st.Count[ir.OpSel], st.Count[ir.OpCMux], st.Count[ir.OpLUT])
			ck, sk := keysFor(t, p)
			rng := rand.New(rand.NewPCG(seed, 11))
			var ins []Values
			for r := 0; r < 3; r++ {
				ins = append(ins, Values{"x": {new(big.Int).SetUint64(rng.Uint64N(1 << k))}})
			}
			cts, err := ck.Encrypt(p, ins...)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			got, err := ck.Decrypt(p, out)
			if err != nil {
				t.Fatal(err)
			}
			for r, v := range ins {
				want, err := p.EvalPlain(v)
				if err != nil {
					t.Fatal(err)
				}
				if got[r]["y"][0].Cmp(want["y"][0]) != 0 {
					t.Errorf("seed %d run %d: x = %v decrypts to y = %v, plaintext %v", seed, r, v["x"][0], got[r]["y"][0], want["y"][0])
				}
			}
		}
	}
}
