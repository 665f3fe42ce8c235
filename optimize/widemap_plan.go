package optimize

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

// A wgroup is one table: roots (its outputs) that are functions of the
// span of one cut.
type wgroup struct {
	cut     wcut
	roots   []int32
	minRoot int32
}

type spanKey struct {
	rows [ir.MaxWideInputs]uint64
	n    uint8
}

// group puts roots with the same span in one table, then moves every table
// whose span lies inside a larger table's span into it, when the larger
// table's generators precede all the roots (so the plan stays acyclic).
func (m *wideMapper) group(cv *wcover) []*wgroup {
	var groups []*wgroup
	bySpan := map[spanKey]*wgroup{}
	for _, r := range cv.roots {
		c := cv.cut[r]
		key := spanKey{c.rows, c.n}
		if gr := bySpan[key]; gr != nil {
			gr.roots = append(gr.roots, r)
			continue
		}
		gr := &wgroup{cut: *c, roots: []int32{r}, minRoot: r}
		bySpan[key] = gr
		groups = append(groups, gr)
	}
	// Candidate containers share a generator's signature with the group:
	// a span inside another one almost always shares one of its forms.
	byGen := map[uint64][]*wgroup{}
	for _, gr := range groups {
		for _, v := range gr.cut.gens[:gr.cut.n] {
			byGen[m.g.hash[v]] = append(byGen[m.g.hash[v]], gr)
		}
	}
	order := slices.Clone(groups)
	sort.SliceStable(order, func(i, j int) bool { return order[i].cut.n < order[j].cut.n })
	dead := map[*wgroup]bool{}
	for _, gr := range order {
		if int(gr.cut.n) >= m.o.K {
			continue
		}
		var into *wgroup
		for _, v := range gr.cut.gens[:gr.cut.n] {
			for _, h := range byGen[m.g.hash[v]] {
				if h == gr || dead[h] || h.cut.n <= gr.cut.n || (into != nil && h.cut.n >= into.cut.n) {
					continue
				}
				if !h.cut.contains(&gr.cut) {
					continue
				}
				lim := min(h.minRoot, gr.minRoot)
				ok := true
				for _, x := range h.cut.gens[:h.cut.n] {
					if x >= lim {
						ok = false
						break
					}
				}
				if ok {
					into = h
				}
			}
		}
		if into != nil {
			into.roots = append(into.roots, gr.roots...)
			into.minRoot = min(into.minRoot, gr.minRoot)
			dead[gr] = true
		}
	}
	out := groups[:0]
	for _, gr := range groups {
		if !dead[gr] {
			slices.Sort(gr.roots)
			out = append(out, gr)
		}
	}
	return out
}

// groupCost is the plan cost of groups before refreshes: a CBS per
// distinct generator form, packings, outputs.
func (m *wideMapper) groupCost(groups []*wgroup) float64 {
	forms := map[uint64]bool{}
	cost := 0.0
	for _, gr := range groups {
		for _, v := range gr.cut.gens[:gr.cut.n] {
			forms[m.g.hash[v]] = true
		}
		cost += float64(polys(len(gr.roots), int(gr.cut.n), m.o.PackSlots))*m.o.TableCost + float64(len(gr.roots))*m.o.OutCost
	}
	return cost + float64(len(forms))*m.o.CBSCost
}

