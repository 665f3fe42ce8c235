package optimize

import (
	"cmp"
	"slices"

	"github.com/hcc-fhe/hcc/ir"
)

// Parity cuts. An FHEW bootstrap evaluates the parity of many bits at once
// (backend/fhew: weights P/2, margin 1/4), far more than the six inputs a
// LUT cut may have. So for every linear node (XOR, XNOR, PARITY, and NOT of
// one) the mapper also enumerates parity cuts: sets of leaves whose XOR, or
// its complement, is the node's function. They are built like priority cuts,
// by combining one option per fanin, each either the fanin itself as a leaf
// or one of its parity cuts, with XOR's symmetric difference (a leaf reached
// twice cancels). Leaves are non-linear nodes, or linear ones where a cut
// stops, e.g. at a shared XOR. A parity cut of at most K leaves costs one
// bootstrap and competes with the k-feasible cuts in area flow and exact
// area recovery; the cover emits it as one PARITY node (and a free NOT).
// AES's linear layers (MixColumns, AddRoundKey, the S-box's linear parts)
// are wide XOR cones feeding AND gates: each cone becomes one bootstrap.
// Priority cuts alone keep stopping at shared XORs, so the mapper first
// linearises the cones (linearize, below); LUTMap maps that circuit and the
// plain one and keeps the cheaper cover.

// ParityTarget is implemented by targets that evaluate the parity of up to
// MaxParityInputs bits in one bootstrap (one ir.OpParity node).
type ParityTarget interface {
	MaxParityInputs() int
}

// maxParityCuts is how many parity cuts each linear node keeps.
const maxParityCuts = 8

// linearForm returns the fanins whose XOR (complemented if inv) is node
// nd's function, and whether nd is linear at all: XOR, XNOR, PARITY, NOT,
// and LUTs with an affine table (fanins outside the affine part dropped).
func linearForm(nd *ir.Node) (fanins []ir.NodeID, inv, ok bool) {
	switch nd.Op {
	case ir.OpXor, ir.OpParity:
		return nd.In, false, true
	case ir.OpXnor, ir.OpNot:
		return nd.In, true, true
	case ir.OpLUT:
		k := len(nd.In)
		if !ir.IsAffineLUT(nd.Table, k) {
			return nil, false, false
		}
		anf := ir.ANF(nd.Table, k)
		for j := 0; j < k; j++ {
			if anf>>(uint(1)<<uint(j))&1 == 1 {
				fanins = append(fanins, nd.In[j])
			}
		}
		return fanins, anf&1 == 1, true
	}
	return nil, false, false
}

// parityBeam is how many partial leaf sets the enumeration keeps after
// each fanin of a wide node.
const parityBeam = 2 * maxParityCuts

// parityCuts enumerates the parity cuts of linear node i; fanins' cuts are
// final. Each has its leaves (sorted) in wide, the complement flag in inv,
// and a truth table when it has at most ir.MaxLUTInputs leaves, so that
// k-feasible cuts of later nodes can absorb it like any cut. Fanins are
// combined one at a time; for nodes with more than two fanins only the
// parityBeam smallest partial sets are kept after each (two-input XORs, the
// bulk, see every combination).
func (m *mapper) parityCuts(i ir.NodeID, nd *ir.Node) []cut {
	fanins, inv, ok := linearForm(nd)
	if !ok {
		return nil
	}
	sc := &m.par
	beam := append(sc.beam[:0], parityPartial{inv: inv})
	next := sc.next[:0]
	side := 0
	for _, f := range fanins {
		next = next[:0]
		buf := sc.arena[side][:0] // the beam's leaves live in the other arena
		opts := m.parityOptions(f)
		for _, p := range beam {
			for _, o := range opts {
				start := len(buf)
				buf = appendSymDiff(buf, p.leaves, o.leaves)
				next = append(next, parityPartial{buf[start:len(buf):len(buf)], p.inv != o.inv})
			}
		}
		sc.arena[side], side = buf, 1-side
		if len(fanins) > 2 && len(next) > parityBeam {
			// "cmp < 0" exactly where sort.SliceStable's less held: the
			// same stable order (as in prune, lutmap.go).
			slices.SortStableFunc(next, func(a, b parityPartial) int {
				if len(a.leaves) < len(b.leaves) {
					return -1
				}
				return 1
			})
			next = next[:parityBeam]
		}
		beam, next = next, beam
	}
	sc.beam, sc.next = beam, next
	cand := sc.cand[:0]
	for _, p := range beam {
		if len(p.leaves) <= m.parK {
			cand = append(cand, m.finishParity(p.leaves, p.inv))
		}
	}
	slices.SortStableFunc(cand, func(a, b cut) int {
		if better(&a, &b) {
			return -1
		}
		return 1
	})
	kept := cand[:0]
	for _, c := range cand {
		dup := false
		for _, k := range kept {
			if sameLeaves(k.wide, c.wide) {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, c)
			if len(kept) == maxParityCuts {
				break
			}
		}
	}
	sc.cand = cand
	out := append([]cut(nil), kept...)
	for j := range out {
		out[j].wide = slices.Clone(out[j].wide) // off the arenas, which the next call reuses
	}
	return out
}

