package optimize

import (
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
			if h == nil || h == gr || v < int(h.minRoot) || !after(int32(v), h) {
				continue
			}
			if _, err := evals[h].tryEval(int32(v)); err == nil {
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

// after reports whether v follows every generator of gr, so that v (an
// ancestor of none of them) can never be part of gr's own input forms.
func after(v int32, gr *wgroup) bool {
	for _, g := range gr.cut.gens[:gr.cut.n] {
		if g >= v {
			return false
		}
	}
	return true
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
				if _, err := evals[h].tryEval(r); err != nil {
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
// inputs rather than its top layer's sums): forms another table reads
// first (their CBS is paid), then fewest terms, so that the CBS inputs need
// fewer refreshes. It reports whether the generators changed. uses counts
// the tables reading each form before any rebase.
func (m *wideMapper) rebase(fm *formsM, gr *wgroup, uses map[uint64]int) bool {
	type cand struct {
		v      int32
		shared bool // another table reads this form: its CBS is paid already
		terms  int
	}
	own := map[uint64]bool{}
	for _, g := range gr.cut.gens[:gr.cut.n] {
		own[m.g.hash[g]] = true
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
		h := m.g.hash[v]
		n := uses[h]
		if own[h] {
			n--
		}
		pool = append(pool, cand{v, n > 0, len(f.terms)})
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
		if pool[i].shared != pool[j].shared {
			return pool[i].shared
		}
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