// xorTerms is the XOR of two sorted term lists.
func xorTerms(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// beta is v's exact linear form over the basis variables (inputs and
// non-linear nodes), memoised; its constant is g.kappa[v].
func (m *wideMapper) beta(memo map[int32][]int32, v int32) []int32 {
	if f, ok := memo[v]; ok {
		return f
	}
	nd := &m.g.nodes[v]
	var f []int32
	switch {
	case !nd.lin:
		f = []int32{v}
	default:
		for _, u := range nd.in {
			f = xorTerms(f, m.beta(memo, u))
		}
	}
	memo[v] = f
	return f
}

// xrow is a row of an exact echelon basis: a form, the generators it
// combines (bit j = generator j) and the XOR of their constants.
type xrow struct {
	f    []int32
	mask uint16
	k    bool
}

// spanBasis is an echelon basis (pivot = largest term) of generator forms.
type spanBasis struct {
	rows  []xrow
	pivot map[int32]int
}

// reduce eliminates f against the basis; it returns what is left, the
// generators combined and their constants' XOR.
func (b *spanBasis) reduce(f []int32) ([]int32, uint16, bool) {
	var mask uint16
	k := false
	for len(f) > 0 {
		i, ok := b.pivot[f[len(f)-1]]
		if !ok {
			break
		}
		f = xorTerms(f, b.rows[i].f)
		mask ^= b.rows[i].mask
		k = k != b.rows[i].k
	}
	return f, mask, k
}

// projection[j] is generator j's value on lanes 0..63 (lane x: bit j of x).
var projection = [6]uint64{0xAAAAAAAAAAAAAAAA, 0xCCCCCCCCCCCCCCCC, 0xF0F0F0F0F0F0F0F0,
	0xFF00FF00FF00FF00, 0xFFFF0000FFFF0000, 0xFFFFFFFF00000000}

// groupEval derives truth tables over a group's generators exactly: a node
// whose form is in the generators' span takes the matching XOR of
// generator values (and constant), any other node is computed from its
// fanins; reaching an input outside the span means the node is not a
// function of the span (an error, not a wrong table).
type groupEval struct {
	m      *wideMapper
	memo   map[int32][]int32
	k      int
	b      *spanBasis
	genVal [][]uint64
	vals   map[int32][]uint64
}

func (m *wideMapper) newGroupEval(gr *wgroup, memo map[int32][]int32) (*groupEval, error) {
	k := int(gr.cut.n)
	ge := &groupEval{m: m, memo: memo, k: k, b: &spanBasis{pivot: map[int32]int{}}, vals: map[int32][]uint64{}}
	for j, v := range gr.cut.gens[:k] {
		f, mask, kc := ge.b.reduce(m.beta(memo, v))
		if len(f) == 0 {
			return nil, fmt.Errorf("wide map: internal error: generators of node %d are dependent", gr.minRoot)
		}
		ge.b.pivot[f[len(f)-1]] = len(ge.b.rows)
		ge.b.rows = append(ge.b.rows, xrow{f: f, mask: mask ^ 1<<j, k: kc != m.g.kappa[v]})
	}
	words := ir.TableWords(k)
	ge.genVal = make([][]uint64, k)
	for j := range ge.genVal {
		ge.genVal[j] = make([]uint64, words)
		for w := range words {
			switch {
			case j < 6:
				ge.genVal[j][w] = projection[j]
			case w>>(j-6)&1 != 0:
				ge.genVal[j][w] = ^uint64(0)
			}
		}
	}
	return ge, nil
}

var errNotInSpan = fmt.Errorf("wide map: node is not a function of the span")

func (ge *groupEval) eval(v int32) ([]uint64, error) {
	if x, ok := ge.vals[v]; ok {
		return x, nil
	}
	m := ge.m
	x := make([]uint64, len(ge.genVal[0]))
	f, mask, kc := ge.b.reduce(m.beta(ge.memo, v))
	nd := &m.g.nodes[v]
	switch {
	case len(f) == 0:
		// v = Σ mask gens + const: the generators' forms carry their
		// constants, so the offset is κ(v) ⊕ the combination's.
		if kc != m.g.kappa[v] {
			for w := range x {
				x[w] = ^uint64(0)
			}
		}
		for j := range ge.k {
			if mask>>j&1 != 0 {
				for w := range x {
					x[w] ^= ge.genVal[j][w]
				}
			}
		}
	case nd.input:
		return nil, errNotInSpan
	case nd.lin:
		if nd.cnst {
			for w := range x {
				x[w] = ^uint64(0)
			}
		}
		for _, u := range nd.in {
			y, err := ge.eval(u)
			if err != nil {
				return nil, err
			}
			for w := range x {
				x[w] ^= y[w]
			}
		}
	default:
		var in [ir.MaxLUTInputs][]uint64
		for j, u := range nd.in {
			y, err := ge.eval(u)
			if err != nil {
				return nil, err
			}
			in[j] = y
		}
		var lane [ir.MaxLUTInputs]uint64
		for w := range x {
			for j := range nd.in {
				lane[j] = in[j][w]
			}
			x[w] = ir.EvalTable(nd.table, lane[:len(nd.in)])
		}
	}
	ge.vals[v] = x
	return x, nil
}

// table is root r's truth table over the generators.
func (ge *groupEval) table(r int32) ([]uint64, error) {
	x, err := ge.eval(r)
	if err != nil {
		return nil, err
	}
	t := slices.Clone(x)
	if ge.k < 6 {
		t[0] &= 1<<(1<<ge.k) - 1
	}
	return t, nil
}

// flipInputs returns the table t(x ⊕ flip) of a k-input table.
func flipInputs(t []uint64, k int, flip int) []uint64 {
	if flip == 0 {
		return t
	}
	out := make([]uint64, len(t))
	for x := range 1 << k {
		y := x ^ flip
		if t[y>>6]>>(y&63)&1 != 0 {
			out[x>>6] |= 1 << (x & 63)
		}
	}
	return out
}

// mform is a linear form over materialised nodes (inputs, table outputs).
type mform struct {
	terms []int32
	k     bool
}

// formsM computes forms over the materialised set isM, memoised.
type formsM struct {
	m    *wideMapper
	isM  []bool
	memo map[int32]mform
}

func (fm *formsM) of(v int32) (mform, error) {
	if f, ok := fm.memo[v]; ok {
		return f, nil
	}
	var f mform
	nd := &fm.m.g.nodes[v]
	switch {
	case fm.isM[v]:
		f.terms = []int32{v}
	case nd.lin && fm.m.g.hash[v] == 0:
		f.k = fm.m.g.kappa[v] // constant (its fanins cancel)
	case nd.lin:
		var err error
		if f, err = fm.expand(v); err != nil {
			return f, err
		}
	default:
		return f, fmt.Errorf("wide map: internal error: non-linear node %d is read but not a table output", v)
	}
	fm.memo[v] = f
	return f, nil
}

// expand is the XOR of a linear node's fanins' forms (its value without
// using v itself: a refresh's input).
func (fm *formsM) expand(v int32) (mform, error) {
	nd := &fm.m.g.nodes[v]
	f := mform{k: nd.cnst}
	for _, u := range nd.in {
		fu, err := fm.of(u)
		if err != nil {
			return f, err
		}
		f.terms = xorTerms(f.terms, fu.terms)
		f.k = f.k != fu.k
	}
	return f, nil
}

// consumer is a form the plan reads: a table generator, a refresh's input
// (refresh = true: the expansion of node) or a circuit output.
type consumer struct {
	node    int32
	limit   int
	refresh bool
}

func (fm *formsM) consumed(c consumer) (mform, error) {
	if c.refresh {
		return fm.expand(c.node)
	}
	return fm.of(c.node)
}

// refreshes makes linear nodes table outputs (one-input identity tables)
// until every consumed form is within its limit: each round materialises
// the node of at most MaxTerms terms that saves the most terms over the
// forms still over their limit (a round-key bit read by many S-boxes).
func (m *wideMapper) refreshes(fm *formsM, cons []consumer) ([]int32, error) {
	var added []int32
	stamp := make([]int32, len(m.g.nodes))
	score := make([]int, len(m.g.nodes))
	epoch := int32(0)
	for {
		var touched []int32
		over := 0
		for _, c := range cons {
			f, err := fm.consumed(c)
			if err != nil {
				return nil, err
			}
			if c.limit == 0 || len(f.terms) <= c.limit {
				continue
			}
			over++
			epoch++
			var walk func(v int32, self bool) error
			walk = func(v int32, self bool) error {
				nd := &m.g.nodes[v]
				if stamp[v] == epoch || (!self && fm.isM[v]) || !nd.lin || m.g.hash[v] == 0 {
					return nil
				}
				stamp[v] = epoch
				if !self {
					fv, err := fm.of(v)
					if err != nil {
						return err
					}
					if n := len(fv.terms); n >= 2 && n <= m.o.MaxTerms {
						if score[v] == 0 {
							touched = append(touched, v)
						}
						score[v] += n - 1
					}
				}
				for _, u := range nd.in {
					if err := walk(u, false); err != nil {
						return err
					}
				}
				return nil
			}
			if err := walk(c.node, c.refresh || !fm.isM[c.node]); err != nil {
				return nil, err
			}
		}
		if over == 0 {
			return added, nil
		}
		best := int32(-1)
		for _, v := range touched {
			if best < 0 || score[v] > score[best] || (score[v] == score[best] && v < best) {
				best = v
			}
		}
		for _, v := range touched {
			score[v] = 0
		}
		if best < 0 {
			return nil, fmt.Errorf("wide map: %d forms exceed their term limit and no node can be refreshed", over)
		}
		fm.isM[best] = true
		clear(fm.memo)
		added = append(added, best)
		cons = append(cons, consumer{node: best, limit: m.o.MaxTerms, refresh: true})
	}
}

// lift makes a free linear node an output of table G when its form is an
// XOR of two or more of G's outputs (an S-box output bit of its bottom
// linear layer): one more output, one term instead of several for every
// consumer, and the outputs it replaces may become unread (prune).
func (m *wideMapper) lift(fm *formsM, groupOf []*wgroup, evals map[*wgroup]*groupEval) error {
	for v := range m.g.nodes {
		nd := &m.g.nodes[v]
		if !m.live[v] || !nd.lin || fm.isM[v] || m.g.hash[v] == 0 {
			continue
		}
		f, err := fm.of(int32(v))
		if err != nil || len(f.terms) < 2 {
			continue
		}
		// Try the tables whose outputs v reads (an XOR of one table's
		// outputs is a function of its span; so may be a mix).
		var gr *wgroup
		for _, t := range f.terms {
			h := groupOf[t]
			if h == nil || h == gr || v < int(h.minRoot) {
				continue
			}
			if _, err := evals[h].eval(int32(v)); err == nil {
				gr = h
				break
			} else if err != errNotInSpan {
				return err
			}
		}
		if gr == nil {
			continue
		}
		fm.isM[v] = true
		fm.memo[int32(v)] = mform{terms: []int32{int32(v)}}
		groupOf[v] = gr
		gr.roots = append(gr.roots, int32(v))
	}
	return nil
}

// absorb moves every output of a table G into a table H when each is a
// function of H's span (an S-box's inversion table read by a table of its
// own inputs' span), when H's generators precede all the outputs. H is
// looked for among the tables G's generators read.
func (m *wideMapper) absorb(fm *formsM, groups []*wgroup, groupOf []*wgroup, evals map[*wgroup]*groupEval) ([]*wgroup, error) {
	order := slices.Clone(groups)
	sort.SliceStable(order, func(i, j int) bool { return order[i].cut.n < order[j].cut.n })
	dead := map[*wgroup]bool{}
	for _, gr := range order {
		var cands []*wgroup
		for _, g := range gr.cut.gens[:gr.cut.n] {
			f, err := fm.of(g)
			if err != nil {
				continue
			}
			for _, t := range f.terms {
				if h := groupOf[t]; h != nil && h != gr && !dead[h] && !slices.Contains(cands, h) {
					cands = append(cands, h)
				}
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].cut.n > cands[j].cut.n })
	next:
		for _, h := range cands {
			lim := min(h.minRoot, gr.minRoot)
			for _, x := range h.cut.gens[:h.cut.n] {
				if x >= lim {
					continue next
				}
			}
			for _, r := range gr.roots {
				if _, err := evals[h].eval(r); err != nil {
					if err != errNotInSpan {
						return nil, err
					}
					continue next
				}
			}
			for _, r := range gr.roots {
				groupOf[r] = h
			}
			h.roots = append(h.roots, gr.roots...)
			h.minRoot = lim
			dead[gr] = true
			break
		}
	}
	out := groups[:0]
	for _, gr := range groups {
		if !dead[gr] {
			slices.Sort(gr.roots)
			out = append(out, gr)
		}
	}
	return out, nil
}