// parityPartial is a partial parity cut of parityCuts: sorted leaves and
// the complement flag.
type parityPartial struct {
	leaves []ir.NodeID
	inv    bool
}

// parityScratch holds parityCuts' buffers from call to call: each fanin
// step writes its symmetric differences into one of two arenas (the beam
// it extends lives in the other), and only the kept cuts' leaves are
// copied out, instead of one new slice per partial set (which was half of
// the bytes a mapping allocated).
type parityScratch struct {
	arena      [2][]ir.NodeID
	beam, next []parityPartial
	cand       []cut
}

type parityOption struct {
	leaves []ir.NodeID
	inv    bool
}

// parityOptions are the ways fanin f enters a parity cut: as a leaf (a NOT
// as its input, complemented, so that x and ¬x cancel), or through one of
// its parity cuts.
func (m *mapper) parityOptions(f ir.NodeID) []parityOption {
	leaf, inv := f, false
	for m.c.Nodes[leaf].Op == ir.OpNot {
		leaf, inv = m.c.Nodes[leaf].In[0], !inv
	}
	opts := []parityOption{{leaves: []ir.NodeID{leaf}, inv: inv}}
	for j := range m.cuts[f] {
		if c := &m.cuts[f][j]; c.parity {
			opts = append(opts, parityOption{leaves: c.wide, inv: c.inv})
		}
	}
	return opts
}

// finishParity costs a parity cut over leaves (sorted, distinct).
func (m *mapper) finishParity(leaves []ir.NodeID, inv bool) cut {
	c := cut{wide: leaves, n: int8(len(leaves)), parity: true, inv: inv, feasible: true}
	switch {
	case c.n <= 1:
		c.cost = 0 // constant, wire or NOT
	default:
		c.cost = 1
	}
	if c.n <= ir.MaxLUTInputs {
		copy(c.leaves[:], leaves)
		var t uint64
		for v := 0; v < int(c.n); v++ {
			t ^= projections[v]
		}
		if inv {
			t = ^t
		}
		c.table = maskTable(t, int(c.n))
	}
	m.score(&c, leaves)
	return c
}

// symDiff returns the sorted symmetric difference of two sorted id lists.
func symDiff(a, b []ir.NodeID) []ir.NodeID {
	return appendSymDiff(make([]ir.NodeID, 0, len(a)+len(b)), a, b)
}

