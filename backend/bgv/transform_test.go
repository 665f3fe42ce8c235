package bgv

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// testParams caches parameter sets across tests: building them is the slow part.
var testParamsCache = map[string]*Params{}

func testParams(t testing.TB, lit ParamsLiteral) *Params {
	t.Helper()
	if p, ok := testParamsCache[lit.Name]; ok {
		return p
	}
	p, err := NewParams(lit)
	if err != nil {
		t.Fatal(err)
	}
	testParamsCache[lit.Name] = p
	return p
}

// twoAuxPrimes returns count primes of the given size that are ≡ 1 (mod m)
// but not ≡ 1 (mod m·N) and too large for the single auxiliary prime, so
// that their transforms run in two-auxiliary mode.
func twoAuxPrimes(m, bitSize, count int, used map[uint64]bool) []uint64 {
	n := m - 1
	bigN := uint64(n)
	if n&(n-1) != 0 {
		bigN = 1 << bits.Len(uint(2*n-2))
	}
	var out []uint64
	top := uint64(1) << uint(bitSize)
	for c := (top-1)/uint64(m)*uint64(m) + 1; len(out) < count; c -= uint64(m) {
		if (c-1)%(uint64(m)*bigN) != 0 && ring.IsPrime(c) && !used[c] {
			used[c] = true
			out = append(out, c)
		}
	}
	return out
}

// twoAuxLiteral is a Toy set whose primes all take the two-auxiliary mode.
func twoAuxLiteral(m int) ParamsLiteral {
	used := map[uint64]bool{}
	q := twoAuxPrimes(m, 45, 1, used)
	q = append(q, twoAuxPrimes(m, 35, 4, used)...)
	return ParamsLiteral{Name: fmt.Sprintf("ToyM%dTwoAux", m), M: m, Q: q,
		P: twoAuxPrimes(m, 50, 2, used), Insecure: true}
}

var (
	toyM17TwoAux  = twoAuxLiteral(17)
	toyM257TwoAux = twoAuxLiteral(257)
)

// schoolbookMulMod returns a·b mod (Φ_m, q) for coefficient vectors of length
// m-1: the cyclic product modulo X^m - 1, then X^(m-1) = -(1 + ... + X^(m-2)).
func schoolbookMulMod(a, b []uint64, m int, q uint64) []uint64 {
	c := make([]uint64, m)
	bs := make([]uint64, len(b))
	for j, v := range b {
		bs[j] = ring.ShoupConst64(v, q)
	}
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			k := i + j
			if k >= m {
				k -= m
			}
			c[k] = ring.AddMod64(c[k], ring.MulShoup64(x, y, bs[j], q), q) // x·y via y's companion
			_ = y
		}
	}
	out := make([]uint64, m-1)
	for j := range out {
		out[j] = ring.SubMod64(c[j], c[m-1], q)
	}
	return out
}

func randomRow(rng *rand.Rand, n int, q uint64) []uint64 {
	r := make([]uint64, n)
	for i := range r {
		r[i] = rng.Uint64N(q)
	}
	return r
}

// testPrimes returns, for m, primes of both transform modes: direct
// (≡ 1 mod m·N) and auxiliary (≡ 1 mod m, small).
func testTransforms(t testing.TB, pr *Params) []*ring.RaderNTT {
	var out []*ring.RaderNTT
	for i := 0; i <= pr.ringQ.MaxLevel(); i++ {
		out = append(out, pr.ringQ.Transform(i))
	}
	if pr.ringP != nil {
		for i := 0; i <= pr.ringP.MaxLevel(); i++ {
			out = append(out, pr.ringP.Transform(i))
		}
	}
	return out
}

