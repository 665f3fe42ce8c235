package ring

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// testPrimes64 are BGV-sized primes ≡ 1 mod 2^17 (so every N <= 2^16 works),
// including one just under the 2^61 limit.
var testPrimes64 = func() []uint64 {
	var ps []uint64
	for _, b := range []int{40, 55, 61} {
		p, err := GenerateNTTPrimes(b, 1<<16, 1)
		if err != nil {
			panic(err)
		}
		ps = append(ps, p[0])
	}
	return ps
}()

func randPoly64(rng *rand.Rand, N int, bound uint64) []uint64 {
	p := make([]uint64, N)
	for i := range p {
		p[i] = rng.Uint64N(bound)
	}
	return p
}

// negacyclic64 returns a·b mod (X^N+1, q) by the definition, skipping zero
// coefficients of b, so a sparse b keeps it fast at large N.
func negacyclic64(a, b []uint64, q uint64) []uint64 {
	N := len(a)
	out := make([]uint64, N)
	for j, bj := range b {
		if bj == 0 {
			continue
		}
		for i, ai := range a {
			p := MulMod64(ai, bj, q)
			if k := i + j; k < N {
				out[k] = (out[k] + p) % q
			} else {
				out[k-N] = (out[k-N] + q - p) % q
			}
		}
	}
	return out
}

func equal64(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: slot %d = %d, want %d", what, i, got[i], want[i])
		}
	}
}

func TestNTT64Schoolbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, q := range testPrimes64 {
		for _, N := range []int{2, 4, 8, 64, 1024, 4096, 1 << 16} {
			t.Run(fmt.Sprintf("N=%d/Q=%d", N, q), func(t *testing.T) {
				r, err := NewNTT64(N, q)
				if err != nil {
					t.Fatal(err)
				}
				a := randPoly64(rng, N, q)
				b := make([]uint64, N)
				if N <= 1024 {
					b = randPoly64(rng, N, q) // dense: full schoolbook
				} else {
					for k := 0; k < 4; k++ {
						b[rng.IntN(N)] = rng.Uint64N(q)
					}
				}
				want := negacyclic64(a, b, q)
				fa, fb := make([]uint64, N), make([]uint64, N)
				r.Forward(a, fa)
				copy(fb, b)
				for i := range fb {
					fb[i] += q * rng.Uint64N(4) // lazy input in [0, 4Q)
				}
				r.Forward(fb, fb)
				prod := make([]uint64, N)
				r.MulCoeffs(fa, fb, prod)
				got := make([]uint64, N)
				r.Inverse(prod, got)
				equal64(t, "NTT product", got, want)

				r.ForwardLazy(a, fb)
				r.InverseLazy(fb, fb)
				for i := range fb {
					if fb[i] >= 2*q || fb[i]%q != a[i] {
						t.Fatalf("lazy round trip slot %d = %d, want ≡ %d in [0, 2Q)", i, fb[i], a[i])
					}
				}
			})
		}
	}
}

// TestNTT64SlotOrder checks the documented order and the automorphism
// consistency for the 64-bit path.
func TestNTT64SlotOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const N = 256
	q := testPrimes64[2]
	r, err := NewNTT64(N, q)
	if err != nil {
		t.Fatal(err)
	}
	a := randPoly64(rng, N, q)
	fa := make([]uint64, N)
	r.Forward(a, fa)
	for _, k := range []int{0, 1, 77, N - 1} {
		x := PowMod(r.Psi, 2*BitReverse(uint64(k), r.LogN)+1, q)
		var v uint64
		for i := N - 1; i >= 0; i-- {
			v = (MulMod64(v, x, q) + a[i]) % q
		}
		if fa[k] != v {
			t.Errorf("slot %d = %d, want %d", k, fa[k], v)
		}
	}
	for _, e := range []uint64{5, 25, GaloisElement(N, -5), GaloisElement(N, -1)} {
		coef, coef2, want, got := make([]uint64, N), make([]uint64, N), make([]uint64, N), make([]uint64, N)
		r.AutomorphismCoeff(a, e, coef)
		r.AutomorphismCoeffWithIndex(a, AutomorphismCoeffIndex(N, e), coef2)
		equal64(t, "AutomorphismCoeffWithIndex", coef2, coef)
		r.Forward(coef, want)
		AutomorphismNTT(fa, AutomorphismNTTIndex(N, e), got)
		equal64(t, fmt.Sprintf("t=%d AutomorphismNTT", e), got, want)
	}
	for _, k := range []int{0, 3, N + 5, -1} {
		mono := make([]uint64, N)
		kk := ((k % (2 * N)) + 2*N) % (2 * N)
		if kk < N {
			mono[kk] = 1
		} else {
			mono[kk-N] = q - 1
		}
		got := make([]uint64, N)
		r.MulByMonomial(a, k, got)
		equal64(t, fmt.Sprintf("MulByMonomial k=%d", k), got, negacyclic64(a, mono, q))
	}
}

