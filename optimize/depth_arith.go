package optimize

import (
	"math/bits"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

// Adder-network re-synthesis (a stage of AndDepth). An array multiplier adds
// its partial-product rows one after another with ripple adders, so its
// AND-depth grows with the number of rows even with fast adders. Here the
// adder cells are recognised (full adders: a majority carry and a three-way
// XOR sum of the same three bits; half adders: an AND and an XOR of the same
// two bits), each output word is traced back through them to the bits that
// enter the network with their weights, and the word is recomputed from those
// bits by column compression (three bits of a column at a time, earliest
// first, sum back into the column and carry into the next, as in Wallace and
// Dadda trees) and a parallel-prefix adder for the final two rows.
//
// Soundness: every cell keeps the weighted sum (a + b + c = s + 2·carry). If
// every output of every cell reached is consumed exactly once, by an output
// bit of its weight or as the input of a reached cell (carries beyond the
// word's width excepted), then summing the cell identities telescopes to
// Σ 2^j·out_j ≡ Σ 2^w·(entering bit) (mod 2^width). Networks that fail the
// check are left alone.

// adderCell is a recognised full or half adder.
type adderCell struct {
	in         []lit // three (full) or two (half) input signals
	sum, carry lit   // output signals: sum = ⊕in, carry = majority or AND
	weight     int   // assigned while tracing; -1 before
}

// findAdderCells recognises the cells of c.
func findAdderCells(c *ir.Circuit) []adderCell {
	type pair [2]ir.NodeID
	sortedPair := func(a, b ir.NodeID) pair {
		if a > b {
			a, b = b, a
		}
		return pair{a, b}
	}
	// pairs indexes XOR gates by their two fanin bases, with the parity of
	// the fanin negations: value = a ⊕ b ⊕ parity.
	type xorRef struct {
		id     ir.NodeID
		parity bool
	}
	pairs := map[pair]xorRef{}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Op != ir.OpXor {
			continue
		}
		a, na := strip(c, n.In[0])
		b, nb := strip(c, n.In[1])
		if _, dup := pairs[sortedPair(a, b)]; a != b && !dup {
			pairs[sortedPair(a, b)] = xorRef{ir.NodeID(i), na != nb}
		}
	}
	// xorOf finds a signal equal to a ⊕ b (⊕ c): a node and the negation
	// that makes it equal.
	xor2 := func(x, y lit) (lit, bool) {
		r, ok := pairs[sortedPair(x.base, y.base)]
		return lit{r.id, r.parity != x.neg != y.neg}, ok
	}
	xor3 := func(in [3]lit) (lit, bool) {
		for e := 0; e < 3; e++ {
			t, ok := xor2(in[(e+1)%3], in[(e+2)%3])
			if !ok {
				continue
			}
			if s, ok := xor2(in[e], lit{t.base, false}); ok {
				return lit{s.base, s.neg != t.neg}, true
			}
		}
		return lit{}, false
	}
	var cells []adderCell
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if mj, ok := matchMajority(c, n); ok {
			in := [3]lit{mj.a, mj.b, {mj.carry, false}}
			if mj.k { // ¬maj(a, b, c) = maj(¬a, ¬b, ¬c)
				for j := range in {
					in[j].neg = !in[j].neg
				}
			}
			if in[0].base == in[1].base {
				continue
			}
			if s, ok := xor3(in); ok {
				cells = append(cells, adderCell{in: in[:], sum: s, carry: lit{ir.NodeID(i), false}, weight: -1})
			}
			continue
		}
		if x, cy, neg, ok := matchFoldedHalfAdder(c, n); ok {
			in := []lit{x, {cy, false}}
			if s, ok := xor2(in[0], in[1]); ok {
				cells = append(cells, adderCell{in: in, sum: s, carry: lit{ir.NodeID(i), neg}, weight: -1})
			}
			continue
		}
		if n.Op == ir.OpAnd {
			a, na := strip(c, n.In[0])
			b, nb := strip(c, n.In[1])
			in := []lit{{a, na}, {b, nb}}
			if s, ok := xor2(in[0], in[1]); ok && a != b {
				cells = append(cells, adderCell{in: in, sum: s, carry: lit{ir.NodeID(i), false}, weight: -1})
			}
		}
	}
	return cells
}

// matchFoldedHalfAdder recognises the full adder's carry C ⊕ (x⊕C)(y⊕C)
// with y folded to 0: n = u ⊕ v, u = C (through NOTs) and v = (x⊕C) ∧ C,
// which is C ∧ x, a half adder's carry (what a ripple adder becomes where
// one operand's bits are constant zeros, as in the upper rows of a
// double-width product). It returns x, C and whether n is the negated carry.
func matchFoldedHalfAdder(c *ir.Circuit, n *ir.Node) (x lit, carry ir.NodeID, neg, ok bool) {
	if n.Op != ir.OpXor {
		return lit{}, 0, false, false
	}
	for side := 0; side < 2; side++ {
		cb, nu := strip(c, n.In[side])
		vb, nv := strip(c, n.In[1-side])
		and := &c.Nodes[vb]
		if and.Op != ir.OpAnd {
			continue
		}
		for k := 0; k < 2; k++ {
			// One AND input is C itself (not negated: ¬C ∧ (x⊕C) would
			// make n = C ∨ x), the other x ⊕ C.
			if b, nb := strip(c, and.In[k]); b != cb || nb {
				continue
			}
			if a, okA := otherXorInput(c, and.In[1-k], cb); okA {
				return a, cb, nu != nv, true
			}
		}
	}
	return lit{}, 0, false, false
}

// adderWord is one output word traced through the cells: the bits entering
// each column (as old signals, repeats allowed).
type adderWord struct {
	bits    []ir.NodeID // the output bits it computes, least significant first
	columns [][]lit     // columns[w]: the entering bits of weight w
	cells   int         // cells reached
}

// maxJoin bounds how many consecutive output words one traced word may
// span (a 128-bit product written as lo and hi halves spans two).
const maxJoin = 4

// traceAdderWords traces the output words through the cells and returns
// those that pass the consumption check and reach at least minCells cells.
// A word is one element of an output bus or, when arithmetic spans several
// (the halves of a double-width product, a sum and its carry-out bit), a
// run of up to maxJoin consecutive elements in output order, joined with
// the first or the last as the least significant: at each element the
// longest run that traces is taken.
func traceAdderWords(c *ir.Circuit, cells []adderCell, minCells int) []adderWord {
	byOut := map[lit]cellOut{}
	for k := range cells {
		byOut[cells[k].sum] = cellOut{k, false}
		byOut[cells[k].carry] = cellOut{k, true}
	}
	var elems [][]ir.NodeID
	for bi := range c.Outputs {
		bus := &c.Outputs[bi]
		for e := 0; e < bus.Elems(); e++ {
			elems = append(elems, bus.Bits[e*bus.Width:(e+1)*bus.Width])
		}
	}
	var words []adderWord
	for i := 0; i < len(elems); {
		taken := false
		for j := min(len(elems), i+maxJoin) - 1; j >= i && !taken; j-- {
			// Low part first in output order (lo, hi; sum, carry), or
			// last (hi, lo).
			for _, reverse := range []bool{false, true} {
				if taken || (reverse && j == i) {
					break
				}
				var bits []ir.NodeID
				for k := i; k <= j; k++ {
					el := elems[k]
					if reverse {
						el = elems[i+j-k]
					}
					bits = append(bits, el...)
				}
				if len(bits) < 2 {
					continue
				}
				if w, ok := traceWord(c, cells, byOut, bits); ok && w.cells >= minCells {
					words = append(words, w)
					i, taken = j+1, true
				}
			}
		}
		if !taken {
			i++
		}
	}
	return words
}

