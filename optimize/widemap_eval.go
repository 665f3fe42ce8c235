package optimize

import (
	"fmt"
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// xorTerms is the XOR of two sorted term lists: their symmetric difference.
func xorTerms(a, b []int32) []int32 {
	return appendSymDiff(make([]int32, 0, len(a)+len(b)), a, b)
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
	failed map[int32]bool // nodes known not to be functions of the span
	budget int            // nodes a tryEval may still visit; < 0: no limit
}

func (m *wideMapper) newGroupEval(gr *wgroup, memo map[int32][]int32) (*groupEval, error) {
	k := int(gr.cut.n)
	ge := &groupEval{m: m, memo: memo, k: k, b: &spanBasis{pivot: map[int32]int{}}, vals: map[int32][]uint64{},
		failed: map[int32]bool{}, budget: -1}
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

var (
	errNotInSpan = fmt.Errorf("wide map: node is not a function of the span")
	errBudget    = fmt.Errorf("wide map: evaluation budget exhausted")
)

// tryBudget bounds the nodes one tryEval visits: lift, absorb and fuse try
// many candidates, and a candidate outside the span could otherwise
// evaluate half the circuit before reaching an input.
const tryBudget = 512

// tryEval is eval for an optional rewrite: errNotInSpan also when the
// budget runs out (that answer is not remembered).
func (ge *groupEval) tryEval(v int32) ([]uint64, error) {
	ge.budget = tryBudget
	x, err := ge.eval(v)
	ge.budget = -1
	if err == errBudget {
		err = errNotInSpan
	}
	return x, err
}

// eval is v's value on every index of the generators (memoised).
func (ge *groupEval) eval(v int32) ([]uint64, error) {
	if x, ok := ge.vals[v]; ok {
		return x, nil
	}
	if ge.failed[v] {
		return nil, errNotInSpan
	}
	if ge.budget == 0 {
		return nil, errBudget
	}
	if ge.budget > 0 {
		ge.budget--
	}
	x, err := ge.compute(v)
	if err == errNotInSpan {
		ge.failed[v] = true
	}
	if err != nil {
		return nil, err
	}
	ge.vals[v] = x
	return x, nil
}

func (ge *groupEval) compute(v int32) ([]uint64, error) {
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
