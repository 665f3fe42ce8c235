package stdlib

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// TestWideOperands runs the generators past 64 bits (the HDL allows up to
// 1024) against math/big, through the reference evaluator ir.EvalBatch.
func TestWideOperands(t *testing.T) {
	for _, n := range []int{100, 128} {
		for _, s := range styles {
			t.Run(fmt.Sprintf("n=%d/%v", n, s), func(t *testing.T) { checkWide(t, n, s) })
		}
	}
}

func checkWide(t *testing.T, n int, s Style) {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(n))
	half := new(big.Int).Rsh(mod, 1)
	d := new(big.Int).SetUint64(0xdead_beef_1234_5679) // odd, 64-bit: many division steps
	sd := new(big.Int).Neg(big.NewInt(1_000_003))

	b := ir.NewBuilder("wide")
	x := b.Input("x", n, false)
	y := b.Input("y", n, false)
	amt := b.Input("k", 8, false)
	sum, _ := Add(b, x, y, b.Const(false), s)
	b.Output("add", n, false, sum)
	b.Output("sub", n, false, Sub(b, x, y, s))
	b.Output("mul", n, false, Mul(b, x, y, s))
	b.Output("ltu", 1, false, []ir.NodeID{Less(b, x, y, false, s)})
	b.Output("lts", 1, false, []ir.NodeID{Less(b, x, y, true, s)})
	q, r, err := DivModConst(b, x, d, false, s)
	if err != nil {
		t.Fatal(err)
	}
	b.Output("q", n, false, q)
	b.Output("r", n, false, r)
	sq, sr, err := DivModConst(b, x, sd, true, s)
	if err != nil {
		t.Fatal(err)
	}
	b.Output("sq", n, false, sq)
	b.Output("sr", n, false, sr)
	b.Output("shl", n, false, ShiftLeftVar(b, x, amt))
	b.Output("sar", n, false, ShiftRightVar(b, x, amt, true))
	b.Output("pop", len(Popcount(b, x, s)), false, Popcount(b, x, s))
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(uint64(n), uint64(s)))
	rnd := func() *big.Int {
		v := new(big.Int)
		for i := 0; i < n; i += 32 {
			v.Lsh(v, 32).Or(v, big.NewInt(int64(rng.Uint32())))
		}
		v.Mod(v, mod)
		if rng.IntN(4) == 0 { // edge values
			v = []*big.Int{big.NewInt(0), new(big.Int).Sub(mod, big.NewInt(1)), new(big.Int).Set(half)}[rng.IntN(3)]
		}
		return v
	}
	signed := func(v *big.Int) *big.Int {
		if v.Cmp(half) >= 0 {
			return new(big.Int).Sub(v, mod)
		}
		return v
	}
	wrap := func(v *big.Int) *big.Int { return new(big.Int).Mod(v, mod) }
	var ins []ir.Values
	for i := 0; i < 200; i++ {
		ins = append(ins, ir.Values{"x": {rnd()}, "y": {rnd()}, "k": {big.NewInt(int64(rng.IntN(256)))}})
	}
	outs, err := c.EvalBatch(ins)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range ins {
		xv, yv, k := in["x"][0], in["y"][0], uint(in["k"][0].Int64())
		sx, sy := signed(xv), signed(yv)
		tq, tr := new(big.Int).QuoRem(sx, sd, new(big.Int)) // truncated, like Go
		pop := 0
		for j := 0; j < n; j++ {
			pop += int(xv.Bit(j))
		}
		want := map[string]*big.Int{
			"add": wrap(new(big.Int).Add(xv, yv)),
			"sub": wrap(new(big.Int).Sub(xv, yv)),
			"mul": wrap(new(big.Int).Mul(xv, yv)),
			"ltu": big.NewInt(int64(b2u(xv.Cmp(yv) < 0))),
			"lts": big.NewInt(int64(b2u(sx.Cmp(sy) < 0))),
			"q":   new(big.Int).Quo(xv, d),
			"r":   new(big.Int).Rem(xv, d),
			"sq":  wrap(tq),
			"sr":  wrap(tr),
			"shl": wrap(new(big.Int).Lsh(xv, k)),
			"sar": wrap(new(big.Int).Rsh(sx, k)), // big.Int.Rsh on negatives floors, as an arithmetic shift
			"pop": big.NewInt(int64(pop)),
		}
		for name, w := range want {
			if got := outs[i][name][0]; got.Cmp(w) != 0 {
				t.Errorf("%s(x=%#x, y=%#x, k=%d) = %#x, want %#x", name, xv, yv, k, got, w)
			}
		}
	}
}