func TestTransformModes(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal, M8191Literal} {
		pr := testParams(t, lit)
		direct, aux := 0, 0
		for _, tr := range testTransforms(t, pr) {
			if tr.Auxiliary() {
				aux++
			} else {
				direct++
			}
		}
		t.Logf("%s: N_conv = %d, %d direct and %d auxiliary primes, log2 QP = %.1f", lit.Name, pr.plan.ConvLen(), direct, aux, pr.LogQP())
		if two := testTransforms(t, testParams(t, toyM257TwoAux)); !two[0].TwoAuxiliary() || !two[len(two)-1].TwoAuxiliary() {
			t.Errorf("ToyM257TwoAux: transforms not in two-auxiliary mode")
		}
		if lit.Name != "ToyM17" && (direct == 0 || aux == 0) {
			t.Errorf("%s: want both transform modes covered, got %d direct, %d auxiliary", lit.Name, direct, aux)
		}
	}
}

func TestTransformRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal, M8191Literal, toyM17TwoAux, toyM257TwoAux} {
		pr := testParams(t, lit)
		for _, tr := range testTransforms(t, pr) {
			t.Run(fmt.Sprintf("m=%d/p=%d", pr.M(), tr.Prime()), func(t *testing.T) {
				scratch := make([]uint64, tr.ScratchLen())
				a := randomRow(rng, pr.N(), tr.Prime())
				b := make([]uint64, pr.N())
				tr.Forward(a, b, scratch)
				c := make([]uint64, pr.N())
				tr.Inverse(b, c, scratch)
				for i := range a {
					if a[i] != c[i] {
						t.Fatalf("round trip differs at %d: %d != %d", i, c[i], a[i])
					}
				}
				// In place.
				tr.Forward(c, c, scratch)
				tr.Inverse(c, c, scratch)
				for i := range a {
					if a[i] != c[i] {
						t.Fatalf("in-place round trip differs at %d", i)
					}
				}
			})
		}
	}
}

// TestRingMulSchoolbook: the slot-wise product in double-CRT equals the
// schoolbook product modulo Φ_m and each prime.
func TestRingMulSchoolbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		lit    ParamsLiteral
		trials int
		rows   int // number of primes checked (all when 0)
	}{{ToyM17Literal, 5, 0}, {ToyM257Literal, 3, 0}, {M8191Literal, 1, 3}, {toyM17TwoAux, 3, 0}, {toyM257TwoAux, 2, 0}} {
		pr := testParams(t, tc.lit)
		r := pr.RingQ()
		level := r.MaxLevel()
		if tc.rows > 0 {
			level = tc.rows - 1
		}
		// The checked rows include an auxiliary-mode prime and a direct one.
		t.Run(fmt.Sprintf("m=%d", pr.M()), func(t *testing.T) {
			scratch := r.NewScratch()
			for trial := 0; trial < tc.trials; trial++ {
				a, b := r.NewPoly(level), r.NewPoly(level)
				for i := range a.Rows {
					a.Rows[i] = randomRow(rng, r.N(), r.Prime(i))
					b.Rows[i] = randomRow(rng, r.N(), r.Prime(i))
				}
				want := make([][]uint64, level+1)
				for i := range want {
					want[i] = schoolbookMulMod(a.Rows[i], b.Rows[i], pr.M(), r.Prime(i))
				}
				ae, be, c := r.NewPoly(level), r.NewPoly(level), r.NewPoly(level)
				r.ToEval(a, ae, scratch)
				r.ToEval(b, be, scratch)
				r.Mul(ae, be, c)
				r.ToCoeff(c, c, scratch)
				for i := range want {
					for j := range want[i] {
						if c.Rows[i][j] != want[i][j] {
							t.Fatalf("prime %d (aux=%v), coefficient %d: %d != schoolbook %d",
								r.Prime(i), r.Transform(i).Auxiliary(), j, c.Rows[i][j], want[i][j])
						}
					}
				}
			}
		})
	}
}

func TestTransformAllocs(t *testing.T) {
	pr := testParams(t, ToyM257Literal)
	r := pr.RingQ()
	a := r.NewPoly(r.MaxLevel())
	scratch := r.NewScratch()
	if n := testing.AllocsPerRun(10, func() {
		r.ToEval(a, a, scratch)
		r.ToCoeff(a, a, scratch)
		r.Mul(a, a, a)
		r.Add(a, a, a)
	}); n != 0 {
		t.Errorf("transform and ring kernels allocate %.1f times per run, want 0", n)
	}
}