// rebase picks the group's generators among the nodes of its span near its
// current ones (linear nodes whose fanins stay in the span: an S-box's
// inputs rather than its top layer's sums), fewest terms first, so that the
// CBS inputs need fewer refreshes. It reports whether the generators changed.
func (m *wideMapper) rebase(fm *formsM, gr *wgroup) bool {
	type cand struct {
		v     int32
		terms int
	}
	var pool []cand
	seen := map[int32]bool{}
	var visit func(v int32)
	visit = func(v int32) {
		if seen[v] || len(seen) > 256 {
			return
		}
		seen[v] = true
		if v >= gr.minRoot || m.g.hash[v] == 0 || reduceRows(gr.cut.rows[:gr.cut.n], m.g.hash[v]) != 0 {
			return
		}
		f, err := fm.of(v)
		if err != nil {
			return
		}
		pool = append(pool, cand{v, len(f.terms)})
		if nd := &m.g.nodes[v]; nd.lin && !fm.isM[v] {
			for _, u := range nd.in {
				visit(u)
			}
		}
	}
	for _, g := range gr.cut.gens[:gr.cut.n] {
		visit(g)
	}
	sort.SliceStable(pool, func(i, j int) bool {
		if pool[i].terms != pool[j].terms {
			return pool[i].terms < pool[j].terms
		}
		return pool[i].v < pool[j].v
	})
	nc := wcut{span: gr.cut.span}
	for _, c := range pool {
		nc.add(c.v, m.g.hash[c.v], int(gr.cut.n))
		if nc.n == gr.cut.n {
			break
		}
	}
	if nc.n != gr.cut.n || nc.gens == gr.cut.gens {
		return false
	}
	gr.cut = nc
	return true
}

