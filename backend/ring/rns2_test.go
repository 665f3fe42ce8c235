package ring

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// newTestRNS2 builds the ring from the two largest bits-bit NTT primes.
func newTestRNS2(t testing.TB, N, bitSize int) *RNS2 {
	t.Helper()
	ps, err := GenerateNTTPrimes(bitSize, N, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRNS2(N, uint32(ps[0]), uint32(ps[1]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rnsRings are the rings most tests run over: the production shape
// (N = 2048, 27-bit primes), the widest primes (30 bits, where lazy sums
// overflow soonest) and a small ring for the math/big schoolbook.
func rnsRings(t testing.TB) []*RNS2 {
	return []*RNS2{newTestRNS2(t, 2048, 27), newTestRNS2(t, 2048, 30), newTestRNS2(t, 64, 27), newTestRNS2(t, 16, 14)}
}

// toModQ returns the coefficients of p as integers in [0, Q), through
// math/big (independent of the ring's own CRT).
func toModQ(r *RNS2, p Poly2) []uint64 {
	Q0, Q1 := new(big.Int).SetUint64(uint64(r.Q0)), new(big.Int).SetUint64(uint64(r.Q1))
	Q := new(big.Int).Mul(Q0, Q1)
	inv0 := new(big.Int).ModInverse(Q0, Q1)
	out := make([]uint64, r.N)
	for i := range out {
		// x = r0 + Q0·((r1 - r0)·Q0^-1 mod Q1)
		t := new(big.Int).Sub(big.NewInt(int64(p[1][i])), big.NewInt(int64(p[0][i])))
		t.Mul(t, inv0).Mod(t, Q1)
		t.Mul(t, Q0).Add(t, big.NewInt(int64(p[0][i]))).Mod(t, Q)
		out[i] = t.Uint64()
	}
	return out
}

// fromModQ sets p to the residues of v (entries in [0, Q)).
func fromModQ(r *RNS2, v []uint64, p Poly2) {
	for i, x := range v {
		p[0][i] = uint32(x % uint64(r.Q0))
		p[1][i] = uint32(x % uint64(r.Q1))
	}
}

func randModQ(rng *rand.Rand, r *RNS2) []uint64 {
	v := make([]uint64, r.N)
	for i := range v {
		v[i] = rng.Uint64N(r.Modulus())
	}
	return v
}

// schoolbook returns a·b in Z_Q[X]/(X^N+1) by the O(N^2) definition in
// math/big.
func schoolbook(a, b []uint64, Q uint64) []uint64 {
	N := len(a)
	acc := make([]*big.Int, N)
	for i := range acc {
		acc[i] = new(big.Int)
	}
	p := new(big.Int)
	for i, x := range a {
		bx := new(big.Int).SetUint64(x)
		for j, y := range b {
			p.Mul(bx, new(big.Int).SetUint64(y))
			if k := i + j; k < N {
				acc[k].Add(acc[k], p)
			} else {
				acc[k-N].Sub(acc[k-N], p)
			}
		}
	}
	bq := new(big.Int).SetUint64(Q)
	out := make([]uint64, N)
	for i, c := range acc {
		out[i] = c.Mod(c, bq).Uint64()
	}
	return out
}

func equalU64(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: coefficient %d = %d, want %d", what, i, got[i], want[i])
		}
	}
}

func TestRNS2NewErrors(t *testing.T) {
	ps, _ := GenerateNTTPrimes(27, 2048, 2)
	p0, p1 := uint32(ps[0]), uint32(ps[1])
	cases := []struct {
		name   string
		N      int
		q0, q1 uint32
		want   string
	}{
		{"N not a power of two", 2000, p0, p1, "power of two"},
		{"N zero", 0, p0, p1, "power of two"},
		{"N negative", -8, p0, p1, "power of two"},
		{"equal primes", 2048, p0, p0, "equal"},
		{"non-prime", 2048, p0, 4097*4096*2 + 1, "root"},
		{"even", 2048, p0, 1 << 20, "odd"},
		{"zero", 2048, 0, p1, "odd"},
		{"not 1 mod 2N", 2048, p0, 7681, "root"}, // 7681 ≡ 1 mod 512 only
		{"too wide", 2048, p0, 1<<30 + 1, "2^30"},
		{"all ones", 2048, 1<<32 - 1, p1, "2^30"},
	}
	for _, c := range cases {
		r, err := NewRNS2(c.N, c.q0, c.q1)
		if err == nil || r != nil {
			t.Errorf("%s: NewRNS2(%d, %d, %d) = %v, nil error", c.name, c.N, c.q0, c.q1, r)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	r, err := NewRNS2(2048, p0, p1)
	if err != nil {
		t.Fatal(err)
	}
	if Q := r.Modulus(); Q != ps[0]*ps[1] || r.Bits() != 54 || r.N != 2048 || r.LogN != 11 {
		t.Errorf("Modulus %d Bits %d N %d LogN %d", Q, r.Bits(), r.N, r.LogN)
	}
}

// TestRNS2Product checks Forward, MulCoeffs, MulCoeffsAdd and Inverse
// against the math/big schoolbook product mod Q.
func TestRNS2Product(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range rnsRings(t) {
		if r.N > 256 && testing.Short() {
			continue
		}
		Q := r.Modulus()
		a, b, c := randModQ(rng, r), randModQ(rng, r), randModQ(rng, r)
		pa, pb, pc := r.NewPoly(), r.NewPoly(), r.NewPoly()
		fromModQ(r, a, pa)
		fromModQ(r, b, pb)
		fromModQ(r, c, pc)
		ab := schoolbook(a, b, Q)

		fa, fb, out := r.NewPoly(), r.NewPoly(), r.NewPoly()
		r.Forward(pa, fa)
		r.Forward(pb, fb)
		r.MulCoeffs(fa, fb, out)
		r.Inverse(out, out)
		equalU64(t, "Inverse(Forward(a)∘Forward(b))", toModQ(r, out), ab)

		// MulCoeffsAdd onto Forward(c), in place.
		r.Forward(pc, out)
		r.MulCoeffsAdd(fa, fb, out)
		r.Inverse(out, out)
		want := make([]uint64, r.N)
		for i := range want {
			want[i] = (ab[i] + c[i]) % Q
		}
		equalU64(t, "c + a·b via MulCoeffsAdd", toModQ(r, out), want)

		// Round trip in place.
		copy(out[0], pa[0])
		copy(out[1], pa[1])
		r.Forward(out, out)
		r.Inverse(out, out)
		equalU64(t, "Inverse(Forward(a))", toModQ(r, out), a)
	}
}

// TestRNS2Linear checks Add, Sub, Neg, MulScalar and AddScalarConst against
// arithmetic mod Q, including aliasing of the output.
func TestRNS2Linear(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range rnsRings(t) {
		Q := r.Modulus()
		bq := new(big.Int).SetUint64(Q)
		a, b := randModQ(rng, r), randModQ(rng, r)
		pa, pb, out := r.NewPoly(), r.NewPoly(), r.NewPoly()
		fromModQ(r, a, pa)
		fromModQ(r, b, pb)
		want := make([]uint64, r.N)

		r.Add(pa, pb, out)
		for i := range want {
			want[i] = (a[i] + b[i]) % Q
		}
		equalU64(t, "Add", toModQ(r, out), want)
		r.Sub(pa, pb, out)
		for i := range want {
			want[i] = (a[i] + Q - b[i]) % Q
		}
		equalU64(t, "Sub", toModQ(r, out), want)
		r.Neg(pa, out)
		for i := range want {
			want[i] = (Q - a[i]) % Q
		}
		equalU64(t, "Neg", toModQ(r, out), want)

		for _, s := range []uint64{0, 1, 2, Q - 1, Q, Q + 3, 1<<64 - 1, rng.Uint64()} {
			r.MulScalar(pa, s, out)
			for i := range want {
				p := new(big.Int).SetUint64(a[i])
				want[i] = p.Mul(p, new(big.Int).SetUint64(s)).Mod(p, bq).Uint64()
			}
			equalU64(t, "MulScalar", toModQ(r, out), want)

			copy(out[0], pa[0])
			copy(out[1], pa[1])
			r.AddScalarConst(out, s, out) // aliased
			copy(want, a)
			want[0] = (a[0] + s%Q) % Q
			equalU64(t, "AddScalarConst", toModQ(r, out), want)
		}
		// A constant coefficient of Q-1 plus s = Q-1 wraps.
		pa[0][0], pa[1][0] = r.Q0-1, r.Q1-1
		r.AddScalarConst(pa, Q-1, out)
		if got := r.CenteredAt(out, 0); got != -2 {
			t.Errorf("(Q-1) + (Q-1) centred = %d, want -2", got)
		}
	}
}

// TestRNS2Centered checks SetCentered / Centered / CenteredAt on random
// centred values and the boundaries ±(Q-1)/2 against math/big.
func TestRNS2Centered(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range rnsRings(t) {
		Q := r.Modulus()
		h := int64((Q - 1) / 2)
		v := make([]int64, r.N)
		for i := range v {
			v[i] = rng.Int64N(2*h+1) - h
		}
		edges := []int64{0, 1, -1, h, -h, h - 1, -h + 1, int64(r.Q0), -int64(r.Q0), int64(r.Q1) - 1, -int64(r.Q1) + 1}
		copy(v, edges)
		p := r.NewPoly()
		r.SetCentered(v, p)
		for i, x := range v {
			for k, q := range [2]uint32{r.Q0, r.Q1} {
				want := new(big.Int).Mod(big.NewInt(x), big.NewInt(int64(q))).Uint64()
				if uint64(p[k][i]) != want {
					t.Fatalf("SetCentered(%d) residue %d = %d, want %d", x, k, p[k][i], want)
				}
			}
		}
		got := make([]int64, r.N)
		r.Centered(p, got)
		for i, x := range v {
			if got[i] != x || r.CenteredAt(p, i) != x {
				t.Fatalf("Centered(SetCentered(%d)) = %d, CenteredAt = %d", x, got[i], r.CenteredAt(p, i))
			}
		}
		// Every residue pair maps into [-(Q-1)/2, (Q-1)/2] and back.
		for i := range p[0] {
			p[0][i], p[1][i] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
		}
		p[0][0], p[1][0] = r.Q0-1, r.Q1-1 // -1
		r.Centered(p, got)
		ref := toModQ(r, p)
		for i, x := range got {
			if x < -h || x > h || uint64((x+int64(Q))%int64(Q)) != ref[i] {
				t.Fatalf("Centered of residues (%d, %d) = %d, want ≡ %d in [-h, h]", p[0][i], p[1][i], x, ref[i])
			}
		}
		if got[0] != -1 {
			t.Errorf("Centered(Q-1) = %d", got[0])
		}
	}
}

// TestRNS2NewPolys checks that NewPoly and NewPolys return zeroed residue
// slices of length and capacity N that do not overlap.
func TestRNS2NewPolys(t *testing.T) {
	for _, r := range rnsRings(t) {
		ps := r.NewPolys(5)
		for range 40 { // NewPoly's offsets cycle through 32 values
			ps = append(ps, r.NewPoly())
		}
		if len(r.NewPolys(0)) != 0 {
			t.Error("NewPolys(0) is not empty")
		}
		for j, p := range ps {
			for i := range 2 {
				if len(p[i]) != r.N || cap(p[i]) != r.N {
					t.Fatalf("poly %d residue %d: len %d cap %d, want %d", j, i, len(p[i]), cap(p[i]), r.N)
				}
				for k := range p[i] {
					if p[i][k] != 0 {
						t.Fatalf("poly %d not zero", j)
					}
					p[i][k] = uint32(2*j + i + 1)
				}
			}
		}
		for j, p := range ps {
			for i := range 2 {
				for k := range p[i] {
					if p[i][k] != uint32(2*j+i+1) {
						t.Fatalf("poly %d residue %d slot %d overwritten (%d)", j, i, k, p[i][k])
					}
				}
			}
		}
	}
}
