package stdlib

import (
	"fmt"
	"math/bits"

	"github.com/hcc-fhe/hcc/ir"
)

// Mul returns the low len(x) bits of x*y (the same for signed and unsigned
// operands). x and y must have equal lengths.
//
// SizeOptimized is an array multiplier: partial-product rows added one after
// another with ripple-carry adders. DepthOptimized compresses the partial
// products with a Dadda tree of full and half adders, then adds the last two
// rows with a Sklansky adder.
func Mul(b *ir.Builder, x, y []ir.NodeID, s Style) []ir.NodeID {
	mustSameLen("Mul", x, y)
	n := len(x)
	if s != DepthOptimized {
		acc := zeros(b, n)
		for j := 0; j < n; j++ {
			row := zeros(b, n)
			for i := 0; i+j < n; i++ {
				row[i+j] = b.And(x[i], y[j])
			}
			acc, _ = addRipple(b, acc, row, b.Const(false))
		}
		return acc
	}
	cols := make([][]ir.NodeID, n)
	for j := 0; j < n; j++ {
		for i := 0; i+j < n; i++ {
			cols[i+j] = append(cols[i+j], b.And(x[i], y[j]))
		}
	}
	r0, r1 := twoRows(b, dadda(b, cols))
	sum, _ := addSklansky(b, r0, r1, b.Const(false))
	return sum
}

// compress reduces every column of a carry-save sum (cols[k] holds bits of
// weight 2^k) to at most height bits (1 or 2), from the least significant
// column up, with full adders (and half adders when height is 1), taking bits
// in arrival order. Carries out of the last column are dropped: callers work
// modulo 2^len(cols). This is the gate-frugal reduction; its AND-depth grows
// with the number of columns because each column's last adder waits for the
// previous column's last carry.
func compress(b *ir.Builder, cols [][]ir.NodeID, height int) {
	for k := range cols {
		col := cols[k]
		for len(col) > height {
			var s, c ir.NodeID
			if len(col) == 2 { // only when height is 1
				s, c = b.Xor(col[0], col[1]), b.And(col[0], col[1])
				col = append(col[:0], s)
			} else {
				s, c = fullAdder(b, col[0], col[1], col[2])
				col = append(col[3:], s)
			}
			if k+1 < len(cols) {
				cols[k+1] = append(cols[k+1], c)
			}
		}
		cols[k] = col
	}
}

// dadda reduces the columns to height at most 2 with Dadda's schedule: stage
// targets ..., 13, 9, 6, 4, 3, 2 (each ⌊1.5×⌋ the next), and in each stage a
// column only combines bits produced by earlier stages. Every stage adds one
// AND level, so the depth is logarithmic in the tallest column. Carries out
// of the last column are dropped (arithmetic modulo 2^len(cols)).
func dadda(b *ir.Builder, cols [][]ir.NodeID) [][]ir.NodeID {
	tallest := 0
	for _, col := range cols {
		tallest = max(tallest, len(col))
	}
	targets := []int{2}
	for t := 2; t*3/2 < tallest; {
		t = t * 3 / 2
		targets = append(targets, t)
	}
	for ti := len(targets) - 1; ti >= 0; ti-- {
		h := targets[ti]
		next := make([][]ir.NodeID, len(cols))
		for k, avail := range cols {
			carry := func(c ir.NodeID) {
				if k+1 < len(cols) {
					next[k+1] = append(next[k+1], c)
				}
			}
			for height := len(avail) + len(next[k]); height > h; {
				switch {
				case height-h >= 2 && len(avail) >= 3:
					s, c := fullAdder(b, avail[0], avail[1], avail[2])
					avail = avail[3:]
					next[k] = append(next[k], s)
					carry(c)
					height -= 2
				case len(avail) >= 2:
					next[k] = append(next[k], b.Xor(avail[0], avail[1]))
					carry(b.And(avail[0], avail[1]))
					avail = avail[2:]
					height--
				default:
					panic(fmt.Sprintf("internal error in stdlib.dadda: column %d cannot reach height %d", k, h))
				}
			}
			next[k] = append(next[k], avail...)
		}
		cols = next
	}
	return cols
}

// twoRows splits columns of height <= 2 into two addends.
func twoRows(b *ir.Builder, cols [][]ir.NodeID) (r0, r1 []ir.NodeID) {
	r0, r1 = zeros(b, len(cols)), zeros(b, len(cols))
	for k, col := range cols {
		if len(col) > 0 {
			r0[k] = col[0]
		}
		if len(col) > 1 {
			r1[k] = col[1]
		}
	}
	return r0, r1
}

// Popcount returns the number of set bits of x, bits.Len(len(x)) bits wide
// (0 bits for an empty x). The size style sums the bits with a chain of
// full adders per column; the depth style uses a Dadda tree and a Sklansky
// adder for the last two rows.
func Popcount(b *ir.Builder, x []ir.NodeID, s Style) []ir.NodeID {
	w := bits.Len(uint(len(x)))
	if w == 0 {
		return nil
	}
	cols := make([][]ir.NodeID, w)
	cols[0] = append([]ir.NodeID(nil), x...)
	if s == DepthOptimized {
		r0, r1 := twoRows(b, dadda(b, cols))
		out, _ := addSklansky(b, r0, r1, b.Const(false))
		return out
	}
	compress(b, cols, 1)
	out := make([]ir.NodeID, w)
	for k, col := range cols {
		switch len(col) {
		case 0:
			out[k] = b.Const(false)
		case 1:
			out[k] = col[0]
		default:
			panic(fmt.Sprintf("internal error in stdlib.Popcount: column %d has %d bits", k, len(col)))
		}
	}
	return out
}
