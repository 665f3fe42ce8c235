package stdlib

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

var styles = []Style{SizeOptimized, DepthOptimized}

func same(n int) func(int) []int {
	return func(w int) []int {
		r := make([]int, n)
		for i := range r {
			r[i] = w
		}
		return r
	}
}

// opCases lists every vector generator with a Go reference.
var opCases = []opCase{
	{"Add", func(n int) []int { return []int{n, n, 1} },
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			sum, c := Add(b, in[0], in[1], in[2][0], s)
			return [][]ir.NodeID{sum, {c}}
		},
		func(in []uint64, n int) []uint64 {
			sum, carry := bits.Add64(in[0], in[1], in[2])
			if n < 64 {
				carry = sum >> uint(n) & 1
			}
			return []uint64{sum, carry}
		}},
	{"Sub", same(2),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			return [][]ir.NodeID{Sub(b, in[0], in[1], s)}
		},
		func(in []uint64, n int) []uint64 { return []uint64{in[0] - in[1]} }},
	{"Neg", same(1),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID { return [][]ir.NodeID{Neg(b, in[0], s)} },
		func(in []uint64, n int) []uint64 { return []uint64{-in[0]} }},
	{"Mul", same(2),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			return [][]ir.NodeID{Mul(b, in[0], in[1], s)}
		},
		func(in []uint64, n int) []uint64 { return []uint64{in[0] * in[1]} }},
	{"Compare", same(2),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			x, y := in[0], in[1]
			return [][]ir.NodeID{{Equal(b, x, y)}, {Less(b, x, y, false, s)}, {Less(b, x, y, true, s)},
				{LessEqual(b, x, y, false, s)}, {LessEqual(b, x, y, true, s)}}
		},
		func(in []uint64, n int) []uint64 {
			x, y := in[0], in[1]
			sx, sy := sx(x, n), sx(y, n)
			return []uint64{b2u(x == y), b2u(x < y), b2u(sx < sy), b2u(x <= y), b2u(sx <= sy)}
		}},
	{"MuxVec", func(n int) []int { return []int{1, n, n} },
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			return [][]ir.NodeID{MuxVec(b, in[0][0], in[1], in[2])}
		},
		func(in []uint64, n int) []uint64 {
			if in[0] == 1 {
				return []uint64{in[1]}
			}
			return []uint64{in[2]}
		}},
	{"Shift", func(n int) []int { return []int{n, 8} },
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			return [][]ir.NodeID{ShiftLeftVar(b, in[0], in[1]), ShiftRightVar(b, in[0], in[1], false),
				ShiftRightVar(b, in[0], in[1], true)}
		},
		func(in []uint64, n int) []uint64 {
			x, a := in[0], in[1]
			return []uint64{x << a, x >> a, uint64(sx(x, n) >> a)} // Go shifts >= 64 give 0 / sign fill
		}},
	{"Popcount", same(1),
		func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID {
			return [][]ir.NodeID{Popcount(b, in[0], s)}
		},
		func(in []uint64, n int) []uint64 { return []uint64{uint64(bits.OnesCount64(in[0]))} }},
}

func TestOpsExhaustive8(t *testing.T) {
	for _, op := range opCases {
		vecs := allVectors(op.ins(8))
		for _, s := range styles {
			t.Run(op.name+"/n=8/"+s.String(), func(t *testing.T) { checkCase(t, op, 8, s, vecs) })
		}
	}
}

func TestOpsSmallWidthsExhaustive(t *testing.T) {
	// Widths 1..6 catch off-by-one errors at the ends of carry chains and trees.
	for _, op := range opCases {
		for n := 1; n <= 6; n++ {
			vecs := allVectors(op.ins(n))
			for _, s := range styles {
				checkCase(t, op, n, s, vecs)
			}
		}
	}
}

func TestOpsRandomWide(t *testing.T) {
	for _, n := range []int{13, 32, 64} {
		for _, op := range opCases {
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			vecs := randomVectors(rng, op.ins(n), 1024)
			for _, s := range styles {
				t.Run(op.name+"/n="+itoa(n)+"/"+s.String(), func(t *testing.T) { checkCase(t, op, n, s, vecs) })
			}
		}
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }
