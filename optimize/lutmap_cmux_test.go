package optimize

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
)

// cmuxTarget is p4Sum (FHEW at P = 4 in miniature: a MUX is two
// bootstraps, multi-output groups) with a CMux gadget: an OpSel costs sb
// bootstraps. Its noise model is explicit and simple: every value has a
// level, 1 for inputs and bootstrap outputs (fresh), its input's for NOT,
// and max(level a, level b) + grow for a CMux; a node's failure is
// -60 + 5·level, of its output for a CMux and of its worst fanin for a
// bootstrapped node (an OpSel included). The bound is -40: with grow = 1
// a chain of three CMuxes from fresh values is the longest within it.
type cmuxTarget struct {
	p4Sum
	sb, grow int
}

func (t cmuxTarget) SelectBootstraps() int { return t.sb }

func (t cmuxTarget) levels(c *ir.Circuit) []int {
	lv := make([]int, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch {
		case n.Op == ir.OpNot:
			lv[i] = lv[n.In[0]]
		case n.Op == ir.OpCMux:
			lv[i] = max(lv[n.In[1]], lv[n.In[2]]) + t.grow
		default:
			lv[i] = 1
		}
	}
	return lv
}

func (t cmuxTarget) NodeFailureLog2(c *ir.Circuit) ([]float64, error) {
	lv := t.levels(c)
	out := make([]float64, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		worst := 0
		switch {
		case n.Op == ir.OpCMux:
			worst = lv[i]
		case n.Op.IsBootstrapped():
			for _, f := range n.In {
				worst = max(worst, lv[f])
			}
		}
		out[i] = -60 + 5*float64(worst)
		if worst == 0 {
			out[i] = -1e9
		}
	}
	return out, nil
}

func (cmuxTarget) NodeFailureBound(ir.Op) float64 { return -40 }

// maxWords builds mx = a < b ? b : a for n-bit words as gates: a ripple
// comparator, then one MUX per bit on the comparison.
func maxWords(t *testing.T, n int, bristol bool) *ir.Circuit {
	return maxWordsOut(t, n, bristol, false)
}

// maxWordsOut is maxWords, or with ltOnly its comparator alone (output lt).
func maxWordsOut(t *testing.T, n int, bristol, ltOnly bool) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("max")
	x := b.Input("a", n, false)
	y := b.Input("b", n, false)
	lt := b.Const(false)
	for i := 0; i < n; i++ { // lt = ¬x_i ∧ y_i ∨ (x_i ≡ y_i) ∧ lt
		eq := b.Xnor(x[i], y[i])
		lt = b.Or(b.AndNY(y[i], x[i]), b.And(eq, lt))
	}
	out := make([]ir.NodeID, n)
	for i := range out {
		if bristol { // b ⊕ (s ∧ (a ⊕ b)), with a := y, b := x
			out[i] = b.Xor(x[i], b.And(lt, b.Xor(y[i], x[i])))
		} else {
			out[i] = b.Mux(lt, y[i], x[i])
		}
	}
	if ltOnly {
		b.Output("lt", 1, false, []ir.NodeID{lt})
	} else {
		b.Output("mx", n, false, out)
	}
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return mustPipeline(t, c)
}

// mustPipeline runs the front passes of ForLUTs.
func mustPipeline(t *testing.T, c *ir.Circuit) *ir.Circuit {
	t.Helper()
	c, err := (&Pipeline{Passes: []Pass{Fold, AbsorbNot, DCE}}).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func countOp(c *ir.Circuit, op ir.Op) int {
	return c.Stats().Count[op]
}

// checkWithinBound fails unless every node of c is within the target's bound.
func checkWithinBound(t *testing.T, c *ir.Circuit, tg cmuxTarget) {
	t.Helper()
	fail, err := tg.NodeFailureLog2(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fail {
		if f > tg.NodeFailureBound(c.Nodes[i].Op) {
			t.Fatalf("node %d (%v) at failure 2^%.0f, over the bound", i, c.Nodes[i].Op, f)
		}
	}
}

// TestCMuxMax32: a 32-bit max, as MUX nodes and as Bristol's XOR/AND
// cones, maps to the comparator, one OpSel and 32 CMuxes: the 64
// bootstraps of the selected bits (2 per MUX) drop to the OpSel's price,
// i.e. the result costs what the comparator alone costs, plus the OpSel.
func TestCMuxMax32(t *testing.T) {
	for _, bristol := range []bool{false, true} {
		c := maxWords(t, 32, bristol)
		plain, err := LUTMap(p4Sum{}, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		tg := cmuxTarget{sb: 3}
		d, err := LUTMap(tg, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		checkWithinBound(t, d, tg)
		before, after := coverCost(p4Sum{})(plain), coverCost(tg)(d)
		if countOp(d, ir.OpSel) != 1 || countOp(d, ir.OpCMux) != 32 {
			t.Fatalf("bristol=%v: %d SEL, %d CMUX, want 1, 32", bristol, countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
		}
		cmp, err := LUTMap(p4Sum{}, 3).Run(maxWordsOut(t, 32, bristol, true))
		if err != nil {
			t.Fatal(err)
		}
		want := coverCost(p4Sum{})(cmp) + 3
		t.Logf("bristol=%v: %d bootstraps without CMuxes, %d with (comparator alone %d)", bristol, before, after, want-3)
		if after != want {
			t.Errorf("bristol=%v: %d bootstraps, want the comparator's + 3 = %d", bristol, after, want)
		}
	}
}

// TestCMuxCmp32: cmp32 of tests/testdata/muxheavy.hdl (lt, eq, max of
// 32-bit words, compiled by lang) gets its max as one OpSel + 32 CMuxes.
func TestCMuxCmp32(t *testing.T) {
	c, err := lang.CompileFile(filepath.Join("..", "tests", "testdata", "muxheavy.hdl"), lang.Options{Circuit: "cmp32"})
	if err != nil {
		t.Fatal(err)
	}
	c = mustPipeline(t, c)
	plain, err := LUTMap(p4Sum{}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	tg := cmuxTarget{sb: 3}
	d, err := LUTMap(tg, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	checkWithinBound(t, d, tg)
	if countOp(d, ir.OpCMux) < 32 || countOp(d, ir.OpSel) < 1 {
		t.Fatalf("%d SEL, %d CMUX, want the 32 max bits as CMuxes", countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
	}
	before, after := coverCost(p4Sum{})(plain), coverCost(tg)(d)
	t.Logf("cmp32: %d bootstraps without CMuxes, %d with (%d SEL, %d CMUX)", before, after, countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
	if after > before-32 {
		t.Errorf("cmp32: %d bootstraps, want at most %d - 32", after, before)
	}
}

// muxChain builds rows of MUXes on one select per row whose data are the
// previous row's outputs: row r's bit i is s_r ? v_{i+1} : v_i (a shift
// or not), so every bit is a chain of rows CMuxes.
func muxChain(t *testing.T, rows, width int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("chain")
	v := b.Input("v", width+rows, false)
	s := b.Input("s", rows, false)
	cur := append([]ir.NodeID(nil), v...)
	for r := 0; r < rows; r++ {
		next := make([]ir.NodeID, len(cur)-1)
		for i := range next {
			next[i] = b.Mux(s[r], cur[i+1], cur[i])
		}
		cur = next
	}
	b.Output("o", len(cur), false, cur)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return mustPipeline(t, c)
}

// TestCMuxRefresh: with a CMux adding one level of noise, chains of 7
// CMuxes need refreshes; the result is within the bound at every node,
// equivalent, cheaper than without CMuxes, and has the refreshes (1-input
// identity LUTs) that the noise requires. A target without growth needs
// none.
func TestCMuxRefresh(t *testing.T) {
	c := muxChain(t, 7, 6)
	plain, err := LUTMap(p4Sum{}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, grow := range []int{0, 1, 2} {
		tg := cmuxTarget{sb: 3, grow: grow}
		d, err := LUTMap(tg, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
		checkWithinBound(t, d, tg)
		refreshes := 0
		for i := range d.Nodes {
			if isRefresh(d, &d.Nodes[i]) {
				refreshes++
			}
		}
		before, after := coverCost(p4Sum{})(plain), coverCost(tg)(d)
		t.Logf("grow %d: %d bootstraps without CMuxes, %d with (%d SEL, %d CMUX, %d refreshes)",
			grow, before, after, countOp(d, ir.OpSel), countOp(d, ir.OpCMux), refreshes)
		if after >= before {
			t.Errorf("grow %d: %d bootstraps, not below %d", grow, after, before)
		}
		if grow == 0 && refreshes != 0 {
			t.Errorf("grow 0: %d refreshes, want none", refreshes)
		}
		if grow > 0 && refreshes == 0 {
			t.Errorf("grow %d: no refreshes, but chains of 7 CMuxes exceed the bound", grow)
		}
	}
}

// TestCMuxNoiseFixUnit: fixCMuxNoise on a hand-built chain of CMuxes
// refreshes exactly where the level model needs it: with grow = 1 a chain
// of 6 CMuxes on fresh inputs needs one refresh (after the third CMux), and
// a chain whose CMux is over the bound on fresh inputs is undone.
func TestCMuxNoiseFixUnit(t *testing.T) {
	b := ir.NewBuilder("chain")
	v := b.Input("v", 7, false)
	s := b.Input("s", 1, false)[0]
	sel := b.Sel(s)
	cur := v[0]
	for i := 1; i < 7; i++ {
		cur = b.CMux(sel, v[i], cur)
	}
	b.Output("o", 1, false, []ir.NodeID{cur})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	tg := cmuxTarget{sb: 3, grow: 1}
	d, err := fixCMuxNoise(c, tg)
	if err != nil || d == nil {
		t.Fatalf("fixCMuxNoise = %v, %v", d, err)
	}
	circuittest.Equivalent(t, c, d)
	checkWithinBound(t, d, tg)
	refreshes := 0
	for i := range d.Nodes {
		if isRefresh(d, &d.Nodes[i]) {
			refreshes++
		}
	}
	if refreshes != 1 || countOp(d, ir.OpCMux) != 6 {
		t.Fatalf("%d refreshes, %d CMUX, want 1, 6", refreshes, countOp(d, ir.OpCMux))
	}
	// grow 5: one CMux on fresh inputs is at level 6, over: undone.
	d, err = fixCMuxNoise(c, cmuxTarget{sb: 3, grow: 5})
	if err != nil || d == nil {
		t.Fatalf("fixCMuxNoise = %v, %v", d, err)
	}
	circuittest.Equivalent(t, c, d)
	checkWithinBound(t, d, cmuxTarget{sb: 3, grow: 5})
	if countOp(d, ir.OpCMux) != 0 || countOp(d, ir.OpSel) != 0 || countOp(d, ir.OpMux) != 6 {
		t.Fatalf("grow 5: %d CMUX, %d SEL, %d MUX, want 0, 0, 6", countOp(d, ir.OpCMux), countOp(d, ir.OpSel), countOp(d, ir.OpMux))
	}
}

// TestCMuxRandom: random circuits with MUXes (and MUX cones of other
// gates) map to equivalent circuits (exhaustively up to 16 inputs, random
// vectors beyond), within the bound everywhere, and never to more
// bootstraps than without the gadget.
func TestCMuxRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(121, 122))
	ops := []ir.Op{ir.OpMux, ir.OpMux, ir.OpMux, ir.OpAnd, ir.OpXor, ir.OpOr, ir.OpNot, ir.OpAndNY, ir.OpLUT}
	for iter := 0; iter < 120; iter++ {
		cfg := circuittest.Config{Inputs: 3 + rng.IntN(20), Gates: 20 + rng.IntN(150), Outputs: 12, Ops: ops, MaxLUTInputs: 3, Window: 6 * (iter % 2)}
		c := mustPipeline(t, circuittest.Random(t, rng, cfg))
		plain, err := LUTMap(p4Sum{}, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		tg := cmuxTarget{sb: 1 + iter%4, grow: iter % 3}
		d, err := LUTMap(tg, 3).Run(c)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		circuittest.Equivalent(t, c, d)
		checkWithinBound(t, d, tg)
		if before, after := coverCost(p4Sum{})(plain), coverCost(tg)(d); after > before {
			t.Fatalf("iteration %d: %d bootstraps with CMuxes, %d without", iter, after, before)
		}
		// A mapped circuit mapped again (SEL/CMUX in the input) stays equivalent.
		if iter%10 == 0 {
			e, err := LUTMap(tg, 3).Run(d)
			if err != nil {
				t.Fatal(err)
			}
			circuittest.Equivalent(t, c, e)
			checkWithinBound(t, e, tg)
		}
	}
}

// TestCMuxUnavailable: SelectBootstraps() = 0 maps exactly as without the
// gadget (the same .hir text), on circuits with MUXes.
func TestCMuxUnavailable(t *testing.T) {
	rng := rand.New(rand.NewPCG(131, 132))
	hir := func(c *ir.Circuit) string {
		var buf bytes.Buffer
		if err := ir.WriteHIR(&buf, c); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	cs := []*ir.Circuit{maxWords(t, 16, false), maxWords(t, 16, true), muxChain(t, 5, 4)}
	for range 20 {
		cs = append(cs, mustPipeline(t, circuittest.Random(t, rng, circuittest.Config{Inputs: 12, Gates: 120, Ops: []ir.Op{ir.OpMux, ir.OpAnd, ir.OpXor, ir.OpOr}})))
	}
	for i, c := range cs {
		a, err := LUTMap(p4Sum{}, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := LUTMap(cmuxTarget{sb: 0, grow: 1}, 3).Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if hir(a) != hir(b) {
			t.Fatalf("circuit %d: SelectBootstraps 0 changed the mapping", i)
		}
	}
}

// TestFindMuxesCones: MUX functions are found in AND/XOR/OR/NOT cones up
// to negation, with ¬s in s's group.
func TestFindMuxesCones(t *testing.T) {
	b := ir.NewBuilder("cones")
	s := b.Input("s", 1, false)[0]
	x := b.Input("x", 4, false)
	y := b.Input("y", 4, false)
	roots := []ir.NodeID{
		b.Xor(y[0], b.And(s, b.Xor(x[0], y[0]))),           // Bristol: s ? x0 : y0
		b.Or(b.And(s, x[1]), b.AndNY(y[1], s)),             // (s∧x1) ∨ (¬s∧y1)
		b.Not(b.Or(b.And(b.Not(s), x[2]), b.And(s, y[2]))), // ¬MUX(¬s, x2, y2)
		b.Mux(b.Not(s), b.Not(x[3]), y[3]),                 // MUX(¬s, ¬x3, y3)
	}
	b.Output("o", 4, false, roots)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	muxes := findMuxes(c, p4Sum{}, 0)
	for j, r := range roots {
		mc := muxes[r]
		if !mc.ok || mc.s != s {
			t.Fatalf("root %d: %+v, want a MUX on s", j, mc)
		}
	}
	// The decompositions themselves are checked by the rewrite's equivalence.
	d, err := rewriteCMux(c, muxes, map[ir.NodeID]bool{s: true})
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if countOp(d, ir.OpSel) != 1 || countOp(d, ir.OpCMux) != 4 {
		t.Fatalf("%d SEL, %d CMUX, want 1, 4", countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
	}
}

// addRows builds rows of r = r + (d ⊕ q_row) mod 2^n (each row adds the
// divisor or its complement, as non-restoring division does): the XORs of
// d with a row's control bit feed the adder's carries.
func addRows(t *testing.T, n, rows int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("rows")
	r := b.Input("r", n, false)
	d := b.Input("d", n, false)
	q := b.Input("q", rows, false)
	for row := 0; row < rows; row++ {
		c := q[row] // + q: the two's complement when q = 1
		next := make([]ir.NodeID, n)
		for i := 0; i < n; i++ {
			y := b.Xor(d[i], q[row])
			next[i] = b.Xor(b.Xor(r[i], y), c)
			c = b.Or(b.And(r[i], y), b.And(c, b.Xor(r[i], y)))
		}
		r = next
	}
	b.Output("o", n, false, r)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return mustPipeline(t, c)
}

// TestCMuxXorRows: the XORs with a row's control bit become CMuxes where
// the cover bootstraps them (coverSavings), for fewer bootstraps.
func TestCMuxXorRows(t *testing.T) {
	c := addRows(t, 8, 4)
	plain, err := LUTMap(p4Sum{}, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	tg := cmuxTarget{sb: 2, grow: 1}
	d, err := LUTMap(tg, 3).Run(c)
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	checkWithinBound(t, d, tg)
	before, after := coverCost(p4Sum{})(plain), coverCost(tg)(d)
	t.Logf("%d bootstraps without CMuxes, %d with (%d SEL, %d CMUX)", before, after, countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
	if countOp(d, ir.OpCMux) == 0 || after >= before {
		t.Errorf("%d bootstraps with %d CMuxes, want CMuxes and fewer than %d", after, countOp(d, ir.OpCMux), before)
	}
}

// TestFindMuxesConsts: the AND/OR family on a select is a MUX with a
// constant data input (muxConsts), and the rewrite computes the same.
func TestFindMuxesConsts(t *testing.T) {
	b := ir.NewBuilder("consts")
	s := b.Input("s", 1, false)[0]
	z := b.Input("z", 4, false)
	roots := []ir.NodeID{
		b.Or(s, z[0]),         // MUX(s, 1, z0)
		b.AndNY(z[1], s),      // MUX(s, 0, z1)
		b.Nand(s, z[2]),       // MUX(s, ¬z2, 1)
		b.Nor(b.Not(s), z[3]), // MUX(s, ¬z3, 0)
	}
	b.Output("o", 4, false, roots)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	muxes := findMuxes(c, p4Sum{}, muxConsts)
	for j, r := range roots {
		if mc := muxes[r]; !mc.ok || mc.s != s || (mc.ca == 0 && mc.cb == 0) {
			t.Fatalf("root %d: %+v, want a MUX on s with a constant input", j, mc)
		}
	}
	d, err := rewriteCMux(c, muxes, map[ir.NodeID]bool{s: true})
	if err != nil {
		t.Fatal(err)
	}
	circuittest.Equivalent(t, c, d)
	if countOp(d, ir.OpSel) != 1 || countOp(d, ir.OpCMux) != 4 {
		t.Fatalf("%d SEL, %d CMUX, want 1, 4", countOp(d, ir.OpSel), countOp(d, ir.OpCMux))
	}
}
