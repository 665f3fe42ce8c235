package fhew

import "math"

// Weight search by depth-first branch and bound. Every search for the
// weights of a table (findLUTEntry, findPlan, findMultiPlan) wants the
// vector over a list of choices with the smallest Σw² for which every table
// is a negacyclic function of Σ w_i·x_i mod P (lutPattern), and among equal
// norms the first in the order of the plain enumeration (input 0 varying
// fastest). Enumerating all len(choices)^k vectors costs 8^6 = 262144
// pattern checks per 6-input table at P = 8, which made mapping at P = 8
// take minutes; the depth-first search assigns w[k-1] first, then w[k-2],
// ... (the same order), and after each assignment checks the inputs that
// only involve assigned weights (the others held at 0): a contradiction
// there is one for every completion, so most infeasible tables are
// dismissed after two or three levels. Completions whose partial norm
// already reaches the best found are cut, which keeps "first strictly
// smaller" and so the plain enumeration's answer (TestSearchMatchesEnumeration).

// searchWeightsAll returns the first minimum-norm weight vector over
// choices for which every table has a pattern, with the patterns.
func searchWeightsAll(slots int, tables []uint64, k int, choices []int) ([]int, []uint8, bool) {
	s := weightSearch{slots: slots, tables: tables, k: k, choices: choices, bestNorm: math.MaxInt}
	s.w = make([]int, k)
	s.dfs(k-1, 0)
	return s.best, s.bestPats, s.best != nil
}

type weightSearch struct {
	slots    int
	tables   []uint64
	k        int
	choices  []int
	w        []int
	best     []int
	bestPats []uint8
	bestNorm int
}

// dfs assigns w[j] (w[j+1..k-1] are set, w[0..j] free) with partial norm norm.
func (s *weightSearch) dfs(j, norm int) {
	for _, c := range s.choices {
		n := norm + c*c
		if n >= s.bestNorm {
			continue
		}
		s.w[j] = c
		if !s.consistent(j) {
			continue
		}
		if j == 0 {
			pats := make([]uint8, len(s.tables))
			for t, tb := range s.tables {
				pats[t], _ = lutPattern(s.slots, tb, s.k, s.w)
			}
			s.best, s.bestPats, s.bestNorm = append([]int(nil), s.w...), pats, n
			continue
		}
		s.dfs(j-1, n)
	}
}

// consistent checks every table on the inputs whose bits below j are 0
// (only w[j..k-1] matter there): no two of them may demand different
// decisions for one residue (lutPattern's test, restricted).
func (s *weightSearch) consistent(j int) bool {
	half := s.slots / 2
	for _, table := range s.tables {
		var set, val uint8
		for hi := 0; hi < 1<<uint(s.k-j); hi++ {
			x := hi << uint(j)
			v := 0
			for i := j; i < s.k; i++ {
				if x>>uint(i)&1 == 1 {
					v += s.w[i]
				}
			}
			v = ((v % s.slots) + s.slots) % s.slots
			bit := uint8(table>>uint(x)) & 1
			if v >= half {
				v -= half
				bit ^= 1
			}
			m := uint8(1) << uint(v)
			if set&m != 0 {
				if (val&m != 0) != (bit == 1) {
					return false
				}
				continue
			}
			set |= m
			if bit == 1 {
				val |= m
			}
		}
	}
	return true
}
