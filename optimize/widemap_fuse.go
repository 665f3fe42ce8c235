package optimize

import (
	"slices"
	"sort"
)

// fuse merges a table H with a table G whose outputs H's inputs read, when
// one table on G's inputs plus H's other inputs (rank <= K) computes the
// outputs of both: the forms of G's outputs that H read need no circuit
// bootstrap any more. Repeated, it collapses an S-box the cover cut into
// many small tables (a 2-input table per AND) back into one table of its
// eight inputs. memo is the exact-form cache of the evaluators.
func (m *wideMapper) fuse(fm *formsM, groups []*wgroup, groupOf []*wgroup, evals map[*wgroup]*groupEval, memo map[int32][]int32, strict bool) ([]*wgroup, error) {
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].minRoot < groups[j].minRoot })
	dead := map[*wgroup]bool{}
	// uses counts the tables reading each input form (by signature): a
	// fusion pays a CBS for a form only no other table reads.
	uses := map[uint64]int{}
	for _, gr := range groups {
		for _, g := range gr.cut.gens[:gr.cut.n] {
			uses[m.g.hash[g]]++
		}
	}
	for _, h := range groups {
		if dead[h] {
			continue
		}
		for {
			f, err := m.fuseOnce(fm, h, groupOf, evals, memo, dead, strict, uses)
			if err != nil {
				return nil, err
			}
			if f == nil {
				break
			}
			h = f
		}
	}
	var out []*wgroup
	for _, gr := range groups {
		if !dead[gr] {
			out = append(out, gr)
		}
	}
	// Fused tables were appended to no list: collect them from groupOf.
	seen := map[*wgroup]bool{}
	for _, gr := range out {
		seen[gr] = true
	}
	for _, gr := range groupOf {
		if gr != nil && !seen[gr] && !dead[gr] {
			seen[gr] = true
			out = append(out, gr)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].minRoot < out[j].minRoot })
	return out, nil
}

// fuseOnce tries to fuse h with one table it reads; it returns the fused
// table (h and that table marked dead) or nil.
func (m *wideMapper) fuseOnce(fm *formsM, h *wgroup, groupOf []*wgroup, evals map[*wgroup]*groupEval, memo map[int32][]int32, dead map[*wgroup]bool, strict bool, uses map[uint64]int) (*wgroup, error) {
	// The tables h's inputs read, most-read first.
	count := map[*wgroup]int{}
	var cands []*wgroup
	for _, g := range h.cut.gens[:h.cut.n] {
		f, err := fm.of(g)
		if err != nil {
			continue
		}
		for _, t := range f.terms {
			if gr := groupOf[t]; gr != nil && gr != h && !dead[gr] {
				if count[gr] == 0 {
					cands = append(cands, gr)
				}
				count[gr]++
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return count[cands[i]] > count[cands[j]] })
	for _, g := range cands {
		key := min(g.minRoot, h.minRoot)
		// Inputs of the fused table: g's, then each of h's that does not
		// read g's outputs, else the terms of its form that are not g's.
		var gens []int32
		gens = append(gens, g.cut.gens[:g.cut.n]...)
		ok := true
		for _, x := range h.cut.gens[:h.cut.n] {
			f, err := fm.of(x)
			if err != nil {
				ok = false
				break
			}
			reads := false
			for _, t := range f.terms {
				reads = reads || groupOf[t] == g
			}
			if !reads {
				gens = append(gens, x)
				continue
			}
			for _, t := range f.terms {
				if groupOf[t] != g {
					gens = append(gens, t)
				}
			}
		}
		if !ok {
			continue
		}
		nc := wcut{span: -1}
		for _, x := range gens {
			if !nc.add(x, m.g.hash[x], m.o.K) {
				ok = false
				break
			}
		}
		// Fewer inputs than the two tables had, and every input form made
		// of signals before the fused table's first output (emit orders the
		// tables topologically).
		if !ok || nc.n >= g.cut.n+h.cut.n {
			continue
		}
		for _, x := range nc.gens[:nc.n] {
			f, err := fm.of(x)
			if err != nil || (strict && x >= key) {
				ok = false
				break
			}
			for _, t := range f.terms {
				ok = ok && t < key
			}
		}
		if !ok {
			continue
		}
		if m.fuseGain(g, h, &nc, uses) <= 0 {
			continue
		}
		fz := &wgroup{cut: nc, minRoot: key}
		fz.roots = append(append(fz.roots, g.roots...), h.roots...)
		slices.Sort(fz.roots)
		ge, err := m.newGroupEval(fz, memo)
		if err != nil {
			return nil, err
		}
		for _, r := range fz.roots {
			if _, err := ge.tryEval(r); err != nil {
				if err != errNotInSpan {
					return nil, err
				}
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		dead[g], dead[h] = true, true
		for _, x := range g.cut.gens[:g.cut.n] {
			uses[m.g.hash[x]]--
		}
		for _, x := range h.cut.gens[:h.cut.n] {
			uses[m.g.hash[x]]--
		}
		for _, x := range nc.gens[:nc.n] {
			uses[m.g.hash[x]]++
		}
		evals[fz] = ge
		for _, r := range fz.roots {
			groupOf[r] = fz
		}
		return fz, nil
	}
	return nil, nil
}

// fuseGain is what fusing g and h into one table on nc saves: the CBS of
// forms only they read minus those of forms only the fused table would
// read, plus one packing less (more if the outputs overflow a polynomial).
func (m *wideMapper) fuseGain(g, h *wgroup, nc *wcut, uses map[uint64]int) float64 {
	left := map[uint64]int{} // uses without g and h
	for _, gr := range []*wgroup{g, h} {
		for _, x := range gr.cut.gens[:gr.cut.n] {
			hx := m.g.hash[x]
			if _, ok := left[hx]; !ok {
				left[hx] = uses[hx]
			}
			left[hx]--
		}
	}
	inNew := map[uint64]bool{}
	cbs := 0
	for _, x := range nc.gens[:nc.n] {
		hx := m.g.hash[x]
		inNew[hx] = true
		if _, ok := left[hx]; !ok && uses[hx] == 0 {
			cbs-- // a form no table read before
		}
	}
	for hx, n := range left {
		if n == 0 && !inNew[hx] {
			cbs++ // a form only g and h read, gone
		}
	}
	pack := float64(polys(len(g.roots), int(g.cut.n), m.o.PackSlots)+polys(len(h.roots), int(h.cut.n), m.o.PackSlots)-
		polys(len(g.roots)+len(h.roots), int(nc.n), m.o.PackSlots)) * m.o.TableCost
	return float64(cbs)*m.o.CBSCost + pack
}
