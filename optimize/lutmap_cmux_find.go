package optimize

import (
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// Finding MUX functions for the CMux rewrite (lutmap_cmux.go). Every gate
// gets its cuts of at most three leaves (merged from its fanins' cuts, as
// the LUT mapper's, but small and few), and a node is a MUX root if its
// function over some 3-leaf cut is s ? a : b with a, b and the output
// possibly negated (¬MUX(s, a, b) = MUX(s, ¬a, ¬b), so output negation
// moves onto the data). A node with several such cuts takes the one whose
// select is shared by the most roots, so groups come out as large as they
// can. Selects and data literals are seen through NOT chains, with
// MUX(¬s, a, b) = MUX(s, b, a).
//
// A node whose function the target cannot evaluate in one bootstrap (two,
// then, as AND and XOR) is also a root when one cofactor on s is a literal
// and the other a two-input function g: the CMux then reads a new gate g,
// one bootstrap instead of two. Restoring division selects between r and
// r - d as r ⊕ (¬b ∧ (d ⊕ c)), i.e. MUX(b, r, r ⊕ (d ⊕ c)): the
// difference bit r ⊕ (d ⊕ c) is such a g.
//
// An XOR is a MUX too: s ⊕ x = MUX(s, ¬x, x). Non-restoring division
// (Bristol's divide64) adds or subtracts the divisor in each row, as the
// divisor bits XORed with the row's control bit, and each of these XORs
// is a bootstrap where it feeds the adder's carry; as CMuxes on one select
// per row they cost nothing.
//
// So are the AND/OR family with a constant data input: s ∨ x = MUX(s, 1, x),
// s ∧ x = MUX(s, x, 0). argmax's index update idx = gt ? j : idx is folded
// to such gates on the same select gt as the value's MUXes.

// Kinds of MUX roots findMuxes reports besides plain MUX functions.
const (
	muxGates  = 1 << iota // one cofactor a two-input gate (above)
	muxXors               // s ⊕ x as MUX(s, ¬x, x)
	muxConsts             // s ∨ x = MUX(s, 1, x), s ∧ x = MUX(s, x, 0), ...
)

// muxCand is a MUX root: s ? A : B with A = a ⊕ na, or the gate
// at(a, a2) when a2 >= 0 (a two-input table, a least significant), and B
// likewise.
type muxCand struct {
	s, a, b ir.NodeID
	na, nb  bool
	a2, b2  ir.NodeID
	at, bt  uint8
	xor     bool // an XOR root: a == b
	ca, cb  int8 // a constant data input: 1 for false, 2 for true (a or b is then -1)
	ok      bool
	root    ir.NodeID
}

// saving is the bootstraps the CMux saves on the root: a MUX is two, a
// root with a gate cofactor still pays the gate.
func (mc *muxCand) saving() int {
	if mc.a2 >= 0 || mc.b2 >= 0 || mc.xor || mc.ca != 0 || mc.cb != 0 {
		return 1
	}
	return 2
}

// cut3 is a cut of at most three leaves (sorted) and the root's function
// over them (8-bit truth table, leaf 0 least significant).
type cut3 struct {
	l [3]ir.NodeID
	n int8
	t uint8
}

// maxCuts3 is how many small cuts each node keeps.
const maxCuts3 = 8

// proj3 are the three variables' truth tables over 8 minterms.
var proj3 = [3]uint64{0xaa, 0xcc, 0xf0}

// findMuxes returns, per node, the MUX decomposition chosen for it, of
// plain MUX functions and the given kinds (muxGates, muxXors, muxConsts); target says
// which 3-input functions are one bootstrap (nil: none).
func findMuxes(c *ir.Circuit, target LUTTarget, kinds int) []muxCand {
	return chooseMuxes(muxCandidates(c, target, kinds), func(int, *muxCand) int { return 1 })
}

// muxCandidates returns every node's MUX decompositions (see findMuxes).
func muxCandidates(c *ir.Circuit, target LUTTarget, kinds int) [][]muxCand {
	n := len(c.Nodes)
	cuts := make([][]cut3, n)
	cands := make([][]muxCand, n)
	var fan []ir.NodeID
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		if !nd.Op.IsGate() || isBoundary(nd.Op) {
			continue
		}
		table, lin, isTable := nd.TableView()
		fan = append(fan[:0], nd.In...)
		if isTable {
			fan = append(fan[:0], lin...)
		}
		if len(fan) > 3 {
			continue // wide nodes: only a leaf of their consumers' cuts
		}
		var got []cut3
		var merge func(j int, leaves []ir.NodeID, pick []cut3)
		merge = func(j int, leaves []ir.NodeID, pick []cut3) {
			if j == len(fan) {
				ct, ok := evalCut3(nd.Op, table, isTable, leaves, pick)
				if !ok {
					return
				}
				for _, g := range got {
					if g.n == ct.n && g.l == ct.l {
						return
					}
				}
				got = append(got, ct)
				return
			}
			f := fan[j]
			opts := append([]cut3{{l: [3]ir.NodeID{f}, n: 1, t: 0b10}}, cuts[f]...)
			for _, fc := range opts {
				if len(got) >= maxCuts3 {
					return
				}
				u, ok := union3(leaves, fc.l[:fc.n])
				if !ok {
					continue
				}
				merge(j+1, u, append(pick, fc))
			}
		}
		merge(0, nil, nil)
		cuts[i] = got
		for _, ct := range got {
			switch {
			case ct.n == 3:
				gates := kinds&muxGates != 0 &&
					(target == nil || target.MaxLUTInputs() < 3 || !target.CanEvalLUT(uint64(ct.t), 3))
				if mc, ok := muxOf(c, ct, gates); ok {
					cands[i] = append(cands[i], mc)
				}
			case ct.n == 2 && kinds&muxConsts != 0 && ct.t != 0x6 && ct.t != 0x9:
				// Two-leaf functions of both leaves but XOR: one cofactor a
				// constant, the other a literal of the other leaf.
				for o := 0; o < 2; o++ {
					f1, f0 := cofactor(uint64(ct.t), 2, o, true)&3, cofactor(uint64(ct.t), 2, o, false)&3
					s, sn := throughNots(c, ct.l[o])
					x, xn := throughNots(c, ct.l[1-o])
					if s == x {
						continue
					}
					if sn {
						f1, f0 = f0, f1
					}
					mc := muxCand{s: s, a: x, b: x, a2: -1, b2: -1, ok: true}
					data := func(f uint64, neg *bool, cst *int8, leaf *ir.NodeID) {
						switch f {
						case 0b00, 0b11:
							*cst, *leaf = int8(f&1)+1, -1
						default: // 0b10 = x, 0b01 = ¬x
							*neg = (f == 0b01) != xn
						}
					}
					if (f1 == 0b00 || f1 == 0b11) == (f0 == 0b00 || f0 == 0b11) {
						continue // both constant or both literals: not this kind
					}
					data(f1, &mc.na, &mc.ca, &mc.a)
					data(f0, &mc.nb, &mc.cb, &mc.b)
					cands[i] = append(cands[i], mc)
				}
			case ct.n == 2 && kinds&muxXors != 0 && (ct.t == 0x6 || ct.t == 0x9):
				for o := 0; o < 2; o++ {
					s, sn := throughNots(c, ct.l[o])
					x, xn := throughNots(c, ct.l[1-o])
					inv := (ct.t == 0x9) != sn != xn // f = s ⊕ x ⊕ inv
					if s != x {
						cands[i] = append(cands[i], muxCand{s: s, a: x, na: !inv, b: x, nb: inv, a2: -1, b2: -1, xor: true, ok: true})
					}
				}
			}
		}
	}
	for i := range cands {
		for j := range cands[i] {
			cands[i][j].root = ir.NodeID(i)
		}
	}
	return cands
}