// appendSymDiff appends the sorted symmetric difference of the sorted lists
// a and b to out (node ids here, a wide plan's term lists in widemap).
func appendSymDiff[T cmp.Ordered](out, a, b []T) []T {
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

func sameLeaves(a, b []ir.NodeID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// addParityCuts appends node i's parity cuts to its k-feasible ones and
// returns the index of the best feasible cut of the union. A k-feasible cut
// with the same leaves computes the same function: it is marked as a parity
// cut instead (so that linear fanouts can extend it), not duplicated.
func (m *mapper) addParityCuts(i ir.NodeID, nd *ir.Node, best int32) int32 {
	for _, pc := range m.parityCuts(i, nd) {
		dup := false
		for j := range m.cuts[i] {
			c := &m.cuts[i][j]
			if int(c.n) == len(pc.wide) && sameLeaves(c.leafSlice(), pc.wide) {
				if c.feasible && !c.parity {
					c.parity, c.inv, c.wide = true, pc.inv, pc.wide
				}
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		m.cuts[i] = append(m.cuts[i], pc)
		if best < 0 || better(&pc, &m.cuts[i][best]) {
			best = int32(len(m.cuts[i]) - 1)
		}
	}
	return best
}

// emitParity emits a parity cut: XOR for two leaves, PARITY for more, and
// a free NOT for the complement.
func emitParity(b *ir.Builder, c *cut, leaves []ir.NodeID) ir.NodeID {
	// Two leaves may have become one node (hashing): they cancel.
	slices.Sort(leaves)
	k := 0
	for _, l := range leaves {
		if k > 0 && leaves[k-1] == l {
			k--
			continue
		}
		leaves[k] = l
		k++
	}
	leaves = leaves[:k]
	var r ir.NodeID
	switch len(leaves) {
	case 0:
		return b.Const(c.inv)
	case 1:
		r = leaves[0]
	case 2:
		r = b.Xor(leaves[0], leaves[1])
	default:
		r = b.Parity(leaves...)
	}
	if c.inv {
		r = b.Not(r)
	}
	return r
}

// splitWideParity rewrites PARITY nodes wider than K as XOR chains.
func splitWideParity(c *ir.Circuit, K int) (*ir.Circuit, error) {
	needed := false
	for i := range c.Nodes {
		if n := &c.Nodes[i]; n.Op == ir.OpParity && len(n.In) > K {
			needed = true
			break
		}
	}
	if !needed {
		return c, nil
	}
	return rebuild(c, func(b *ir.Builder, n *ir.Node, in []ir.NodeID) ir.NodeID {
		if n.Op == ir.OpParity && len(in) > K {
			r := in[0]
			for _, x := range in[1:] {
				r = b.Xor(r, x)
			}
			return r
		}
		return emitSame(b, n, in)
	})
}

// linearize rewrites the circuit's XOR network for a target with parities
// of up to K inputs. Every linear node (linearForm) is expanded over its
// non-linear leaves (AND-like gates, inputs, and "materialised" linear
// nodes) by symmetric difference; when an expansion would exceed K leaves,
// linear fanins are materialised (become leaves, materialiseFirst) until it
// fits. Then each linear node that a non-linear gate or an
// output reads, and each materialised one, is emitted as one PARITY node
// over its leaves (a free NOT for the complement); the XOR trees in between
// disappear. Area flow alone does not find this cover: a shared XOR looks
// cheap to every cut that stops at it, while what matters is that no XOR
// between two bootstrapped values needs a bootstrap of its own when the
// whole cone fits one parity. Cones of at most small leaves are left as
// they are: the mapper's k-feasible cuts handle them, e.g. merging an XOR
// with an AND into one LUT.
func linearize(c *ir.Circuit, K, small int) (*ir.Circuit, error) {
	n := len(c.Nodes)
	lin := make([]bool, n)
	for i := range c.Nodes {
		_, _, lin[i] = linearForm(&c.Nodes[i])
	}
	keep := make([]bool, n) // read by a non-linear gate or an output, or materialised
	for i := range c.Nodes {
		if nd := &c.Nodes[i]; nd.Op.IsGate() && !lin[i] {
			for _, x := range nd.In {
				keep[x] = lin[x]
			}
		}
	}
	for _, bus := range c.Outputs {
		for _, x := range bus.Bits {
			keep[x] = keep[x] || lin[x]
		}
	}
	exp := make([][]ir.NodeID, n)
	inv := make([]bool, n)
	mat := make([]bool, n)
	for i := range c.Nodes {
		if !lin[i] {
			continue
		}
		fanins, iv, _ := linearForm(&c.Nodes[i])
		for {
			var s []ir.NodeID
			flip := iv
			widest := ir.NodeID(-1)
			for _, f := range fanins {
				if lin[f] && !mat[f] {
					s = symDiff(s, exp[f])
					flip = flip != inv[f]
					if widest < 0 || materialiseFirst(f, widest, exp, keep) {
						widest = f
					}
				} else {
					s = symDiff(s, []ir.NodeID{f})
				}
			}
			if len(s) <= K || widest < 0 {
				exp[i], inv[i] = s, flip
				break
			}
			mat[widest], keep[widest] = true, true
		}
	}
	b := ir.NewBuilder(c.Name)
	return rebuildMapped(c, b, func(i ir.NodeID, m []ir.NodeID) ir.NodeID {
		nd := &c.Nodes[i]
		if !lin[i] {
			in := make([]ir.NodeID, len(nd.In))
			for j, x := range nd.In {
				in[j] = m[x]
			}
			return emitSame(b, nd, in)
		}
		if len(exp[i]) <= small {
			// Narrow cones stay as they are: k-feasible cuts see through
			// them (constant and repeated leaves, XORs merged with ANDs).
			mapped := true
			in := make([]ir.NodeID, len(nd.In))
			for j, x := range nd.In {
				in[j] = m[x]
				mapped = mapped && in[j] >= 0
			}
			if mapped {
				return emitSame(b, nd, in)
			}
		} else if !keep[i] {
			return -1 // inside a wide cone: only its expansion is used
		}
		leaves := make([]ir.NodeID, len(exp[i]))
		for j, l := range exp[i] {
			leaves[j] = m[l]
		}
		if len(leaves) > K { // a fanin-bound cone wider than K: an XOR chain
			r := leaves[0]
			for _, l := range leaves[1:] {
				r = b.Xor(r, l)
			}
			if inv[i] {
				r = b.Not(r)
			}
			return r
		}
		r := b.Parity(leaves...)
		if inv[i] {
			r = b.Not(r)
		}
		return r
	})
}

// materialiseFirst orders the candidates for materialisation: a node that is
// kept anyway (read by a non-linear gate or an output) costs nothing extra,
// so it goes first; then the widest expansion, which shrinks the sum most.
// (aes_128 on STD128_LOWFAIL_T, K = 64 / 50 / 36: 14649 / 15141 / 15750
// bootstraps, against 14696 / 15196 / 15831 for the widest alone.)
func materialiseFirst(f, g ir.NodeID, exp [][]ir.NodeID, keep []bool) bool {
	if keep[f] != keep[g] {
		return keep[f]
	}
	return len(exp[f]) > len(exp[g])
}
