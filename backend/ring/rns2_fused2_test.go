package ring

import (
	"math/rand/v2"
	"testing"
)

// pairOperands returns the shared rows and two accumulators (digits,
// monomials, accumulators of their own) of DotRowsMono2Pair, drawn as in
// newFusedOperands.
func pairOperands(r *RNS2, rng *rand.Rand, nd, ndY, edge int) (o *fusedOperands, x, y *Mono2Acc) {
	o = newFusedOperands(r, rng, nd, edge)
	p := newFusedOperands(r, rng, ndY, edge)
	x = &Mono2Acc{Digits: o.digits, Mono1: o.m1, Mono2: o.m2, AccB: o.accB, AccA: o.accA}
	y = &Mono2Acc{Digits: p.digits, Mono1: p.m1, Mono2: p.m2, AccB: p.accB, AccA: p.accA}
	return o, x, y
}

func cloneAcc(r *RNS2, a *Mono2Acc) *Mono2Acc {
	c := *a
	c.AccB, c.AccA = clonePoly(r, a.AccB), clonePoly(r, a.AccA)
	return &c
}

// TestRNS2DotRowsMono2Pair checks DotRowsMono2Pair against two unfused
// sequences, bit for bit: every test ring (N = 16 runs only the kernel's
// last-block path; 30-bit primes take the fallback), 1..16 digits and 17,
// uniform and edge inputs, unequal digit counts, and the operand sharing
// of lockstep blind rotations (both accumulators' digits the same slices,
// monomials shared within and between them).
func TestRNS2DotRowsMono2Pair(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	rings := append(rnsRings(t), newTestRNS2(t, 32, 27), newTestRNS2(t, 16, 27))
	for _, r := range rings {
		for _, nd := range []int{1, 2, 3, 4, 5, 8, 16, 17} {
			for edge := range 3 {
				type variant struct {
					name string
					ndY  int
					mod  func(x, y *Mono2Acc)
				}
				vs := []variant{
					{"plain", nd, func(x, y *Mono2Acc) {}},
					{"shared digits", nd, func(x, y *Mono2Acc) { y.Digits = x.Digits }},
					{"shared monomials", nd, func(x, y *Mono2Acc) { x.Mono2, y.Mono1, y.Mono2 = x.Mono1, x.Mono1, x.Mono1 }},
					{"unequal digits", max(nd-1, 1), func(x, y *Mono2Acc) {}},
				}
				for _, v := range vs {
					o, x, y := pairOperands(r, rng, nd, v.ndY, edge)
					v.mod(x, y)
					wx, wy := cloneAcc(r, x), cloneAcc(r, y)
					r.dotRowsMono2Ref(wx.Digits, o.b1, o.a1, o.b2, o.a2, wx.Mono1, wx.Mono2, wx.AccB, wx.AccA)
					r.dotRowsMono2Ref(wy.Digits, o.b1, o.a1, o.b2, o.a2, wy.Mono1, wy.Mono2, wy.AccB, wy.AccA)
					gx, gy := cloneAcc(r, x), cloneAcc(r, y)
					r.DotRowsMono2Pair(o.b1, o.a1, o.b2, o.a2, gx, gy)
					if !equalPoly(gx.AccB, wx.AccB) || !equalPoly(gx.AccA, wx.AccA) ||
						!equalPoly(gy.AccB, wy.AccB) || !equalPoly(gy.AccA, wy.AccA) {
						t.Fatalf("N=%d Q0=%d digits=%d edge=%d %s: DotRowsMono2Pair differs from the unfused sequences",
							r.N, r.Q0, nd, edge, v.name)
					}
				}
			}
		}
	}
}

// TestRNS2DotRowsMono2PairKernel checks that the CBS shape takes the pair
// kernel where AVX-512 is there, that too few rows panic, and that
// nothing is allocated.
func TestRNS2DotRowsMono2PairKernel(t *testing.T) {
	r, err := NewRNS2(2048, 134176769, 134111233)
	if err != nil {
		t.Fatal(err)
	}
	o, x, y := pairOperands(r, rand.New(rand.NewPCG(43, 44)), 4, 4, 0)
	if ran := r.dotRowsMono2PairVec(o.b1, o.a1, o.b2, o.a2, x, y); ran != hasAVX512 {
		t.Fatalf("pair kernel ran %v, AVX-512 %v", ran, hasAVX512)
	}
	if n := testing.AllocsPerRun(10, func() { r.DotRowsMono2Pair(o.b1, o.a1, o.b2, o.a2, x, y) }); n != 0 {
		t.Fatalf("DotRowsMono2Pair: %v allocations", n)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("DotRowsMono2Pair with three rows for four digits did not panic")
		}
	}()
	r.DotRowsMono2Pair(o.b1, o.a1, o.b2[:3], o.a2, x, y)
}

