package ring

import (
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// raderCase is one RaderNTT under test with a pure-Go twin (same prime and
// auxiliary NTTs, vector permutations off; nil when t itself is pure Go).
type raderCase struct {
	t, ref *RaderNTT
	mode   string
}

// raderCases builds a plan for the prime m and transforms for primes of
// every mode that exists at these sizes: 20-bit primes ≡ 1 mod m (auxiliary
// mode), 35-bit ones (two-auxiliary mode) and 45/61-bit primes ≡ 1 mod m·N
// (direct). Primes that fit no mode are skipped; so are the small sizes
// when small is false (at m = 65537 there are few 20-bit candidates).
func raderCases(t testing.TB, m int, small bool) (*RaderPlan, []raderCase) {
	t.Helper()
	plan, err := NewRaderPlan(m, SmallestGenerator(uint64(m)))
	if err != nil {
		t.Fatal(err)
	}
	bigN := plan.ConvLen()
	aux, err := GeneratePrimes(61, uint64(bigN), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ntts [2]*CyclicNTT64
	for i, q := range aux {
		if ntts[i], err = NewCyclicNTT64(bigN, q); err != nil {
			t.Fatal(err)
		}
	}
	type size struct {
		bits int
		step uint64
	}
	sizes := []size{{45, uint64(m) * uint64(bigN)}, {61, uint64(m) * uint64(bigN)}}
	if small {
		sizes = append(sizes, size{20, uint64(m)}, size{35, uint64(m)})
	}
	var out []raderCase
	for _, s := range sizes {
		ps, _ := GeneratePrimes(s.bits, s.step, 3, nil)
		for _, p := range ps {
			tr, err := NewRaderNTT(plan, p, ntts[0], ntts[1])
			if err != nil {
				continue
			}
			mode := "direct"
			switch {
			case tr.TwoAuxiliary():
				mode = "two-aux"
			case tr.Auxiliary():
				mode = "aux"
			}
			c := raderCase{t: tr, mode: mode}
			if tr.vec {
				if c.ref, err = newRaderNTT(plan, p, ntts[0], ntts[1], false); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, c)
		}
	}
	return plan, out
}

// variants returns the transform and, if it runs on the vector kernels,
// its pure-Go twin.
func (c raderCase) variants() []*RaderNTT {
	if c.ref == nil {
		return []*RaderNTT{c.t}
	}
	return []*RaderNTT{c.t, c.ref}
}

// TestRaderEvaluates checks the definition against direct evaluation:
// Forward(a)[s] = a(ζ^(g^s)) mod p (Horner, math/big-free schoolbook), and
// Inverse undoes it (also in place), for m = 17 and 257 in every mode, on
// the vector and pure-Go kernels; at m = 8191 (the padded convolution) on
// every 97th slot.
func TestRaderEvaluates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{17, 257, 8191} {
		plan, cases := raderCases(t, m, m < 8191)
		stride := 1
		if m > 257 {
			stride = 97
		}
		modes := map[string]int{}
		for _, c := range cases {
			modes[c.mode]++
			for _, tr := range c.variants() {
				p, n := tr.Prime(), m-1
				a := cyclicTestRow(rng, n, p)
				b := make([]uint64, n)
				sc := make([]uint64, tr.ScratchLen())
				tr.Forward(a, b, sc)
				for s := 0; s < n; s += stride {
					x := PowMod(tr.Zeta(), uint64(plan.Pow(s)), p)
					var v uint64
					for j := n - 1; j >= 0; j-- {
						v = AddMod64(MulMod64(v, x, p), a[j], p)
					}
					if v != b[s] {
						t.Fatalf("m=%d p=%d (%s, vec=%v): slot %d = %d, want a(ζ^%d) = %d", m, p, c.mode, tr.vec, s, b[s], plan.Pow(s), v)
					}
				}
				tr.Inverse(b, b, sc)
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("m=%d p=%d (%s, vec=%v): round trip differs at %d", m, p, c.mode, tr.vec, i)
					}
				}
			}
		}
		t.Logf("m=%d, N=%d: modes %v", m, plan.ConvLen(), modes)
		if m == 257 && (modes["direct"] == 0 || modes["aux"] == 0 || modes["two-aux"] == 0) {
			t.Errorf("m=257: want every mode covered, got %v", modes)
		}
	}
}