// chooseMuxes picks one decomposition per node: the one whose select has
// the largest total weight over all roots (each root counting its best
// candidate on that select), ties to the larger saving. Candidates of
// weight 0 are never picked.
func chooseMuxes(cands [][]muxCand, weight func(i int, mc *muxCand) int) []muxCand {
	count := map[ir.NodeID]int{}
	for i := range cands {
		best := map[ir.NodeID]int{}
		for j := range cands[i] {
			mc := &cands[i][j]
			best[mc.s] = max(best[mc.s], weight(i, mc))
		}
		for s, w := range best {
			count[s] += w
		}
	}
	out := make([]muxCand, len(cands))
	for i := range cands {
		for _, mc := range cands[i] {
			if weight(i, &mc) <= 0 {
				continue
			}
			if !out[i].ok || count[mc.s] > count[out[i].s] ||
				(count[mc.s] == count[out[i].s] && mc.saving() > out[i].saving()) {
				out[i] = mc
			}
		}
	}
	return out
}

// union3 merges leaf sets (sorted, distinct) if the union has at most 3.
func union3(a, b []ir.NodeID) ([]ir.NodeID, bool) {
	u := append([]ir.NodeID(nil), a...)
	for _, x := range b {
		if !slices.Contains(u, x) {
			if len(u) == 3 {
				return nil, false
			}
			u = append(u, x)
		}
	}
	slices.Sort(u)
	return u, true
}

