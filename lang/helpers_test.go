package lang

import (
	"math/big"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// evalScalars evaluates c once on scalar inputs given as int64.
func evalScalars(t *testing.T, c *ir.Circuit, in map[string]int64) map[string]int64 {
	t.Helper()
	vals := ir.Values{}
	for k, v := range in {
		vals[k] = []*big.Int{big.NewInt(v)}
	}
	out, err := c.Eval(vals)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]int64{}
	for k, v := range out {
		res[k] = v[0].Int64()
	}
	return res
}

// evalPatterns evaluates c on many vectors at once, 64 lanes per pass. Each
// vector holds one raw bit pattern per input bus (bus bits in order, at most
// 64 of them); the result holds one pattern per output bus.
func evalPatterns(c *ir.Circuit, vecs [][]uint64) [][]uint64 {
	inOff := make([]int, len(c.Inputs))
	n := 0
	for i := range c.Inputs {
		inOff[i] = n
		n += len(c.Inputs[i].Bits)
	}
	words := make([]uint64, n)
	vals := make([]uint64, len(c.Nodes))
	outw := make([]uint64, c.NumOutputBits())
	res := make([][]uint64, len(vecs))
	for start := 0; start < len(vecs); start += 64 {
		end := min(start+64, len(vecs))
		clear(words)
		for lane := start; lane < end; lane++ {
			for bus, p := range vecs[lane] {
				for k := range c.Inputs[bus].Bits {
					words[inOff[bus]+k] |= (p >> uint(k) & 1) << uint(lane-start)
				}
			}
		}
		c.EvalBitsInto(words, vals, outw)
		for lane := start; lane < end; lane++ {
			out := make([]uint64, len(c.Outputs))
			j := 0
			for bus := range c.Outputs {
				for k := range c.Outputs[bus].Bits {
					out[bus] |= (outw[j] >> uint(lane-start) & 1) << uint(k)
					j++
				}
			}
			res[lane] = out
		}
	}
	return res
}

func mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<uint(w) - 1
}

// sx reads the low w bits of p as a two's complement number.
func sx(p uint64, w int) int64 {
	return int64(p<<uint(64-w)) >> uint(64-w)
}
