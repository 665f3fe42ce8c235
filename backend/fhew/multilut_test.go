package fhew

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// TestFactoredTestPoly checks the factorisation f_h = v0·t_h mod X^N + 1
// coefficient by coefficient against buildTestPoly, for every pattern of
// every P on a toy and a 128-bit ring (no keys: exact polynomial algebra).
func TestFactoredTestPoly(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToySlots8, ToyGINX, ToySlots8G, STD128_LOWFAIL_T, STD128_LOWFAIL3_T, STD128_P8_T, STD128_P8_G, STD128_P8_Q28} {
		p, err := NewParamsInsecure(lit)
		if err != nil {
			t.Fatal(err)
		}
		N, Q := p.N, uint64(p.Q)
		amp := uint32((Q + uint64(p.slots)) / (2 * uint64(p.slots)))
		mt := newMultiTables(p.params, amp)
		for h := range mt.factors {
			want := buildTestPoly(p.params, uint8(h), amp)
			got := make([]uint64, N)
			for _, term := range mt.factors[h] {
				for i, c := range mt.base { // X^j·v0, negacyclic
					e, v := i+term.j, uint64(c)
					if e >= N {
						e -= N
						v = (Q - v) % Q
					}
					if term.neg {
						v = (Q - v) % Q
					}
					got[e] = (got[e] + v) % Q
				}
			}
			for i := range want {
				if uint64(want[i]) != got[i] {
					t.Fatalf("%s pattern %b: coefficient %d of v0·t_h is %d, test polynomial %d", lit.Name, h, i, got[i], want[i])
				}
			}
			if n := len(mt.factors[h]); n > p.slots/2+1 {
				t.Errorf("%s pattern %b: t_h has %d terms, want at most P/2 + 1", lit.Name, h, n)
			}
		}
	}
}

// jointGroups returns limit random groups of two to four k-input tables
// that share a weighted sum at P = slots: random weights, random patterns.
// The search must find a common sum for every one of them.
func jointGroups(t *testing.T, slots, k, limit int, rng *rand.Rand) [][]uint64 {
	var out [][]uint64
	choices := weightChoices(slots)
	for len(out) < limit {
		w := make([]int, k)
		for i := range w {
			w[i] = choices[1+rng.IntN(len(choices)-1)]
		}
		g := make([]uint64, 2+rng.IntN(3))
		for j := range g {
			h := rng.IntN(1 << uint(slots/2))
			for x := 0; x < 1<<uint(k); x++ {
				v := 0
				for i := range w {
					v += w[i] * (x >> uint(i) & 1)
				}
				v = ((v % slots) + slots) % slots
				bit := 0
				if v >= slots/2 {
					bit = 1 ^ h>>uint(v-slots/2)&1
				} else {
					bit = h >> uint(v) & 1
				}
				g[j] |= uint64(bit) << uint(x)
			}
		}
		if packed, ok := ir.PackMLUT(g, k); ok {
			if !findMultiPlan(slots, packed, k).ok {
				t.Fatalf("P = %d: tables %#x share the weights %v, the search found none", slots, g, w)
			}
			out = append(out, g)
		}
	}
	return out
}