// evalCut3 computes the root's function over leaves from the fanins' cuts
// (pick[j] is fanin j's) and drops the leaves it does not depend on.
func evalCut3(op ir.Op, table uint64, isTable bool, leaves []ir.NodeID, pick []cut3) (cut3, bool) {
	var in [3]uint64
	for j, fc := range pick {
		var vars [3]uint64
		for v := 0; v < int(fc.n); v++ {
			vars[v] = proj3[slices.Index(leaves, fc.l[v])]
		}
		in[j] = ir.EvalTable(uint64(fc.t), vars[:fc.n])
	}
	var t uint64
	if isTable {
		t = ir.EvalTable(table, in[:len(pick)])
	} else {
		t = ir.EvalGate(op, table, in[:len(pick)])
	}
	k := len(leaves)
	t = maskTable(t, k)
	var ct cut3
	for j := 0; j < k; {
		lo, hi := cofactor(t, k, j, false), cofactor(t, k, j, true)
		if lo == hi {
			t = lo
			leaves = append(leaves[:j:j], leaves[j+1:]...)
			k--
			continue
		}
		j++
	}
	ct.n = int8(k)
	copy(ct.l[:], leaves)
	ct.t = uint8(t)
	return ct, true
}

// muxOf recognises a 3-leaf function as a MUX up to negations (with
// gates, also with one cofactor a two-input function, see above) and
// normalises its select and data literals through NOT chains.
func muxOf(c *ir.Circuit, ct cut3, gates bool) (muxCand, bool) {
	t := uint64(ct.t)
	for s := 0; s < 3; s++ {
		var rest [2]int // the other two leaves, in order
		r := 0
		for v := 0; v < 3; v++ {
			if v != s {
				rest[r] = v
				r++
			}
		}
		f1, f0 := cofactor(t, 3, s, true)&0xf, cofactor(t, 3, s, false)&0xf
		p, np, ok1 := literal2(f1)
		q, nq, ok0 := literal2(f0)
		mc := muxCand{s: ct.l[s], a: ct.l[rest[p]], b: ct.l[rest[q]], na: np, nb: nq, a2: -1, b2: -1, ok: true}
		switch {
		case ok1 && ok0 && p != q:
		case gates && ok1 && !ok0 && twoInput(f0):
			mc.b, mc.b2, mc.bt, mc.nb = ct.l[rest[0]], ct.l[rest[1]], uint8(f0), false
		case gates && ok0 && !ok1 && twoInput(f1):
			mc.a, mc.a2, mc.at, mc.na = ct.l[rest[0]], ct.l[rest[1]], uint8(f1), false
		default:
			continue
		}
		if mc.a2 >= 0 || mc.b2 >= 0 { // the gate's leaves stay as they are
			var ns bool
			if mc.s, ns = throughNots(c, mc.s); ns {
				mc.a, mc.b, mc.na, mc.nb = mc.b, mc.a, mc.nb, mc.na
				mc.a2, mc.b2, mc.at, mc.bt = mc.b2, mc.a2, mc.bt, mc.at
			}
			return mc, true
		}
		var ns bool
		mc.s, ns = throughNots(c, mc.s)
		mc.a, mc.na = throughNotsFlip(c, mc.a, mc.na)
		mc.b, mc.nb = throughNotsFlip(c, mc.b, mc.nb)
		if ns { // MUX(¬s, a, b) = MUX(s, b, a)
			mc.a, mc.b, mc.na, mc.nb = mc.b, mc.a, mc.nb, mc.na
		}
		if mc.a == mc.b || mc.s == mc.a || mc.s == mc.b {
			return muxCand{}, false
		}
		return mc, true
	}
	return muxCand{}, false
}

// twoInput reports whether a 2-variable table depends on both variables.
func twoInput(t uint64) bool {
	return cofactor(t, 2, 0, false) != cofactor(t, 2, 0, true) && cofactor(t, 2, 1, false) != cofactor(t, 2, 1, true)
}

// literal2 reports whether a 2-variable table is a literal: variable v,
// negated or not.
func literal2(t uint64) (v int, neg, ok bool) {
	switch t & 0xf {
	case 0b1010:
		return 0, false, true
	case 0b0101:
		return 0, true, true
	case 0b1100:
		return 1, false, true
	case 0b0011:
		return 1, true, true
	}
	return 0, false, false
}

// throughNots follows a NOT chain from x to its base and reports whether
// an odd number of NOTs was passed.
func throughNots(c *ir.Circuit, x ir.NodeID) (ir.NodeID, bool) {
	neg := false
	for c.Nodes[x].Op == ir.OpNot {
		x, neg = c.Nodes[x].In[0], !neg
	}
	return x, neg
}

func throughNotsFlip(c *ir.Circuit, x ir.NodeID, neg bool) (ir.NodeID, bool) {
	y, n := throughNots(c, x)
	return y, n != neg
}
