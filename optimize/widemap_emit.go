package optimize

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/hcc-fhe/hcc/ir"
)

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
	inViol := make([][]int32, len(m.g.nodes)) // candidate -> violators (this round) it is in
	epoch := int32(0)
	work := 0 // nodes walked so far
	for round := 0; ; round++ {
		if round == maxRefreshRounds || work > maxRefreshWork {
			work = -1 << 62 // once
			// Long chains of overlapping forms (a running XOR read at every
			// step) take one refresh per round; finish them bottom-up.
			more, err := m.refreshBottomUp(fm, cons)
			if err != nil {
				return nil, err
			}
			for _, v := range more {
				added = append(added, v)
				cons = append(cons, consumer{node: v, limit: m.o.MaxTerms, refresh: true})
			}
			clear(fm.memo)
		}
		var touched []int32
		over := int32(0)
		for _, c := range cons {
			f, err := fm.consumed(c)
			if err != nil {
				return nil, err
			}
			if c.limit == 0 || len(f.terms) <= c.limit {
				continue
			}
			viol := over
			over++
			epoch++
			var walk func(v int32, self bool) error
			walk = func(v int32, self bool) error {
				nd := &m.g.nodes[v]
				if stamp[v] == epoch || (!self && fm.isM[v]) || !nd.lin || m.g.hash[v] == 0 {
					return nil
				}
				stamp[v] = epoch
				work++
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
						inViol[v] = append(inViol[v], viol)
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
		if len(touched) == 0 {
			return nil, fmt.Errorf("wide map: %d forms exceed their term limit and no node can be refreshed", over)
		}
		// Best savings first; in one round take only candidates whose
		// violators no earlier pick serves, so two picks never split the
		// work of one form, and only those saving at least half as much as
		// the best (fewer rounds, nearly the one-at-a-time greedy choice).
		sort.Slice(touched, func(i, j int) bool {
			a, b := touched[i], touched[j]
			return score[a] > score[b] || (score[a] == score[b] && a < b)
		})
		served := make([]bool, over)
		floor := score[touched[0]] / 2
	pick:
		for _, v := range touched {
			if score[v] < floor {
				break
			}
			for _, x := range inViol[v] {
				if served[x] {
					continue pick
				}
			}
			for _, x := range inViol[v] {
				served[x] = true
			}
			fm.isM[v] = true
			added = append(added, v)
			cons = append(cons, consumer{node: v, limit: m.o.MaxTerms, refresh: true})
		}
		for _, v := range touched {
			score[v], inViol[v] = 0, inViol[v][:0]
		}
		clear(fm.memo)
	}
}

// maxRefreshRounds and maxRefreshWork (nodes walked) bound the greedy
// refresh rounds before the bottom-up pass takes over: each round walks
// every over-limit form. AES needs at most 18 rounds (MaxTerms 6); a
// running XOR over 4000 inputs would need one round per refresh.
// (Variables so that a test can force the bottom-up pass.)
var (
	maxRefreshRounds = 24
	maxRefreshWork   = 20_000_000
)

// refreshBottomUp visits the linear nodes the over-limit consumed forms
// expand through, in topological order, and refreshes the largest fanin
// (2..MaxTerms terms) of any node whose form exceeds MaxTerms until it fits:
// one pass, refreshes as deep as the forms allow. Memoised forms computed
// before a refresh stay valid (the same value, expanded further); the
// caller clears the memo and re-checks.
func (m *wideMapper) refreshBottomUp(fm *formsM, cons []consumer) ([]int32, error) {
	need := make([]bool, len(m.g.nodes))
	var mark func(v int32, self bool)
	mark = func(v int32, self bool) {
		nd := &m.g.nodes[v]
		if need[v] || (!self && fm.isM[v]) || !nd.lin || m.g.hash[v] == 0 {
			return
		}
		need[v] = true
		for _, u := range nd.in {
			mark(u, false)
		}
	}
	for _, c := range cons {
		f, err := fm.consumed(c)
		if err != nil {
			return nil, err
		}
		if c.limit > 0 && len(f.terms) > c.limit {
			mark(c.node, true)
		}
	}
	var added []int32
	for v := range m.g.nodes {
		if !need[v] {
			continue
		}
		for {
			f, err := fm.expand(int32(v))
			if err != nil {
				return nil, err
			}
			if len(f.terms) <= m.o.MaxTerms {
				break
			}
			best, bn := int32(-1), 0
			for _, u := range m.g.nodes[v].in {
				if fm.isM[u] || !m.g.nodes[u].lin || m.g.hash[u] == 0 {
					continue
				}
				fu, err := fm.of(u)
				if err != nil {
					return nil, err
				}
				if n := len(fu.terms); n >= 2 && n <= m.o.MaxTerms && n > bn {
					best, bn = u, n
				}
			}
			if best < 0 {
				break // its fanins are over the limit themselves: they come first only if needed
			}
			fm.isM[best] = true
			fm.memo[best] = mform{terms: []int32{best}}
			added = append(added, best)
		}
		if !fm.isM[v] {
			delete(fm.memo, int32(v)) // recomputed from the refreshed fanins
		}
	}
	return added, nil
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
//
// strict restricts fusion to tables whose input nodes precede their first
// output; MapWide retries with it if the relaxed plan's tables close a
// cycle (possible only through forms whose terms cancel).
func (m *wideMapper) build(cv *wcover, strict bool) (*ir.WidePlan, error) {
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
	if groups, err = m.fuse(fm, groups, groupOf, evals, memo, strict); err != nil {
		return nil, err
	}
	if err := m.lift(fm, groupOf, evals); err != nil {
		return nil, err
	}
	groups = m.prune(fm, groups, groupOf)
	uses := map[uint64]int{} // tables reading each form
	for _, gr := range groups {
		for _, g := range gr.cut.gens[:gr.cut.n] {
			uses[m.g.hash[g]]++
		}
	}
	for _, gr := range groups {
		if m.rebase(fm, gr, uses) {
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
	pts, err = m.order(fm, pts)
	if err != nil {
		return nil, err
	}
	return m.emit(fm, pts)
}

// order sorts the tables topologically (a table after every table whose
// outputs its input forms read), earliest key first among the ready ones.
// Keys alone do not suffice: a fused table may read a form built from a
// node after its first output, and a refresh inside that form is keyed by
// that node.
func (m *wideMapper) order(fm *formsM, pts []*ptable) ([]*ptable, error) {
	producer := map[int32]int{}
	for i, pt := range pts {
		for _, r := range pt.roots {
			producer[r] = i
		}
	}
	deps := make([][]int, len(pts)) // deps[i]: tables reading table i
	indeg := make([]int, len(pts))
	for i, pt := range pts {
		var ins []mform
		if pt.refresh {
			f, err := fm.expand(pt.key)
			if err != nil {
				return nil, err
			}
			ins = append(ins, f)
		} else {
			for _, g := range pt.gens {
				f, err := fm.of(g)
				if err != nil {
					return nil, err
				}
				ins = append(ins, f)
			}
		}
		seen := map[int]bool{}
		for _, f := range ins {
			for _, t := range f.terms {
				if j, ok := producer[t]; ok && !seen[j] {
					if j == i {
						return nil, fmt.Errorf("%w: the table of node %d reads its own output", errCycle, pt.key)
					}
					seen[j] = true
					deps[j] = append(deps[j], i)
					indeg[i]++
				}
			}
		}
	}
	// pts is sorted by key, so a ready set kept as a sorted index heap
	// gives the earliest key first.
	ready := &intHeap{}
	for i := range pts {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]*ptable, 0, len(pts))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, pts[i])
		for _, j := range deps[i] {
			if indeg[j]--; indeg[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	if len(out) != len(pts) {
		return nil, fmt.Errorf("%w: %d tables", errCycle, len(pts)-len(out))
	}
	return out, nil
}

// errCycle reports tables that read each other's outputs.
var errCycle = errors.New("wide map: internal error: tables on a cycle")

// intHeap is a min-heap of ints (container/heap).
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
