package optimize

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

// A wcut is a set of generator nodes whose linear forms are independent;
// the node it belongs to is a function of their span. rows is the reduced
// row-echelon form of the generators' signatures (pivot = top bit, rows by
// pivot descending), so two cuts with the same rows have the same span.
type wcut struct {
	gens [ir.MaxWideInputs]int32
	rows [ir.MaxWideInputs]uint64
	n    uint8
	span int32 // id of the span (stored cuts only; -1 for partial merges)
	cost float64
}

// reduceRows reduces v by RREF rows (each pivot occurs in its own row only,
// so one pass in any order suffices).
func reduceRows(rows []uint64, v uint64) uint64 {
	for _, r := range rows {
		if v&topBit(r) != 0 {
			v ^= r
		}
	}
	return v
}

func topBit(v uint64) uint64 { return 1 << (63 - bits.LeadingZeros64(v)) }

// add puts generator gen of signature h into the cut if it is independent;
// it reports false when the rank would exceed k.
func (c *wcut) add(gen int32, h uint64, k int) bool {
	v := reduceRows(c.rows[:c.n], h)
	if v == 0 {
		return true
	}
	if int(c.n) >= k {
		return false
	}
	p := topBit(v)
	for i := range c.rows[:c.n] {
		if c.rows[i]&p != 0 {
			c.rows[i] ^= v
		}
	}
	// Insert v at its place (pivots descending) and gen at the end.
	i := int(c.n)
	for i > 0 && topBit(c.rows[i-1]) < p {
		c.rows[i] = c.rows[i-1]
		i--
	}
	c.rows[i] = v
	c.gens[c.n] = gen
	c.n++
	return true
}

func (c *wcut) sameSpan(d *wcut) bool { return c.n == d.n && c.rows == d.rows }

// contains reports whether d's span is inside c's.
func (c *wcut) contains(d *wcut) bool {
	for _, r := range d.rows[:d.n] {
		if reduceRows(c.rows[:c.n], r) != 0 {
			return false
		}
	}
	return true
}

// wideMapper holds the cut sets and the current prices.
type wideMapper struct {
	c    *ir.Circuit
	g    *wgraph
	o    WideOptions
	live []bool
	// cuts[v][0] is v's trivial cut {v} (empty for a constant); the rest
	// are the priority cuts v can be a table output of.
	cuts [][]wcut
	// Prices: uses[v] estimates how many tables read v's form (its CBS is
	// shared), refs[v] how many consumers v's cost is spread over; af[v] is
	// v's area flow (cost of making v available), free[v] whether a linear
	// v is cheapest as a free XOR of its fanins, pick[v] its best cut.
	uses, refs, af []float64
	free           []bool
	pick           []int32
	// Spans: spans[key] is a span's id; share[id] estimates how many roots
	// are outputs of one table on that span (they split its CBS and
	// packing): first the number of nodes with a cut on it, then the
	// number of roots on it in the previous cover.
	spans map[spanKey]int32
	share []float64
}

func newWideMapper(c *ir.Circuit, g *wgraph, o WideOptions) *wideMapper {
	n := len(g.nodes)
	m := &wideMapper{c: c, g: g, o: o, live: make([]bool, n), cuts: make([][]wcut, n),
		uses: make([]float64, n), refs: make([]float64, n), af: make([]float64, n),
		free: make([]bool, n), pick: make([]int32, n), spans: map[spanKey]int32{}}
	for _, b := range c.Outputs {
		for _, id := range b.Bits {
			m.live[g.of[id]] = true
		}
	}
	for v := n - 1; v >= 0; v-- {
		if m.live[v] {
			for _, u := range g.nodes[v].in {
				m.live[u] = true
			}
		}
	}
	for v := range n {
		m.uses[v] = math.Max(1, float64(g.fan[v]))
		m.refs[v] = m.uses[v]
	}
	return m
}

// constant reports whether v needs nothing: an input, or a linear node of
// constant value (no fanins, or fanins that cancel, such as x ⊕ x).
func (m *wideMapper) constant(v int32) bool {
	nd := &m.g.nodes[v]
	return nd.input || (nd.lin && m.g.hash[v] == 0)
}

