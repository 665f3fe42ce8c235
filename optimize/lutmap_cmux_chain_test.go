package optimize

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// cmuxChainAnd builds n CMuxes on one select, each choosing between the
// previous one (a at the start) and b, then an AND of the chain's end and
// a: the shape of finding F7's repro (chainand.hir).
func cmuxChainAnd(t testing.TB, n int) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder("chainand")
	s := b.Input("s", 1, false)[0]
	a := b.Input("a", 1, false)[0]
	x := b.Input("b", 1, false)[0]
	sel := b.Sel(s)
	cur := a
	for range n {
		cur = b.CMux(sel, cur, x)
	}
	b.Output("y", 1, false, []ir.NodeID{b.And(cur, a)})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// countRefreshes counts c's refreshes of CMuxes.
func countRefreshes(c *ir.Circuit) int {
	n := 0
	for i := range c.Nodes {
		if isRefresh(c, &c.Nodes[i]) {
			n++
		}
	}
	return n
}

// longestCMuxChain is the largest CMux depth of c (refreshes start new chains).
func longestCMuxChain(c *ir.Circuit) int {
	longest := 0
	for _, d := range cmuxDepths(c, 0, false, nil) {
		longest = max(longest, d)
	}
	return longest
}

// TestCMuxChainRefreshCount: a chain of 4000 CMuxes on the level model
// (grow 1: the longest chain within bound is L = 3 CMuxes from fresh
// values, a CMux of depth d being at level 1 + d, failure -60 + 5·level)
// gets refreshes every L CMuxes — between ceil(4000/L) - 1 (fewer leave a
// longer chain, over the bound) and ceil(4000/L) + 1 — where refreshing
// one CMux per round from the end left ~all of them refreshed; the result
// is equivalent and within the bound everywhere.
func TestCMuxChainRefreshCount(t *testing.T) {
	const n = 4000
	tg := cmuxTarget{sb: 3, grow: 1}
	L := 0 // the longest chain: level 1 + L·grow at failure -60 + 5·level <= -40
	for -60+5*(1+(L+1)*tg.grow) <= -40 {
		L++
	}
	if L != 3 {
		t.Fatalf("L = %d, want 3 (the level model changed?)", L)
	}
	c := cmuxChainAnd(t, n)
	d, err := fixCMuxNoise(c, tg)
	if err != nil || d == nil {
		t.Fatalf("fixCMuxNoise = %v, %v", d, err)
	}
	circuittest.Equivalent(t, c, d)
	checkWithinBound(t, d, tg)
	r, lower, upper := countRefreshes(d), (n+L-1)/L-1, (n+L-1)/L+1
	t.Logf("%d CMuxes, L = %d: %d refreshes, chains up to %d", n, L, r, longestCMuxChain(d))
	if r < lower || r > upper {
		t.Errorf("%d refreshes, want %d..%d", r, lower, upper)
	}
	if got := countOp(d, ir.OpCMux); got != n {
		t.Errorf("%d CMUX, want %d (none undone)", got, n)
	}
	if got := longestCMuxChain(d); got > L {
		t.Errorf("chains up to %d CMuxes, over L = %d", got, L)
	}
}

// TestCMuxChainShortUntouched: chains within the bound get no refresh, and
// the circuit comes back as it was.
func TestCMuxChainShortUntouched(t *testing.T) {
	c := cmuxChainAnd(t, 3)
	d, err := fixCMuxNoise(c, cmuxTarget{sb: 3, grow: 1})
	if err != nil || d != c {
		t.Fatalf("fixCMuxNoise = %p, %v; want the input %p back", d, err, c)
	}
}

// TestCMuxChainTree: CMuxes whose data are both long chains (a tree of
// chains, and a consumer LUT reading two chain ends) are refreshed per
// chain within the bound; equivalence on every input.
func TestCMuxChainTree(t *testing.T) {
	b := ir.NewBuilder("tree")
	v := b.Input("v", 4, false)
	s := b.Input("s", 2, false)
	sa, sb := b.Sel(s[0]), b.Sel(s[1])
	chain := func(sel, from, other ir.NodeID, n int) ir.NodeID {
		for range n {
			from = b.CMux(sel, from, other)
		}
		return from
	}
	x := chain(sa, v[0], v[1], 20)
	y := chain(sb, v[2], b.Not(v[3]), 25)
	z := chain(sa, b.CMux(sb, x, b.Not(y)), v[3], 10)
	b.Output("o", 3, false, []ir.NodeID{z, b.Xor(x, y), b.And(z, y)})
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
	// 20, 25 and 10 + 1 + max CMuxes with at most 3 per chain: 6 + 8 + 4
	// chain refreshes at least, a few more at the consumers.
	r := countRefreshes(d)
	t.Logf("tree: %d refreshes, %d CMUX", r, countOp(d, ir.OpCMux))
	if r < 18 || r > 24 {
		t.Errorf("%d refreshes, want 18..24", r)
	}
}

// TestCMuxChainRandomDAG: random DAGs of CMuxes on three selects (data
// from any earlier value, NOTs and gates between, so chains branch and
// merge at every depth), with grow 1 and 2 on the level model: the fixed
// circuit is equivalent, within the bound everywhere, no chain is longer
// than the model allows, and each CMux is kept, refreshed at most once or
// undone.
func TestCMuxChainRandomDAG(t *testing.T) {
	rng := rand.New(rand.NewPCG(171, 172))
	for trial := range 40 {
		b := ir.NewBuilder("dag")
		v := b.Input("v", 6, false)
		s := b.Input("s", 3, false)
		sels := []ir.NodeID{b.Sel(s[0]), b.Sel(s[1]), b.Sel(s[2])}
		vals := append([]ir.NodeID(nil), v...)
		pick := func() ir.NodeID { return vals[len(vals)-1-rng.IntN(min(len(vals), 12))] }
		for range 60 + rng.IntN(200) {
			var x ir.NodeID
			switch r := rng.IntN(10); {
			case r < 7:
				x = b.CMux(sels[rng.IntN(3)], pick(), pick())
			case r < 8:
				x = b.Not(pick())
			case r < 9:
				x = b.And(pick(), pick())
			default:
				x = b.Xor(pick(), pick())
			}
			vals = append(vals, x)
		}
		outs := []ir.NodeID{vals[len(vals)-1], vals[len(vals)-2], b.And(vals[len(vals)-3], pick())}
		b.Output("o", len(outs), false, outs)
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		grow := 1 + trial%2
		tg := cmuxTarget{sb: 3, grow: grow}
		d, err := fixCMuxNoise(c, tg)
		if err != nil || d == nil {
			t.Fatalf("trial %d: fixCMuxNoise = %v, %v", trial, d, err)
		}
		circuittest.Equivalent(t, c, d)
		checkWithinBound(t, d, tg)
		if trial < 4 {
			t.Logf("trial %d (grow %d): %d CMuxes, chains up to %d: %d refreshes, %d undone", trial, grow,
				countOp(c, ir.OpCMux), longestCMuxChain(c), countRefreshes(d), countOp(d, ir.OpMux))
		}
		if got, limit := longestCMuxChain(d), 3/grow; got > limit {
			t.Errorf("trial %d (grow %d): chains up to %d CMuxes, over %d", trial, grow, got, limit)
		}
		if r, n := countRefreshes(d), countOp(c, ir.OpCMux); r+countOp(d, ir.OpMux) > n {
			t.Errorf("trial %d: %d refreshes and %d MUX for %d CMuxes", trial, r, countOp(d, ir.OpMux), n)
		}
	}
}