func TestModulus64Pointwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const n = 2048
	for _, q := range append([]uint64{3, 1<<61 - 1}, testPrimes64...) {
		t.Run(fmt.Sprintf("Q=%d", q), func(t *testing.T) {
			m, err := NewModulus64(q)
			if err != nil {
				t.Fatal(err)
			}
			a, b, c := randPoly64(rng, n, q), randPoly64(rng, n, q), randPoly64(rng, n, q)
			a[0], b[0], a[1], b[1] = q-1, q-1, 0, q-1
			// Arbitrary 64-bit operands for the operations that accept them.
			aw, bw := randPoly64(rng, n, ^uint64(0)), randPoly64(rng, n, ^uint64(0))
			aw[0], bw[0] = ^uint64(0), ^uint64(0)
			out := make([]uint64, n)
			B := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
			check := func(op string, want func(i int) *big.Int) {
				t.Helper()
				for i := range out {
					if w := bigMod(want(i), q); out[i] != w {
						t.Fatalf("%s slot %d = %d, want %d", op, i, out[i], w)
					}
				}
			}
			m.Add(a, b, out)
			check("Add", func(i int) *big.Int { return new(big.Int).Add(B(a[i]), B(b[i])) })
			m.Sub(a, b, out)
			check("Sub", func(i int) *big.Int { return new(big.Int).Sub(B(a[i]), B(b[i])) })
			m.Neg(a, out)
			check("Neg", func(i int) *big.Int { return new(big.Int).Neg(B(a[i])) })
			m.MulCoeffs(aw, bw, out)
			check("MulCoeffs", func(i int) *big.Int { return new(big.Int).Mul(B(aw[i]), B(bw[i])) })
			copy(out, c)
			m.MulCoeffsAdd(aw, bw, out)
			check("MulCoeffsAdd", func(i int) *big.Int {
				return new(big.Int).Add(B(c[i]), new(big.Int).Mul(B(aw[i]), B(bw[i])))
			})
			s := q - 2
			m.MulScalar(aw, s, out)
			check("MulScalar", func(i int) *big.Int { return new(big.Int).Mul(B(aw[i]), B(s)) })
			copy(out, c)
			m.MulScalarAdd(a, s, out)
			check("MulScalarAdd", func(i int) *big.Int {
				return new(big.Int).Add(B(c[i]), new(big.Int).Mul(B(a[i]), B(s)))
			})
			m.Reduce64(aw, out)
			check("Reduce64", func(i int) *big.Int { return B(aw[i]) })
			for _, x := range []uint64{0, 1, q / 2, q/2 + 1, q - 1} {
				if c := m.Centered(x); m.FromInt64(c) != x || 2*c > int64(q) || 2*c < -int64(q) {
					t.Errorf("Centered(%d) = %d", x, c)
				}
				if got, want := m.MulMod(x, q-1), bigMod(new(big.Int).Mul(B(x), B(q-1)), q); got != want {
					t.Errorf("MulMod(%d, Q-1) = %d, want %d", x, got, want)
				}
			}
		})
	}
	for _, q := range []uint64{0, 2, 1 << 61, 1<<61 + 1} {
		if _, err := NewModulus64(q); err == nil {
			t.Errorf("NewModulus64(%d) accepted", q)
		}
	}
}

func TestAllocs64(t *testing.T) {
	const N = 4096
	q := testPrimes64[1]
	r, err := NewNTT64(N, q)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	a, b, c := randPoly64(rng, N, q), randPoly64(rng, N, q), make([]uint64, N)
	for name, f := range map[string]func(){
		"Forward":      func() { r.Forward(a, c) },
		"Inverse":      func() { r.Inverse(a, c) },
		"MulCoeffs":    func() { r.MulCoeffs(a, b, c) },
		"MulCoeffsAdd": func() { r.MulCoeffsAdd(a, b, c) },
	} {
		if n := testing.AllocsPerRun(10, f); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}

// TestNTT64Extremes feeds all-(4Q-1) and alternating inputs through Forward
// (both the reducing and the no-X-reduction path) and all-(2Q-1) through
// Inverse, checking against the reduced input's transform.
func TestNTT64Extremes(t *testing.T) {
	for _, q := range testPrimes64 {
		for _, N := range []int{16, 32, 1024} {
			r, err := NewNTT64(N, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, pattern := range []func(i int) uint64{
				func(int) uint64 { return 4*q - 1 },
				func(i int) uint64 { return uint64(i%2) * (4*q - 1) },
				func(i int) uint64 { return uint64(i/(N/2)) * (4*q - 1) },
			} {
				in, ref := make([]uint64, N), make([]uint64, N)
				for i := range in {
					in[i] = pattern(i)
					ref[i] = in[i] % q
				}
				got, want := make([]uint64, N), make([]uint64, N)
				r.Forward(in, got)
				r.Forward(ref, want)
				equal64(t, fmt.Sprintf("Q=%d N=%d noXRed=%v Forward extreme", q, N, r.noXRed), got, want)
				for i := range in {
					in[i] = min(in[i], 2*q-1)
					ref[i] = in[i] % q
				}
				r.Inverse(in, got)
				r.Forward(got, got)
				equal64(t, fmt.Sprintf("Q=%d N=%d Inverse extreme", q, N), got, ref)
			}
		}
	}
}