// genCost is what one generator adds to a cut's cost: its CBS shared by
// the tables reading it, and its own area flow spread over its consumers.
func (m *wideMapper) genCost(v int32) float64 {
	return m.o.CBSCost/m.uses[v] + m.af[v]/m.refs[v]
}

// cutCost prices a cut: its generators and packing, split over the roots
// expected to share its span, plus its own output.
func (m *wideMapper) cutCost(c *wcut) float64 {
	s := m.o.TableCost
	for _, v := range c.gens[:c.n] {
		s += m.genCost(v)
	}
	if c.span >= 0 {
		s /= m.share[c.span]
	}
	return s + m.o.OutCost
}

// spanOf interns c's span.
func (m *wideMapper) spanOf(c *wcut) int32 {
	key := spanKey{c.rows, c.n}
	id, ok := m.spans[key]
	if !ok {
		id = int32(len(m.share))
		m.spans[key] = id
		m.share = append(m.share, 0)
	}
	return id
}

// enumerate computes every live node's priority cuts in topological order,
// priced with the initial (fanout) estimates, and the initial area flow.
func (m *wideMapper) enumerate() error {
	k, keep := m.o.K, m.o.Cuts
	var acc, next []wcut
	for v := range m.g.nodes {
		if !m.live[v] {
			continue
		}
		nd := &m.g.nodes[v]
		triv := wcut{span: -1}
		if m.g.hash[v] != 0 {
			triv.add(int32(v), m.g.hash[v], k)
		}
		if m.constant(int32(v)) {
			m.cuts[v] = []wcut{triv}
			m.free[v] = true
			continue
		}
		// tacc merges the fanins themselves; it is always kept, so pruning
		// never loses the one cut that exists whenever rank(fanins) <= K.
		tacc := wcut{span: -1}
		tok := true
		for _, u := range nd.in {
			tu := &m.cuts[u][0]
			for j := range tu.gens[:tu.n] {
				tok = tok && tacc.add(tu.gens[j], m.g.hash[tu.gens[j]], k)
			}
		}
		acc = append(acc[:0], wcut{span: -1})
		for _, u := range nd.in {
			next = next[:0]
			for ai := range acc {
				for oi := range m.cuts[u] {
					mc := acc[ai]
					o := &m.cuts[u][oi]
					ok := true
					for j := range o.gens[:o.n] {
						if !mc.add(o.gens[j], m.g.hash[o.gens[j]], k) {
							ok = false
							break
						}
					}
					if ok {
						mc.cost = m.cutCost(&mc)
						next = append(next, mc)
					}
				}
			}
			acc = pruneCuts(acc[:0], next, 2*keep)
		}
		if tok {
			dup := false
			for i := range acc {
				dup = dup || acc[i].sameSpan(&tacc)
			}
			if !dup {
				tacc.cost = m.cutCost(&tacc)
				if len(acc) >= keep {
					acc = acc[:keep-1]
				}
				acc = append(acc, tacc)
			}
		}
		if len(acc) == 0 {
			return fmt.Errorf("wide map: node %d (%d inputs) has no cut of at most K = %d forms", v, len(nd.in), k)
		}
		// Count this node on each of its spans (the initial share), then
		// keep the best by shared cost.
		for i := range acc {
			acc[i].span = m.spanOf(&acc[i])
			m.share[acc[i].span]++
			acc[i].cost = m.cutCost(&acc[i])
		}
		sort.SliceStable(acc, func(i, j int) bool { return acc[i].cost < acc[j].cost })
		cs := make([]wcut, 0, 1+min(len(acc), keep))
		cs = append(cs, triv)
		cs = append(cs, acc[:min(len(acc), keep)]...)
		for i := keep; i < len(acc); i++ {
			m.share[acc[i].span]-- // not stored: v cannot be a root on it
		}
		m.cuts[v] = cs
		m.price(int32(v))
	}
	return nil
}