// TestRaderMulSchoolbook: the pointwise product of two transforms is the
// product modulo Φ_m and p, computed with math/big (m = 17 and 257, every
// mode).
func TestRaderMulSchoolbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{17, 257} {
		_, cases := raderCases(t, m, true)
		for _, c := range cases {
			tr := c.t
			p, n := tr.Prime(), m-1
			a, b := cyclicTestRow(rng, n, p), cyclicTestRow(rng, n, p)
			// Schoolbook modulo X^m - 1, then X^(m-1) = -(1 + ... + X^(m-2)).
			acc := make([]*big.Int, m)
			for i := range acc {
				acc[i] = new(big.Int)
			}
			tmp := new(big.Int)
			for i, x := range a {
				for j, y := range b {
					k := (i + j) % m
					acc[k].Add(acc[k], tmp.Mul(new(big.Int).SetUint64(x), new(big.Int).SetUint64(y)))
				}
			}
			bp := new(big.Int).SetUint64(p)
			want := make([]uint64, n)
			for j := range want {
				want[j] = tmp.Mod(tmp.Sub(acc[j], acc[m-1]), bp).Uint64()
			}
			sc := make([]uint64, tr.ScratchLen())
			ea, eb := make([]uint64, n), make([]uint64, n)
			tr.Forward(a, ea, sc)
			tr.Forward(b, eb, sc)
			for i := range ea {
				ea[i] = MulMod64(ea[i], eb[i], p)
			}
			tr.Inverse(ea, ea, sc)
			for j := range want {
				if ea[j] != want[j] {
					t.Fatalf("m=%d p=%d (%s): coefficient %d = %d, schoolbook %d", m, p, c.mode, j, ea[j], want[j])
				}
			}
		}
	}
}

// TestRaderOrder: InverseRaderOrder and ForwardRaderOrder are Inverse and
// Forward with the coefficients permuted into Rader order (slot s holds the
// coefficient of X^CoeffIndex(s)), on the vector and pure-Go kernels, in
// every mode, at m = 17, 257, 8191 (padded) and 65537.
func TestRaderOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, m := range []int{17, 257, 8191, 65537} {
		plan, cases := raderCases(t, m, m < 8191)
		for _, c := range cases {
			for _, tr := range c.variants() {
				n, p := m-1, tr.Prime()
				toRader := func(a []uint64) []uint64 {
					r := make([]uint64, n)
					for s := range r {
						r[s] = a[plan.CoeffIndex(s)]
					}
					return r
				}
				sc := make([]uint64, tr.ScratchLen())
				b := cyclicTestRow(rng, n, p)
				nat, ord := make([]uint64, n), make([]uint64, n)
				tr.Inverse(b, nat, sc)
				tr.InverseRaderOrder(b, ord, sc)
				want := toRader(nat)
				a := cyclicTestRow(rng, n, p)
				fNat, fOrd := make([]uint64, n), make([]uint64, n)
				tr.Forward(a, fNat, sc)
				tr.ForwardRaderOrder(toRader(a), fOrd, sc)
				for i := range ord {
					if ord[i] != want[i] {
						t.Fatalf("m=%d p=%d vec=%v: InverseRaderOrder slot %d = %d, want %d", m, p, tr.vec, i, ord[i], want[i])
					}
					if fOrd[i] != fNat[i] {
						t.Fatalf("m=%d p=%d vec=%v: ForwardRaderOrder slot %d = %d, want %d", m, p, tr.vec, i, fOrd[i], fNat[i])
					}
				}
			}
		}
	}
}

