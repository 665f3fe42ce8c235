package stdlib

import (
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// opCase describes one generator under test: the widths of its inputs for an
// operand width n, how to build it, and a Go reference on raw bit patterns
// (values masked to their widths, LSB first as in the circuit).
type opCase struct {
	name  string
	ins   func(n int) []int
	build func(b *ir.Builder, in [][]ir.NodeID, s Style) [][]ir.NodeID
	ref   func(in []uint64, n int) []uint64
}

func mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}

// sx sign-extends the n-bit pattern v.
func sx(v uint64, n int) int64 {
	if n >= 64 {
		return int64(v)
	}
	if v>>(uint(n)-1)&1 == 1 {
		return int64(v | ^mask(n))
	}
	return int64(v)
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// buildCase builds op at width n as a circuit with inputs in0, in1, ... and
// outputs out0, out1, ...
func buildCase(t testing.TB, op opCase, n int, s Style) *ir.Circuit {
	t.Helper()
	b := ir.NewBuilder(op.name)
	var in [][]ir.NodeID
	for i, w := range op.ins(n) {
		in = append(in, b.Input(fmt.Sprintf("in%d", i), w, false))
	}
	for i, o := range op.build(b, in, s) {
		b.Output(fmt.Sprintf("out%d", i), len(o), false, o)
	}
	c, err := b.Build()
	if err != nil {
		t.Fatalf("%s/n=%d/%v: %v", op.name, n, s, err)
	}
	return c
}

// evalVectors evaluates c on vectors (vecs[v][bus] raw values) 64 at a time
// and returns out[v][bus].
func evalVectors(c *ir.Circuit, vecs [][]uint64) [][]uint64 {
	res := make([][]uint64, 0, len(vecs))
	words := make([]uint64, c.NumInputBits())
	vals := make([]uint64, len(c.Nodes))
	outw := make([]uint64, c.NumOutputBits())
	for start := 0; start < len(vecs); start += 64 {
		end := min(start+64, len(vecs))
		clear(words)
		for lane := start; lane < end; lane++ {
			k := 0
			for bus := range c.Inputs {
				v := vecs[lane][bus]
				for bit := 0; bit < c.Inputs[bus].Width; bit++ {
					words[k] |= (v >> uint(bit) & 1) << uint(lane-start)
					k++
				}
			}
		}
		c.EvalBitsInto(words, vals, outw)
		for lane := start; lane < end; lane++ {
			out := make([]uint64, len(c.Outputs))
			k := 0
			for bus := range c.Outputs {
				for bit := 0; bit < c.Outputs[bus].Width; bit++ {
					out[bus] |= (outw[k] >> uint(lane-start) & 1) << uint(bit)
					k++
				}
			}
			res = append(res, out)
		}
	}
	return res
}

// allVectors enumerates every assignment of inputs with the given widths.
func allVectors(widths []int) [][]uint64 {
	total := 0
	for _, w := range widths {
		total += w
	}
	vecs := make([][]uint64, 0, 1<<uint(total))
	for code := uint64(0); code < 1<<uint(total); code++ {
		v := make([]uint64, len(widths))
		c := code
		for i, w := range widths {
			v[i] = c & mask(w)
			c >>= uint(w)
		}
		vecs = append(vecs, v)
	}
	return vecs
}

// randomVectors returns count random assignments, a quarter of whose values
// are edge cases (0, 1, all ones, MIN, MAX) that uniform sampling would miss.
func randomVectors(rng *rand.Rand, widths []int, count int) [][]uint64 {
	vecs := make([][]uint64, count)
	for i := range vecs {
		v := make([]uint64, len(widths))
		for j, w := range widths {
			m := mask(w)
			switch rng.IntN(8) {
			case 0:
				edges := []uint64{0, 1, m, m >> 1, (m >> 1) + 1, m - 1}
				v[j] = edges[rng.IntN(len(edges))] & m
			case 1: // small values exercise short carry chains and small amounts
				v[j] = uint64(rng.IntN(70)) & m
			default:
				v[j] = rng.Uint64() & m
			}
		}
		vecs[i] = v
	}
	return vecs
}

// checkCase compares op's circuit against its reference on vecs.
func checkCase(t *testing.T, op opCase, n int, s Style, vecs [][]uint64) {
	t.Helper()
	c := buildCase(t, op, n, s)
	outs := evalVectors(c, vecs)
	bad := 0
	for i, v := range vecs {
		want := op.ref(v, n)
		for k := range want {
			w := want[k] & mask(c.Outputs[k].Width)
			if outs[i][k] != w {
				t.Errorf("%s/n=%d/%v: inputs %#x: out%d = %#x, want %#x", op.name, n, s, v, k, outs[i][k], w)
				if bad++; bad > 5 {
					t.FailNow()
				}
			}
		}
	}
}

// andDepth is the multiplicative depth of c (NOT, XOR, XNOR free), and gates
// the number of live nodes (reachable from an output) that are neither
// inputs, constants nor NOT: what a gate-bootstrapping backend pays for.
func andDepth(c *ir.Circuit) (depth, gates int) {
	live := make([]bool, len(c.Nodes))
	for _, o := range c.Outputs {
		for _, id := range o.Bits {
			live[id] = true
		}
	}
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		if live[i] {
			for _, in := range c.Nodes[i].In {
				live[in] = true
			}
		}
	}
	d := make([]int, len(c.Nodes))
	for i, nd := range c.Nodes {
		m := 0
		for _, in := range nd.In {
			m = max(m, d[in])
		}
		switch nd.Op {
		case ir.OpConst0, ir.OpConst1, ir.OpInput, ir.OpNot:
		case ir.OpXor, ir.OpXnor:
			if live[i] {
				gates++
			}
		default:
			m++
			if live[i] {
				gates++
			}
		}
		d[i] = m
	}
	for _, o := range c.Outputs {
		for _, id := range o.Bits {
			depth = max(depth, d[id])
		}
	}
	return depth, gates
}

// rand2big adapts a math/rand/v2 source for big.Int.Rand, which wants math/rand.
func rand2big(rng *rand.Rand) *mrand.Rand { return mrand.New(mrand.NewSource(int64(rng.Uint64()))) }