// pruneCuts keeps the best n cuts of cand by cost, one per span, in dst.
func pruneCuts(dst, cand []wcut, n int) []wcut {
	sort.SliceStable(cand, func(i, j int) bool {
		if cand[i].cost != cand[j].cost {
			return cand[i].cost < cand[j].cost
		}
		return cand[i].n < cand[j].n
	})
	for i := range cand {
		dup := false
		for j := range dst {
			if dst[j].sameSpan(&cand[i]) {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, cand[i])
			if len(dst) == n {
				break
			}
		}
	}
	return dst
}

// price sets af, pick and free of v from its stored cuts and current prices.
func (m *wideMapper) price(v int32) {
	nd := &m.g.nodes[v]
	if m.constant(v) {
		m.af[v], m.free[v], m.pick[v] = 0, true, -1
		return
	}
	cs := m.cuts[v]
	best, bi := math.Inf(1), int32(-1)
	for i := 1; i < len(cs); i++ {
		cs[i].cost = m.cutCost(&cs[i])
		if cs[i].cost < best {
			best, bi = cs[i].cost, int32(i)
		}
	}
	m.pick[v], m.free[v] = bi, false
	if nd.lin {
		f := 0.0
		for _, u := range nd.in {
			f += m.af[u] / m.refs[u]
		}
		if f <= best {
			best, m.free[v] = f, true
		}
	}
	m.af[v] = best
}

// wcover is one cover: the table roots with their cuts.
type wcover struct {
	roots []int32 // ascending
	cut   map[int32]*wcut
}

// cover selects roots from the outputs down with the current prices and
// counts, per node, its uses as a generator and its references.
func (m *wideMapper) cover(uses, refs []float64) *wcover {
	n := len(m.g.nodes)
	req := make([]bool, n)
	for _, b := range m.c.Outputs {
		for _, id := range b.Bits {
			req[m.g.of[id]] = true
			refs[m.g.of[id]]++
		}
	}
	cv := &wcover{cut: map[int32]*wcut{}}
	for v := n - 1; v >= 0; v-- {
		if !req[v] {
			continue
		}
		nd := &m.g.nodes[v]
		if m.constant(int32(v)) {
			continue
		}
		if m.free[v] {
			for _, u := range nd.in {
				req[u] = true
				refs[u]++
			}
			continue
		}
		c := &m.cuts[v][m.pick[v]]
		cv.roots = append(cv.roots, int32(v))
		cv.cut[int32(v)] = c
		for _, u := range c.gens[:c.n] {
			req[u] = true
			refs[u]++
			uses[u]++
		}
	}
	slices.Reverse(cv.roots)
	return cv
}

// bestCover runs the area-recovery passes and returns the cover of least
// estimated plan cost (before refreshes).
func (m *wideMapper) bestCover() (*wcover, error) {
	n := len(m.g.nodes)
	var best *wcover
	bestCost := math.Inf(1)
	uses, refs := make([]float64, n), make([]float64, n)
	onSpan := make([]float64, len(m.share))
	for range m.o.Passes {
		for v := range m.g.nodes {
			if m.live[v] {
				m.price(int32(v))
			}
		}
		clear(uses)
		clear(refs)
		cv := m.cover(uses, refs)
		clear(onSpan)
		for _, r := range cv.roots {
			onSpan[cv.cut[r].span]++
		}
		for i := range m.share {
			m.share[i] = math.Max(1, 0.5*m.share[i]+0.5*onSpan[i])
		}
		cost := m.groupCost(m.group(cv))
		if cost < bestCost {
			best, bestCost = cv, cost
		}
		// Re-price from this cover: a form read by t tables costs CBS/t
		// each; blend with the previous estimate so that forms the cover
		// dropped keep some of their sharing.
		for v := range n {
			m.uses[v] = math.Max(1, 0.5*m.uses[v]+0.5*uses[v])
			m.refs[v] = math.Max(1, 0.5*m.refs[v]+0.5*refs[v])
		}
	}
	if best == nil {
		return nil, fmt.Errorf("wide map: no cover")
	}
	return best, nil
}