// cellOut names an output of a cell: its sum, or its carry.
type cellOut struct {
	cell  int
	carry bool
}

// traceWord traces the word whose bits are bits (least significant first)
// back through the cells to the bits entering it, and reports whether the
// consumption check passes: every output of every cell reached is consumed
// exactly once, by a bit of its weight or by a reached cell (a carry out of
// the top column excepted).
func traceWord(c *ir.Circuit, cells []adderCell, byOut map[lit]cellOut, bits []ir.NodeID) (adderWord, bool) {
	width := len(bits)
	weight := map[int]int{}   // cell -> weight
	consumed := map[lit]int{} // cell output -> times demanded
	word := adderWord{bits: bits, columns: make([][]lit, width)}
	type demand struct {
		s lit
		w int
	}
	var queue []demand
	for j, id := range bits {
		b, n := strip(c, id)
		queue = append(queue, demand{lit{b, n}, j})
	}
	for len(queue) > 0 {
		d := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		ref, isCell := byOut[d.s]
		if n := &c.Nodes[d.s.base]; !isCell && d.w == width-1 && n.Op == ir.OpXor {
			// Top column: only the parity counts (mod 2^width), so an
			// XOR is a sum whose carry is dropped: split it.
			x, nx := strip(c, n.In[0])
			y, ny := strip(c, n.In[1])
			queue = append(queue, demand{lit{x, nx != d.s.neg}, d.w}, demand{lit{y, ny}, d.w})
			continue
		}
		if !isCell {
			word.columns[d.w] = append(word.columns[d.w], d.s)
			continue
		}
		consumed[d.s]++
		cw := d.w
		if ref.carry {
			cw--
		}
		if cw < 0 {
			return word, false
		}
		if w, seen := weight[ref.cell]; seen {
			if w != cw {
				return word, false
			}
			continue
		}
		weight[ref.cell] = cw
		for _, x := range cells[ref.cell].in {
			queue = append(queue, demand{x, cw})
		}
	}
	for k, w := range weight {
		cl := &cells[k]
		if consumed[cl.sum] != 1 || !(consumed[cl.carry] == 1 || (consumed[cl.carry] == 0 && w+1 >= width)) {
			return word, false
		}
	}
	word.cells = len(weight)
	return word, true
}

// resynthAdders is the stage: it rebuilds c with every traced word
// recomputed by column compression and a prefix adder.
func resynthAdders(c *ir.Circuit) (*ir.Circuit, error) {
	words := traceAdderWords(c, findAdderCells(c), 8)
	if len(words) == 0 {
		return c, nil
	}
	b := ir.NewBuilder(c.Name)
	lt := &levelTracker{b: b}
	last := ir.NodeID(len(c.Nodes) - 1)
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		n := &c.Nodes[i]
		in := make([]ir.NodeID, len(n.In))
		for j, x := range n.In {
			in[j] = m[x]
		}
		var r ir.NodeID
		if n.Op == ir.OpLUT {
			r = lowerLUT(b, n.Table, in)
		} else {
			r = lowerGate(b, n.Op, in)
		}
		if i != last {
			return r
		}
		// Every node is mapped now: compute the words and point the output
		// bits at them. Only outputs read the last node's map entries from
		// here on, so overwriting m for output nodes redirects just them.
		m[i] = r
		redirect := map[ir.NodeID]ir.NodeID{}
		for _, wd := range words {
			out := compressWord(b, lt, wd, m)
			for j, id := range wd.bits {
				if _, dup := redirect[id]; dup {
					return r // one node drives two output bits: leave it
				}
				redirect[id] = out[j]
			}
		}
		for id, v := range redirect {
			if id == i {
				r = v
			}
			m[id] = v
		}
		return r
	})
}

