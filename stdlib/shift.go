package stdlib

import (
	"fmt"

	"github.com/hcc-fhe/hcc/ir"
)

// ShiftLeftVar returns x << amount (amount unsigned, len(x) bits kept) as a
// logarithmic barrel shifter; an amount >= len(x) gives 0.
func ShiftLeftVar(b *ir.Builder, x, amount []ir.NodeID) []ir.NodeID {
	return barrel(b, x, amount, true, b.Const(false))
}

// ShiftRightVar returns x >> amount (amount unsigned). Arithmetic shifts fill
// with the sign bit x[len(x)-1], logical ones with 0; an amount >= len(x)
// gives all fill bits (0, or -1 for a negative arithmetic operand).
func ShiftRightVar(b *ir.Builder, x, amount []ir.NodeID, arithmetic bool) []ir.NodeID {
	fill := b.Const(false)
	if arithmetic && len(x) > 0 {
		fill = x[len(x)-1]
	}
	return barrel(b, x, amount, false, fill)
}

// barrel shifts by 2^k under amount bit k, for every k with 2^k < len(x);
// the higher amount bits can only push everything out, so they are ORed
// into one overflow bit that selects the fill value at the end.
func barrel(b *ir.Builder, x, amount []ir.NodeID, left bool, fill ir.NodeID) []ir.NodeID {
	n := len(x)
	cur := append([]ir.NodeID(nil), x...)
	var over []ir.NodeID
	for k, a := range amount {
		if k >= 62 || 1<<k >= n {
			over = append(over, a)
			continue
		}
		step := 1 << k
		next := make([]ir.NodeID, n)
		for i := range next {
			src := i + step
			if left {
				src = i - step
			}
			moved := fill
			if src >= 0 && src < n {
				moved = cur[src]
			}
			next[i] = b.Mux(a, moved, cur[i])
		}
		cur = next
	}
	if len(over) > 0 {
		o := orTree(b, over)
		for i := range cur {
			cur[i] = b.Mux(o, fill, cur[i])
		}
	}
	return cur
}

// SelectIndex returns elems[index] as a mux tree over the index bits
// (least significant first). All elements must have the same width. An
// out-of-range index (index >= len(elems)) yields all-zero bits: the tree is
// padded with zero elements, which the builder folds away.
func SelectIndex(b *ir.Builder, elems [][]ir.NodeID, index []ir.NodeID) []ir.NodeID {
	if len(elems) == 0 {
		panic("stdlib.SelectIndex: no elements")
	}
	w := len(elems[0])
	for i, e := range elems {
		if len(e) != w {
			panic(fmt.Sprintf("stdlib.SelectIndex: element %d has width %d, element 0 has %d", i, len(e), w))
		}
	}
	zero := zeros(b, w)
	level := elems
	var over []ir.NodeID
	for _, bit := range index {
		if len(level) == 1 {
			// Every remaining index bit must be 0 to stay in range.
			over = append(over, bit)
			continue
		}
		next := make([][]ir.NodeID, (len(level)+1)/2)
		for i := range next {
			lo := level[2*i]
			hi := zero
			if 2*i+1 < len(level) {
				hi = level[2*i+1]
			}
			next[i] = MuxVec(b, bit, hi, lo)
		}
		level = next
	}
	if len(level) > 1 {
		// Fewer index bits than needed to address every element: the
		// addressable ones are the first 2^len(index) elements.
		return level[0]
	}
	out := level[0]
	if len(over) > 0 {
		out = MuxVec(b, orTree(b, over), zero, out)
	}
	return out
}