// prune drops table outputs no consumed form reads (and tables left with
// none), until nothing changes.
func (m *wideMapper) prune(fm *formsM, groups []*wgroup, groupOf []*wgroup) []*wgroup {
	for {
		// read marks every table output a consumed form's expansion reaches,
		// even where the terms cancel (x ⊕ x still has to expand x).
		read := make([]bool, len(m.g.nodes))
		seen := make([]bool, len(m.g.nodes))
		var mark func(v int32)
		mark = func(v int32) {
			if seen[v] {
				return
			}
			seen[v] = true
			nd := &m.g.nodes[v]
			switch {
			case fm.isM[v]:
				read[v] = true
			case nd.lin && m.g.hash[v] != 0:
				for _, u := range nd.in {
					mark(u)
				}
			}
		}
		for _, gr := range groups {
			for _, g := range gr.cut.gens[:gr.cut.n] {
				mark(g)
			}
		}
		for _, b := range m.c.Outputs {
			for _, id := range b.Bits {
				mark(m.g.of[id])
			}
		}
		changed := false
		out := groups[:0]
		for _, gr := range groups {
			kept := gr.roots[:0]
			for _, r := range gr.roots {
				if read[r] {
					kept = append(kept, r)
				} else {
					fm.isM[r], groupOf[r] = false, nil
					delete(fm.memo, r)
					changed = true
				}
			}
			gr.roots = kept
			if len(kept) > 0 {
				slices.Sort(gr.roots)
				gr.minRoot = gr.roots[0]
				out = append(out, gr)
			}
		}
		groups = out
		if !changed {
			return groups
		}
		clear(fm.memo)
	}
}