// BenchmarkRNS2DotRowsMono2Pair times two accumulators over the same rows
// (N = 2048, 4 digits each), the rows from cache ("cache": the same rows in
// every call) or from memory ("stream": a new key of 256 KiB in every
// call, 128 MiB in all), by the pair kernel ("pair") or by two
// DotRowsMono2 calls ("two"), interleaved in one benchmark.
func BenchmarkRNS2DotRowsMono2Pair(b *testing.B) {
	r := newTestRNS2(b, 2048, 27)
	o, x, y := pairOperands(r, rand.New(rand.NewPCG(45, 46)), 4, 4, 0)
	const keys = 512
	rows := make([][]Poly2, keys)
	for k := range rows {
		rows[k] = r.NewPolys(16)
		for _, p := range rows[k] {
			for i := range 2 {
				for j := range p[i] {
					p[i][j] = uint32(j*7+k) % r.Q1
				}
			}
		}
	}
	two := func(b1, a1, b2, a2 []Poly2) {
		r.DotRowsMono2(x.Digits, b1, a1, b2, a2, x.Mono1, x.Mono2, x.AccB, x.AccA)
		r.DotRowsMono2(y.Digits, b1, a1, b2, a2, y.Mono1, y.Mono2, y.AccB, y.AccA)
	}
	pair := func(b1, a1, b2, a2 []Poly2) { r.DotRowsMono2Pair(b1, a1, b2, a2, x, y) }
	for _, kind := range []string{"pair", "two"} {
		f := pair
		if kind == "two" {
			f = two
		}
		b.Run("cache/"+kind, func(b *testing.B) {
			for b.Loop() {
				f(o.b1, o.a1, o.b2, o.a2)
			}
		})
		b.Run("stream/"+kind, func(b *testing.B) {
			k := 0
			for b.Loop() {
				ks := rows[k%keys]
				k++
				f(ks[0:4], ks[4:8], ks[8:12], ks[12:16])
			}
		})
	}
}

// BenchmarkRNS2DotRowsMono2Lockstep4 is one step of four blind rotations
// in lockstep (cbs's CBSBatch, k = 4): four accumulators over one key's
// rows, a new key in every call (128 MiB in all, so the first pass over a
// key reads it from memory and the others from cache), by four
// DotRowsMono2 calls ("single") or two DotRowsMono2Pair calls ("pair").
func BenchmarkRNS2DotRowsMono2Lockstep4(b *testing.B) {
	r := newTestRNS2(b, 2048, 27)
	rng := rand.New(rand.NewPCG(47, 48))
	accs := make([]*Mono2Acc, 4)
	for i := range accs {
		o := newFusedOperands(r, rng, 4, 0)
		accs[i] = &Mono2Acc{Digits: o.digits, Mono1: o.m1, Mono2: o.m2, AccB: o.accB, AccA: o.accA}
	}
	const keys = 512
	rows := make([][]Poly2, keys)
	for k := range rows {
		rows[k] = r.NewPolys(16)
		for _, p := range rows[k] {
			for i := range 2 {
				for j := range p[i] {
					p[i][j] = uint32(j*7+k) % r.Q1
				}
			}
		}
	}
	b.Run("single", func(b *testing.B) {
		k := 0
		for b.Loop() {
			ks := rows[k%keys]
			k++
			for _, a := range accs {
				r.DotRowsMono2(a.Digits, ks[0:4], ks[4:8], ks[8:12], ks[12:16], a.Mono1, a.Mono2, a.AccB, a.AccA)
			}
		}
	})
	b.Run("pair", func(b *testing.B) {
		k := 0
		for b.Loop() {
			ks := rows[k%keys]
			k++
			r.DotRowsMono2Pair(ks[0:4], ks[4:8], ks[8:12], ks[12:16], accs[0], accs[1])
			r.DotRowsMono2Pair(ks[0:4], ks[4:8], ks[8:12], ks[12:16], accs[2], accs[3])
		}
	})
}
