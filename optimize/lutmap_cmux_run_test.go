package optimize_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/runtime"
)

// TestCMuxEncrypted maps a mux-heavy circuit (max and argmax of four
// 4-bit words: selects shared by 4-6 MUXes, chained through three rounds)
// for the toy CMux set and runs it encrypted through the runtime and the
// FHEW Backend: the mapping has OpSel and OpCMux nodes, and every output
// decrypts to the plaintext evaluator's value.
func TestCMuxEncrypted(t *testing.T) {
	runCMuxEncrypted(t, argmax4(t))
	runCMuxEncrypted(t, shiftRows(t, 24, 4))
	runCMuxEncrypted(t, multiplier(t, 6))
}

// multiplier is an n×n-bit array multiplier (partial products x_i ∧ y_j,
// ripple adders): the partial products on y_j share a select.
func multiplier(t *testing.T, n int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("mul")
	x := b.Input("x", n, false)
	y := b.Input("y", n, false)
	acc := make([]ir.NodeID, 2*n)
	for i := range acc {
		acc[i] = b.Const(false)
	}
	for j := 0; j < n; j++ {
		c := b.Const(false)
		for i := 0; i < n; i++ {
			p, a := b.And(x[i], y[j]), acc[i+j]
			acc[i+j] = b.Xor(b.Xor(a, p), c)
			c = b.Or(b.And(a, p), b.And(c, b.Xor(a, p)))
		}
		for k := j + n; k < 2*n; k++ {
			acc[k], c = b.Xor(acc[k], c), b.And(acc[k], c)
		}
	}
	b.Output("p", 2*n, false, acc)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// shiftRows is rows of MUXes on one select bit per row, each row's data
// the previous row's outputs (bit i is s_r ? v_{i+1} : v_i): every output
// is the end of a chain of rows CMuxes, long enough for refreshes.
func shiftRows(t *testing.T, rows, width int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("shift")
	cur := b.Input("v", width+rows, false)
	s := b.Input("s", rows, false)
	for r := 0; r < rows; r++ {
		next := make([]ir.NodeID, len(cur)-1)
		for i := range next {
			next[i] = b.Mux(s[r], cur[i+1], cur[i])
		}
		cur = next
	}
	b.Output("o", width, false, cur)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// argmax4 is the max and argmax of four 4-bit words.
func argmax4(t *testing.T) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("argmax4")
	v := make([][]ir.NodeID, 4)
	for i := range v {
		v[i] = b.Input("v"+string(rune('0'+i)), 4, false)
	}
	best, idx := v[0], []ir.NodeID{b.Const(false), b.Const(false)}
	for j := 1; j < 4; j++ {
		gt := b.Const(false) // v[j] > best, ripple from the LSB
		for i := 0; i < 4; i++ {
			gt = b.Or(b.AndNY(v[j][i], best[i]), b.And(b.Xnor(v[j][i], best[i]), gt))
		}
		nb := make([]ir.NodeID, 4)
		for i := range nb {
			nb[i] = b.Mux(gt, v[j][i], best[i])
		}
		best = nb
		idx = []ir.NodeID{b.Mux(gt, b.Const(j&1 == 1), idx[0]), b.Mux(gt, b.Const(j>>1 == 1), idx[1])}
	}
	b.Output("m", 4, false, best)
	b.Output("i", 2, false, idx)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runCMuxEncrypted maps c for ToySignedCMux (which must use CMuxes) and
// checks four encrypted runs against the plaintext evaluator.
func runCMuxEncrypted(t *testing.T, c *ir.Circuit) {
	t.Helper()
	p, err := fhew.NewParamsInsecure(fhew.ToySignedCMux)
	if err != nil {
		t.Fatal(err)
	}
	tg := fhew.NewLUTTarget(p, -40)
	if tg.SelectBootstraps() < 1 {
		t.Fatal("the toy CMux set has no select gadget")
	}
	d, err := optimize.ForLUTs(tg, 6).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.Count[ir.OpSel] == 0 || st.Count[ir.OpCMux] == 0 {
		t.Fatalf("mapping has %d SEL, %d CMUX: no CMux groups", st.Count[ir.OpSel], st.Count[ir.OpCMux])
	}
	sk, err := fhew.NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := fhew.GenEvaluationKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := fhew.NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	be := fhew.NewBackendWithTarget(ev, tg)
	rng := rand.New(rand.NewPCG(141, 142))
	for trial := 0; trial < 6; trial++ {
		bits := make([]uint64, d.NumInputBits())
		in := make([]backend.Ciphertext, len(bits))
		for j := range bits {
			bits[j] = uint64(rng.IntN(2))
			ct := fhew.NewCiphertext(p)
			enc.Encrypt(int(bits[j]), ct)
			in[j] = ct
		}
		out, _, err := runtime.Run(context.Background(), d, be, in, runtime.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := sk.DecryptBits(out)
		if err != nil {
			t.Fatal(err)
		}
		want := c.EvalBits(bits)
		for j := range got {
			if got[j] != (want[j]&1 == 1) {
				t.Fatalf("trial %d output bit %d: decrypted %v, plaintext %d", trial, j, got[j], want[j]&1)
			}
		}
	}
	refreshes := 0
	for i := range d.Nodes {
		if n := &d.Nodes[i]; n.Op == ir.OpLUT && len(n.In) == 1 && n.Table == 0b10 {
			refreshes++
		}
	}
	t.Logf("%s on %s: %d bootstraps (%d SEL at %d, %d CMUX, %d refreshes), all outputs match",
		c.Name, p.Name(), tg.CircuitBootstraps(d), st.Count[ir.OpSel], tg.SelectBootstraps(), st.Count[ir.OpCMux], refreshes)
}

// TestCMuxRandomFHEW: random circuits with MUXes mapped for STD128_T_CMUX
// stay equivalent, never cost more than on STD128_T (the same gates
// without the gadget) at the price the mapper minimises (an OpSel at its
// measured SelectCost: the reported count, an OpSel at SelectBootstraps,
// may exceed STD128_T's by a fraction of the SELs), and every node that
// reads a CMux is within the target's bound by its own failure model.
func TestCMuxRandomFHEW(t *testing.T) {
	p, err := fhew.NewParams(fhew.STD128_T_CMUX)
	if err != nil {
		t.Fatal(err)
	}
	q, err := fhew.NewParams(fhew.STD128_T)
	if err != nil {
		t.Fatal(err)
	}
	tg, plain := fhew.NewLUTTarget(p, -40), fhew.NewLUTTarget(q, -40)
	rng := rand.New(rand.NewPCG(151, 152))
	ops := []ir.Op{ir.OpMux, ir.OpMux, ir.OpMux, ir.OpAnd, ir.OpXor, ir.OpXor, ir.OpOr, ir.OpNot, ir.OpAndNY}
	cmuxes := 0
	for iter := 0; iter < 30; iter++ {
		c := circuittest.Random(t, rng, circuittest.Config{Inputs: 4 + rng.IntN(20), Gates: 40 + rng.IntN(200), Outputs: 16, Ops: ops, Window: 8 * (iter % 2)})
		d, err := optimize.ForLUTs(tg, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		e, err := optimize.ForLUTs(plain, 6).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		if a, b := selectPriced(tg, d), plain.CircuitBootstraps(e); a > float64(b)+1e-9 {
			t.Fatalf("iteration %d: %.2f bootstraps (%d counted) on STD128_T_CMUX, %d on STD128_T", iter, a, tg.CircuitBootstraps(d), b)
		}
		fail, err := tg.NodeFailureLog2(d)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.Nodes {
			n := &d.Nodes[i]
			if n.Op == ir.OpCMux {
				cmuxes++
			}
			reads := n.Op == ir.OpSel || n.Op == ir.OpCMux
			for _, f := range n.In {
				for d.Nodes[f].Op == ir.OpNot {
					f = d.Nodes[f].In[0]
				}
				reads = reads || d.Nodes[f].Op == ir.OpCMux
			}
			if reads && fail[i] > tg.NodeFailureBound(n.Op) {
				t.Fatalf("iteration %d: node %d (%v) at 2^%.1f, over its bound", iter, i, n.Op, fail[i])
			}
		}
	}
	if cmuxes == 0 {
		t.Fatal("no random circuit got a CMux")
	}
}

// selectPriced is c's bootstraps on tg with every OpSel at the measured
// SelectCost instead of the SelectBootstraps the count uses: the price
// LUTMap minimises (optimize.SelectCoster).
func selectPriced(tg fhew.LUTTarget, c *ir.Circuit) float64 {
	sels := float64(c.Stats().Count[ir.OpSel])
	return float64(tg.CircuitBootstraps(c)) - sels*(float64(tg.SelectBootstraps())-tg.SelectCost())
}