// ptable is a table being emitted: its key orders the plan (every form it
// reads uses nodes below the key).
type ptable struct {
	key     int32
	gens    []int32 // generator nodes (group) or nil (refresh of key)
	roots   []int32
	tables  [][]uint64
	refresh bool
	flip    int // index bits to complement (generators replaced by their negation)
}

// build turns a cover into a verified plan.
func (m *wideMapper) build(cv *wcover) (*ir.WidePlan, error) {
	groups := m.group(cv)
	memo := map[int32][]int32{}
	n := len(m.g.nodes)
	fm := &formsM{m: m, isM: make([]bool, n), memo: map[int32]mform{}}
	for v := range m.g.nodes {
		fm.isM[v] = m.g.nodes[v].input
	}
	groupOf := make([]*wgroup, n)
	evals := map[*wgroup]*groupEval{}
	for _, gr := range groups {
		ge, err := m.newGroupEval(gr, memo)
		if err != nil {
			return nil, err
		}
		evals[gr] = ge
		for _, r := range gr.roots {
			fm.isM[r] = true
			groupOf[r] = gr
		}
	}
	groups, err := m.absorb(fm, groups, groupOf, evals)
	if err != nil {
		return nil, err
	}
	if err := m.lift(fm, groupOf, evals); err != nil {
		return nil, err
	}
	groups = m.prune(fm, groups, groupOf)
	for _, gr := range groups {
		if m.rebase(fm, gr) {
			ge, err := m.newGroupEval(gr, memo)
			if err != nil {
				return nil, err
			}
			evals[gr] = ge
		}
	}
	// One node per signature stands for every generator of that value, so
	// equal forms are one CBS under the executor's cache.
	rep := map[uint64]int32{}
	var pts []*ptable
	for _, gr := range groups {
		pt := &ptable{key: gr.minRoot, roots: gr.roots}
		for _, r := range gr.roots {
			t, err := evals[gr].table(r)
			if err != nil {
				return nil, fmt.Errorf("wide map: internal error: root %d: %w", r, err)
			}
			pt.tables = append(pt.tables, t)
		}
		for _, v := range gr.cut.gens[:gr.cut.n] {
			h := m.g.hash[v]
			if r, ok := rep[h]; !ok || v < r {
				rep[h] = v
			}
			pt.gens = append(pt.gens, v)
		}
		pts = append(pts, pt)
	}
	var cons []consumer
	for _, pt := range pts {
		for j, v := range pt.gens {
			// Same signature, same linear part: the values differ by the
			// constants only, which the table absorbs.
			r := rep[m.g.hash[v]]
			if m.g.kappa[r] != m.g.kappa[v] {
				pt.flip ^= 1 << j
			}
			pt.gens[j] = r
			cons = append(cons, consumer{node: r, limit: m.o.MaxTerms})
		}
	}
	for _, b := range m.c.Outputs {
		for _, id := range b.Bits {
			cons = append(cons, consumer{node: m.g.of[id], limit: m.o.MaxOutTerms})
		}
	}
	added, err := m.refreshes(fm, cons)
	if err != nil {
		return nil, err
	}
	for _, v := range added {
		pts = append(pts, &ptable{key: v, roots: []int32{v}, refresh: true})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].key < pts[j].key })
	return m.emit(fm, pts)
}

