package optimize

import (
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/internal/circuittest"
	"github.com/hcc-fhe/hcc/ir"
)

// addWrap returns x + y (len(x) bits, carry out dropped) with the cells
// Bristol uses: a half adder, then majority carries c ⊕ (x⊕c)(y⊕c), and a
// bare XOR sum in the top bit.
func addWrap(b *ir.Builder, x, y []ir.NodeID) []ir.NodeID {
	n := len(x)
	sum := make([]ir.NodeID, n)
	sum[0] = b.Xor(x[0], y[0])
	c := b.And(x[0], y[0])
	for i := 1; i < n; i++ {
		t1, t2 := b.Xor(x[i], c), b.Xor(y[i], c)
		sum[i] = b.Xor(x[i], t2)
		if i < n-1 {
			c = b.Xor(c, b.And(t1, t2))
		}
	}
	return sum
}

// arrayMultiplier builds the low n bits of a*b as Bristol's mult64 does: a
// partial-product row per bit of b, added one after another.
func arrayMultiplier(n int) *ir.Circuit {
	b := ir.NewBuilder("mult")
	x := b.Input("a", n, false)
	y := b.Input("b", n, false)
	acc := make([]ir.NodeID, n)
	for j := range acc {
		acc[j] = b.And(x[j], y[0])
	}
	for i := 1; i < n; i++ {
		row := make([]ir.NodeID, n-i)
		for j := range row {
			row[j] = b.And(x[j], y[i])
		}
		copy(acc[i:], addWrap(b, acc[i:], row))
	}
	b.Output("p", n, false, acc)
	c, err := b.Build()
	if err != nil {
		panic(err)
	}
	return c
}

func TestAndDepthArrayMultiplier(t *testing.T) {
	c := arrayMultiplier(8)
	d := circuittest.CheckPass(t, AndDepth.Name, AndDepth.Run, c)
	before, after := andDepthOf(c), andDepthOf(d)
	// Rows of carries chain: 7 levels or more; a column-compressed tree
	// with a prefix adder needs about log_{3/2}(8) + log2(8) + 1.
	if before < 7 || after >= before || after > 7 {
		t.Errorf("8-bit array multiplier: and-depth %d -> %d, want a drop to at most 7", before, after)
	}
	t.Logf("8x8 array multiplier: and-depth %d -> %d, ANDs %d -> %d", before, after,
		c.Stats().Count[ir.OpAnd], d.Stats().Count[ir.OpAnd])
}

// TestResynthAddersSound builds random networks of full and half adders in
// Bristol's form, some of them breaking the rules resynthesis relies on
// (a cell output read twice, read negated, or a carry lost), and checks
// that the stage keeps the function whether it applies or not.
func TestResynthAddersSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	applied := 0
	for iter := 0; iter < 300; iter++ {
		clean := iter%2 == 0 // odd iterations break the rules now and then
		cells := 0
		b := ir.NewBuilder("net")
		in := b.Input("x", 10+rng.IntN(7), false)
		width := 3 + rng.IntN(4)
		// cols[w] holds the unconsumed bits of weight w.
		cols := make([][]ir.NodeID, width)
		for _, x := range in {
			w := rng.IntN(width)
			cols[w] = append(cols[w], x)
		}
		take := func(w int) ir.NodeID {
			k := rng.IntN(len(cols[w]))
			x := cols[w][k]
			if clean || rng.IntN(12) != 0 { // sometimes leave it: a bit read twice
				cols[w] = append(cols[w][:k], cols[w][k+1:]...)
			}
			if !clean && rng.IntN(20) == 0 {
				x = b.Not(x) // a negated read
			}
			return x
		}
		for w := 0; w < width; w++ {
			for len(cols[w]) > 1 {
				var s, cy ir.NodeID
				if len(cols[w]) >= 3 && rng.IntN(3) != 0 {
					x, y, z := take(w), take(w), take(w)
					t1, t2 := b.Xor(x, z), b.Xor(y, z)
					s, cy = b.Xor(x, t2), b.Xor(z, b.And(t1, t2))
				} else {
					x, y := take(w), take(w)
					s, cy = b.Xor(x, y), b.And(x, y)
				}
				cells++
				cols[w] = append(cols[w], s)
				if w+1 < width && (clean || rng.IntN(25) != 0) { // sometimes a carry is lost
					cols[w+1] = append(cols[w+1], cy)
				}
			}
		}
		out := make([]ir.NodeID, width)
		for w := range out {
			out[w] = b.Const(false)
			if len(cols[w]) > 0 {
				out[w] = cols[w][0]
			}
		}
		b.Output("y", width, false, out)
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		words := traceAdderWords(c, findAdderCells(c), 8)
		if len(words) > 0 {
			applied++
		} else if clean && cells >= 8 {
			t.Fatalf("iteration %d: a well-formed network of %d cells was not traced", iter, cells)
		}
		d, err := resynthAdders(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Verify(d); err != nil {
			t.Fatal(err)
		}
		circuittest.Equivalent(t, c, d)
	}
	if applied < 100 {
		t.Errorf("resynthesis applied to only %d of 300 networks: the test exercises too little", applied)
	}
}