// TestRaderVecMatchesGo: with the vector permutation kernels, Forward and
// Inverse agree bit for bit with the pure-Go ones at m = 65537 (direct
// primes of 45 and 61 bits), m = 8191 (padded convolution) and m = 257
// (every mode).
func TestRaderVecMatchesGo(t *testing.T) {
	if !hasCyclicVec {
		t.Skip("no AVX-512F/DQ (or built with purego)")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for _, m := range []int{257, 8191, 65537} {
		_, cases := raderCases(t, m, m == 257)
		for _, c := range cases {
			if c.ref == nil {
				t.Fatalf("m=%d p=%d: transform not on the vector kernels", m, c.t.Prime())
			}
			n, p := m-1, c.t.Prime()
			a := cyclicTestRow(rng, n, p)
			sv, sg := make([]uint64, c.t.ScratchLen()), make([]uint64, c.ref.ScratchLen())
			for _, fwd := range []bool{true, false} {
				bv, bg := make([]uint64, n), make([]uint64, n)
				if fwd {
					c.t.Forward(a, bv, sv)
					c.ref.Forward(a, bg, sg)
				} else {
					c.t.Inverse(a, bv, sv)
					c.ref.Inverse(a, bg, sg)
				}
				for i := range bv {
					if bv[i] != bg[i] {
						t.Fatalf("m=%d p=%d (%s) forward=%v: entry %d: vector %d != Go %d", m, p, c.mode, fwd, i, bv[i], bg[i])
					}
				}
			}
		}
	}
}

// TestRaderAllocs: the four conversions allocate nothing.
func TestRaderAllocs(t *testing.T) {
	_, cases := raderCases(t, 257, true)
	for _, c := range cases {
		tr := c.t
		a := make([]uint64, 256)
		sc := make([]uint64, tr.ScratchLen())
		if n := testing.AllocsPerRun(5, func() {
			tr.Forward(a, a, sc)
			tr.Inverse(a, a, sc)
			tr.ForwardRaderOrder(a, a, sc)
			tr.InverseRaderOrder(a, a, sc)
		}); n != 0 {
			t.Errorf("p=%d (%s): %.1f allocations per run, want 0", tr.Prime(), c.mode, n)
		}
	}
}

// TestRaderPlanErrors: non-prime m, non-generators and primes that fit no
// mode are refused; the plan's maps are inverse to each other.
func TestRaderPlanErrors(t *testing.T) {
	if _, err := NewRaderPlan(15, 2); err == nil {
		t.Error("m = 15 accepted")
	}
	if _, err := NewRaderPlan(17, 4); err == nil { // ord_17(4) = 4
		t.Error("g = 4 accepted at m = 17")
	}
	plan, err := NewRaderPlan(257, 3)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 256; s++ {
		if e := plan.Log(plan.Pow(s)); e != s {
			t.Fatalf("Log(Pow(%d)) = %d", s, e)
		}
	}
	if _, err := NewRaderNTT(plan, 1<<61-1, nil, nil); err == nil {
		t.Error("prime ≥ 2^61 accepted")
	}
	ps, err := GeneratePrimes(50, 257, 1, nil) // ≡ 1 mod m, but not mod m·N, no auxiliary NTTs
	if err != nil {
		t.Fatal(err)
	}
	if (ps[0]-1)%(257*256) != 0 {
		if _, err := NewRaderNTT(plan, ps[0], nil, nil); err == nil {
			t.Errorf("prime %d accepted without auxiliary NTTs", ps[0])
		}
	}
}

// TestGeneratePrimes: any step, exclusions honoured, exact bit size,
// decreasing, prime and ≡ 1 mod step; GenerateNTTPrimes is the step-2N case.
func TestGeneratePrimes(t *testing.T) {
	step := uint64(65537) << 16
	first, err := GeneratePrimes(59, step, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := GeneratePrimes(59, step, 3, map[uint64]bool{first[1]: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if p == first[1] || !IsPrime(p) || (p-1)%step != 0 || bits.Len64(p) != 59 || (i > 0 && p >= ps[i-1]) {
			t.Fatalf("GeneratePrimes(59, %d, 3, {%d}) = %v", step, first[1], ps)
		}
	}
	if _, err := GeneratePrimes(63, 2, 1, nil); err == nil {
		t.Error("63-bit primes accepted")
	}
	if _, err := GeneratePrimes(20, 1<<19, 5, nil); err == nil {
		t.Error("asked for more primes than exist, no error")
	}
	got, err := GenerateNTTPrimes(27, 1024, 1)
	if err != nil || len(got) != 1 || got[0] != 134215681 {
		t.Errorf("GenerateNTTPrimes(27, 1024, 1) = %v, %v; want [134215681]", got, err)
	}
	if g := SmallestGenerator(65537); g != 3 || MultiplicativeOrder(2, 65537) != 32 {
		t.Errorf("SmallestGenerator(65537) = %d, ord(2) = %d; want 3, 32", g, MultiplicativeOrder(2, 65537))
	}
}

// TestModulus64Edges: Barrett products and reductions, Shoup products and
// the branch-free addition and subtraction against math/bits division at
// tiny primes and at primes just below 2^61.
func TestModulus64Edges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, q := range []uint64{3, 17, 65537, 1048391, 1<<61 - 1, 2305843009213616129} {
		m, err := NewModulus64(q)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 2000; k++ {
			a, b := rng.Uint64N(q), rng.Uint64N(q)
			if k < 4 {
				a, b = q-1-uint64(k&1), q-1-uint64(k>>1)
			}
			hi, lo := bits.Mul64(a, b)
			if got, want := m.MulMod(a, b), bits.Rem64(hi, lo, q); got != want {
				t.Fatalf("q=%d: MulMod(%d, %d) = %d, want %d", q, a, b, got, want)
			}
			x := rng.Uint64()
			if got := m.Reduce(x); got != x%q {
				t.Fatalf("q=%d: Reduce(%d) = %d, want %d", q, x, got, x%q)
			}
			if got := MulShoup64(x, b, ShoupConst64(b, q), q); got != MulMod64(x%q, b, q) {
				t.Fatalf("q=%d: MulShoup64(%d, %d) = %d", q, x, b, got)
			}
			if got := MulShoupLazy64(x, b, ShoupConst64(b, q), q); got >= 2*q || got%q != MulMod64(x%q, b, q) {
				t.Fatalf("q=%d: MulShoupLazy64(%d, %d) = %d", q, x, b, got)
			}
			if got := AddMod64(a, b, q); got != (a+b)%q {
				t.Fatalf("q=%d: AddMod64(%d, %d) = %d", q, a, b, got)
			}
			if got := SubMod64(a, b, q); got != (a+q-b)%q {
				t.Fatalf("q=%d: SubMod64(%d, %d) = %d", q, a, b, got)
			}
		}
	}
}

// BenchmarkRaderNTT measures one prime's Forward and Inverse at m = 65537
// (direct mode, 59-bit prime) and m = 8191 (padded convolution).
func BenchmarkRaderNTT(b *testing.B) {
	for _, m := range []int{8191, 65537} {
		_, cases := raderCases(b, m, false)
		tr := cases[0].t
		a := cyclicTestRow(rand.New(rand.NewPCG(1, 2)), m-1, tr.Prime())
		sc := make([]uint64, tr.ScratchLen())
		b.Run(fmt.Sprintf("m=%d/Forward", m), func(b *testing.B) {
			for b.Loop() {
				tr.Forward(a, a, sc)
			}
		})
		b.Run(fmt.Sprintf("m=%d/Inverse", m), func(b *testing.B) {
			for b.Loop() {
				tr.Inverse(a, a, sc)
			}
		})
	}
}