// compressWord sums the word's entering bits (mapped through m) column by
// column and returns the output bits.
func compressWord(b *ir.Builder, lt *levelTracker, wd adderWord, m []ir.NodeID) []ir.NodeID {
	width := len(wd.columns)
	cols := make([][]ir.NodeID, width)
	for w, col := range wd.columns {
		for _, s := range col {
			cols[w] = append(cols[w], mappedLit(b, m, s.base, s.neg))
		}
	}
	// XOR is free and only carries cost a level, so the latest bit of each
	// column is kept out of every adder: the others are reduced to one bit
	// (full adders on the three earliest, a half adder on the last two), and
	// the late bit meets it only in the final prefix adder. Reducing all bits
	// together instead lets each column's latest carry into the next column
	// and makes the depth grow with the width.
	for w := 0; w < width; w++ {
		if len(cols[w]) <= 2 {
			continue
		}
		byLevel := func(col []ir.NodeID) {
			sort.SliceStable(col, func(i, j int) bool { return lt.andLevel(col[i]) < lt.andLevel(col[j]) })
		}
		byLevel(cols[w])
		late := cols[w][len(cols[w])-1]
		rest := append([]ir.NodeID(nil), cols[w][:len(cols[w])-1]...)
		for len(rest) > 1 {
			byLevel(rest)
			var carry ir.NodeID
			if len(rest) >= 3 { // full adder; the carry z ⊕ (x⊕z)(y⊕z) takes one AND
				x, y, z := rest[0], rest[1], rest[2]
				carry = b.Xor(z, b.And(b.Xor(x, z), b.Xor(y, z)))
				rest = append(rest[3:], b.Xor(b.Xor(x, y), z))
			} else { // half adder
				x, y := rest[0], rest[1]
				carry = b.And(x, y)
				rest = append(rest[2:], b.Xor(x, y))
			}
			if w+1 < width {
				cols[w+1] = append(cols[w+1], carry)
			}
		}
		cols[w] = []ir.NodeID{rest[0], late}
	}
	// Two rows left: generate and propagate per column, then prefix carries.
	g := make([]ir.NodeID, width)
	p := make([]ir.NodeID, width)
	for w, col := range cols {
		switch len(col) {
		case 0:
			g[w], p[w] = b.Const(false), b.Const(false)
		case 1:
			g[w], p[w] = b.Const(false), col[0]
		default:
			g[w], p[w] = b.And(col[0], col[1]), b.Xor(col[0], col[1])
		}
	}
	carries := prefixCarries(b, lt, g, p)
	out := make([]ir.NodeID, width)
	for w := range out {
		out[w] = b.Xor(p[w], carries[w])
	}
	return out
}

// prefixCarries returns c_0 = 0, c_{j+1} = g_j ⊕ p_j∧c_j for j < len(g)-1,
// each carry the earliest of ripple and the Sklansky splits (as in
// carryPrefix, whose rangeGP it shares).
func prefixCarries(b *ir.Builder, lt *levelTracker, g, p []ir.NodeID) []ir.NodeID {
	ch := &carryChain{gp: map[int][2]ir.NodeID{}, ranges: map[[2]int][2]ir.NodeID{}}
	// Chain element t (1-based) is column t-1; carry position t is c_t.
	elem := func(t int) [2]ir.NodeID { return [2]ir.NodeID{g[t-1], p[t-1]} }
	c := make([]ir.NodeID, len(g))
	c[0] = b.Const(false)
	for j := 1; j < len(g); j++ {
		best := b.Xor(g[j-1], b.And(p[j-1], c[j-1]))
		for lo := 1; lo < j; {
			gp := ch.rangeGP(b, elem, lo, j)
			cand := b.Xor(gp[0], b.And(gp[1], c[lo-1]))
			if lt.andLevel(cand) < lt.andLevel(best) {
				best = cand
			}
			lo += 1 << (bits.Len(uint(j-lo)) - 1)
		}
		c[j] = best
	}
	return c
}