// TestMultiLUTToy evaluates random jointly evaluable groups of 2- and
// 3-input tables (and 4-input ones at P = 8) in one blind rotation on every
// input combination, on fresh encryptions, and compares each output with
// its truth table; and checks known groups (AND with OR at P = 4, a full
// adder at P = 8) are found.
func TestMultiLUTToy(t *testing.T) {
	if _, ok := (Params{}).canMulti(4, []uint64{0b1000, 0b1110}, 2); !ok {
		t.Fatal("AND and OR share no sum at P = 4")
	}
	if _, ok := (Params{}).canMulti(4, []uint64{0b0110, 0b1000}, 2); ok {
		t.Fatal("XOR and AND share a sum at P = 4 (they cannot: h(2) = ¬h(0))")
	}
	if w, ok := (Params{}).canMulti(8, []uint64{0b10010110, 0b11101000}, 3); !ok {
		t.Fatal("the full adder shares no sum at P = 8")
	} else if sumSquares(w) != 3 {
		t.Fatalf("full adder weights %v, want 1, 1, 1", w)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, lit := range []ParamsLiteral{ToySigned, ToySlots8, ToyGINX, ToySlots8G} {
		k := kitFor(t, lit)
		sc := NewScratch(k.p)
		for _, kin := range []int{2, 3, 4} {
			if kin == 4 && k.p.slots == 4 {
				continue
			}
			groups := jointGroups(t, k.p.slots, kin, 6, rng)
			for _, g := range groups {
				outs := make([]*Ciphertext, len(g))
				for j := range outs {
					outs[j] = NewCiphertext(k.p)
				}
				for x := 0; x < 1<<uint(kin); x++ {
					in := make([]*Ciphertext, kin)
					for i := range in {
						in[i] = k.enc.EncryptNew(x >> uint(i) & 1)
					}
					if err := k.ev.EvalMultiLUT(g, in, outs, sc); err != nil {
						t.Fatal(err)
					}
					for j, tb := range g {
						if got, want := k.decrypt(t, outs[j]), int(tb>>uint(x)&1); got != want {
							t.Fatalf("%s group %#x output %d at input %b: got %d, want %d", lit.Name, g, j, x, got, want)
						}
					}
				}
			}
		}
	}
}

// canMulti is CanEvalMultiLUT at a given P without a parameter set.
func (Params) canMulti(slots int, tables []uint64, k int) ([]int, bool) {
	packed, ok := ir.PackMLUT(tables, k)
	if !ok {
		return nil, false
	}
	pl := findMultiPlan(slots, packed, k)
	return pl.spec.Weights, pl.ok
}

// TestMultiWorkerToy runs an MLUT node and its MOUT nodes through the
// Backend's worker, the path the runtime takes, on every input.
func TestMultiWorkerToy(t *testing.T) {
	k := kitFor(t, ToySlots8)
	b := NewBackendWithTarget(k.ev, NewLUTTarget(k.p, 0))
	w := b.NewWorker()
	tables := []uint64{0b10010110, 0b11101000, 0b10000000, 0b11111110} // XOR3, MAJ, AND3, OR3 of (a, b, c)
	packed, ok := ir.PackMLUT(tables, 3)
	if !ok {
		t.Fatal("PackMLUT failed")
	}
	root := &ir.Node{Op: ir.OpMLUT, In: []ir.NodeID{0, 1, 2}, Table: packed}
	for x := 0; x < 8; x++ {
		in := make([]backend.Ciphertext, 3)
		for i := range in {
			in[i] = k.enc.EncryptNew(x >> uint(i) & 1)
		}
		r := w.NewCiphertext()
		if err := w.Eval(root, in, r); err != nil {
			t.Fatal(err)
		}
		if got, want := k.decrypt(t, r.(*Ciphertext)), int(tables[0]>>uint(x)&1); got != want {
			t.Fatalf("MLUT at %03b: got %d, want %d", x, got, want)
		}
		for j, tb := range tables[1:] {
			o := w.NewCiphertext()
			n := &ir.Node{Op: ir.OpMOut, In: []ir.NodeID{3, 0, 1, 2}, Table: tb}
			if err := w.Eval(n, append([]backend.Ciphertext{r}, in...), o); err != nil {
				t.Fatal(err)
			}
			if got, want := k.decrypt(t, o.(*Ciphertext)), int(tb>>uint(x)&1); got != want {
				t.Fatalf("MOUT %d at %03b: got %d, want %d", j+1, x, got, want)
			}
		}
	}
	bad := &ir.Node{Op: ir.OpMOut, In: []ir.NodeID{3, 0, 1, 2}, Table: 0b10}
	if err := w.Eval(bad, []backend.Ciphertext{k.enc.EncryptNew(0), nil, nil, nil}, w.NewCiphertext()); err == nil {
		t.Fatal("MOUT without an MLUT accumulator accepted")
	}
}

// TestMultiOutputNoise measures the output noise of multi-output
// extractions with the widest factor t_h on a 128-bit set and checks it
// against MultiOutputVariance within the χ² band (as TestParityNoise).
// Opt-in (five 128-bit key sets, about 40 s):
//
//	HCC_FHEW_MULTI_NOISE=1 go test ./backend/fhew -run MultiOutputNoise -v
func TestMultiOutputNoise(t *testing.T) {
	if os.Getenv("HCC_FHEW_MULTI_NOISE") == "" {
		t.Skip("opt-in: HCC_FHEW_MULTI_NOISE=1 (five 128-bit key sets)")
	}
	for _, lit := range []ParamsLiteral{STD128_LOWFAIL_T, STD128_LOWFAIL3_T, STD128_P8_T, STD128_P8_G, STD128_P8_Q28} {
		k := kitFor(t, lit)
		p := k.p
		sc := NewScratch(p)
		rng := rand.New(rand.NewPCG(31, 32))
		worst, wh := 0, uint8(0)
		for h := range k.ev.multi.factors {
			if n := len(k.ev.multi.factors[h]); n > worst {
				worst, wh = n, uint8(h)
			}
		}
		// A 2-input group on (1, 1) whose pattern wh is among its tables: build
		// the table from the pattern over sums 0..2 (at P = 4 the sum 2 is
		// the negation of pattern bit 0).
		var tb uint64
		for x := 0; x < 4; x++ {
			v, flip := x&1+x>>1, uint8(0)
			if v >= p.slots/2 {
				v, flip = v-p.slots/2, 1
			}
			if (wh>>uint(v)&1)^flip == 1 {
				tb |= 1 << uint(x)
			}
		}
		tables := []uint64{tb, 0b1000}
		const samples = 400
		outs := []*Ciphertext{NewCiphertext(p), NewCiphertext(p)}
		var e2 float64
		for s := 0; s < samples; s++ {
			x := rng.IntN(4)
			in := []*Ciphertext{k.enc.EncryptNew(x & 1), k.enc.EncryptNew(x >> 1)}
			if err := k.ev.EvalMultiLUT(tables, in, outs, sc); err != nil {
				t.Fatal(err)
			}
			e := float64(k.sk.NoiseOf(outs[0], int(tb>>uint(x)&1))) / float64(p.qks)
			e2 += e * e
		}
		meas, model := math.Sqrt(e2/samples), math.Sqrt(p.MultiOutputVariance())
		lo, hi := modelBand{0.78, 1.05}.bounds(samples)
		t.Logf("%s: pattern %b (%d terms): measured std %.6f, model %.6f (single output %.6f), ratio %.3f (allowed %.3f..%.3f)",
			lit.Name, wh, worst, meas, model, math.Sqrt(p.Noise().Output), meas/model, lo, hi)
		if r := meas / model; r < lo || r > hi {
			t.Errorf("multi-output std %.6f vs model %.6f: ratio %.3f outside %.3f..%.3f", meas, model, r, lo, hi)
		}
	}
}

// TestBootstrapCostModel checks the transform-count estimate of
// BootstrapCost against the measured prices of the named sets (within
// 15 %), so that a set without a measurement is priced sensibly.
func TestBootstrapCostModel(t *testing.T) {
	ref, err := NewParams(STD128_LOWFAIL_T)
	if err != nil {
		t.Fatal(err)
	}
	for name, measured := range measuredCost {
		p, err := ParamsByName(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.BootstrapCost(); got != measured {
			t.Errorf("%s: BootstrapCost %.2f, measured %.2f", name, got, measured)
		}
		est := p.rotationWork() / ref.rotationWork()
		if r := est / measured; r < 0.85 || r > 1.15 {
			t.Errorf("%s: estimated %.2f against measured %.2f (ratio %.2f)", name, est, measured, r)
		}
	}
}