// emit assigns signal ids and writes the plan, then checks it against the
// circuit on random vectors (a broken invariant is an internal error, not
// a wrong plan).
func (m *wideMapper) emit(fm *formsM, pts []*ptable) (*ir.WidePlan, error) {
	c := m.c
	p := &ir.WidePlan{Name: c.Name, NumInputs: c.NumInputBits()}
	shape := func(bs []ir.Bus) []ir.Bus {
		out := make([]ir.Bus, len(bs))
		for i, b := range bs {
			out[i] = ir.Bus{Name: b.Name, Width: b.Width, Signed: b.Signed, Dims: slices.Clone(b.Dims)}
		}
		return out
	}
	p.Inputs, p.Outputs = shape(c.Inputs), shape(c.Outputs)
	sig := make([]int32, len(m.g.nodes))
	next := int32(0)
	for _, b := range c.Inputs {
		for _, id := range b.Bits {
			sig[m.g.of[id]] = next
			next++
		}
	}
	for _, pt := range pts {
		for _, r := range pt.roots {
			sig[r] = next
			next++
		}
	}
	toForm := func(f mform) ir.LinearForm {
		lf := ir.LinearForm{Const: f.k, Terms: make([]int32, len(f.terms))}
		for i, v := range f.terms {
			lf.Terms[i] = sig[v]
		}
		slices.Sort(lf.Terms)
		return lf
	}
	for _, pt := range pts {
		var t ir.WideTable
		if pt.refresh {
			f, err := fm.expand(pt.key)
			if err != nil {
				return nil, err
			}
			lf := toForm(f)
			id := uint64(0b10)
			if lf.Const {
				id, lf.Const = 0b01, false
			}
			t = ir.WideTable{In: []ir.LinearForm{lf}, Out: [][]uint64{{id}}}
		} else {
			flip := pt.flip
			for j, v := range pt.gens {
				f, err := fm.of(v)
				if err != nil {
					return nil, err
				}
				lf := toForm(f)
				if lf.Const {
					flip ^= 1 << j
					lf.Const = false
				}
				t.In = append(t.In, lf)
			}
			for _, tt := range pt.tables {
				t.Out = append(t.Out, flipInputs(tt, len(pt.gens), flip))
			}
		}
		p.Tables = append(p.Tables, t)
	}
	for _, b := range c.Outputs {
		for _, id := range b.Bits {
			f, err := fm.of(m.g.of[id])
			if err != nil {
				return nil, err
			}
			p.OutForms = append(p.OutForms, toForm(f))
		}
	}
	if err := p.Verify(); err != nil {
		return nil, fmt.Errorf("wide map: internal error: %w", err)
	}
	if err := checkPlan(c, p); err != nil {
		return nil, err
	}
	return p, nil
}

// checkPlan compares the plan with the circuit on 128 random vectors.
func checkPlan(c *ir.Circuit, p *ir.WidePlan) error {
	rng := rand.New(rand.NewPCG(7, uint64(len(c.Nodes))))
	in := make([]uint64, c.NumInputBits())
	for round := range 2 {
		for i := range in {
			in[i] = rng.Uint64()
		}
		want := c.EvalBits(in)
		got, err := p.EvalBits(in)
		if err != nil {
			return fmt.Errorf("wide map: internal error: %w", err)
		}
		for o := range want {
			if want[o] != got[o] {
				return fmt.Errorf("wide map: internal error: plan differs from circuit %q at output bit %d (round %d)", c.Name, o, round)
			}
		}
	}
	return nil
}
