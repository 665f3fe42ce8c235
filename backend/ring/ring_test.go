package ring

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// testQ27 is OpenFHE's STD128 prime (2^27 - 2^11 + 1), ≡ 1 mod 2048.
const testQ27 = 134215681

// testQ28 = 2^28 - 2^16 + 1 is prime and ≡ 1 mod 2^16: one prime for every N.
const testQ28 = 268369921

// testQ30 is the largest prime < 2^30 that is ≡ 1 mod 8192, to exercise the
// lazy ranges at the top of the 32-bit path.
var testQ30 = func() uint32 {
	p, err := GenerateNTTPrimes(30, 4096, 1)
	if err != nil {
		panic(err)
	}
	return uint32(p[0])
}()

func randPoly32(rng *rand.Rand, N int, bound uint32) []uint32 {
	p := make([]uint32, N)
	for i := range p {
		p[i] = rng.Uint32N(bound)
	}
	return p
}

// schoolbook32 returns a·b in Z_q[X]/(X^N+1) by the O(N^2) definition.
func schoolbook32(a, b []uint32, q uint32) []uint32 {
	N := len(a)
	acc := make([]uint64, N) // signed sums kept modulo q as non-negative
	Q := uint64(q)
	for i := 0; i < N; i++ {
		for j := 0; j < N; j++ {
			p := uint64(a[i]) * uint64(b[j]) % Q
			if k := i + j; k < N {
				acc[k] = (acc[k] + p) % Q
			} else {
				acc[k-N] = (acc[k-N] + Q - p) % Q
			}
		}
	}
	out := make([]uint32, N)
	for i := range out {
		out[i] = uint32(acc[i])
	}
	return out
}

func equal32(t *testing.T, what string, got, want []uint32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: slot %d = %d, want %d", what, i, got[i], want[i])
		}
	}
}

func TestGenerateNTTPrimes(t *testing.T) {
	p, err := GenerateNTTPrimes(27, 1024, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p[0] != testQ27 {
		t.Errorf("largest 27-bit prime ≡ 1 mod 2048 = %d, want %d", p[0], testQ27)
	}
	for i, q := range p {
		if q%2048 != 1 || !IsPrime(q) || q >= 1<<27 || q < 1<<26 {
			t.Errorf("prime %d = %d is not a 27-bit NTT prime", i, q)
		}
		if i > 0 && q >= p[i-1] {
			t.Errorf("primes not decreasing: %v", p)
		}
	}
	// Compare with a brute-force scan.
	var want []uint64
	for c := uint64(1<<27 - 1); len(want) < 3; c-- {
		if c%2048 == 1 && big.NewInt(int64(c)).ProbablyPrime(20) {
			want = append(want, c)
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(p) {
		t.Errorf("GenerateNTTPrimes = %v, brute force %v", p, want)
	}
	if _, err := GenerateNTTPrimes(12, 1024, 5); err == nil {
		t.Error("expected an error when too few primes exist")
	}
}

func TestPrimitiveRoot(t *testing.T) {
	for _, N := range []int{2, 16, 1024, 4096} {
		psi, err := PrimitiveRoot(uint64(testQ30), N)
		if err != nil {
			t.Fatal(err)
		}
		if PowMod(psi, uint64(N), uint64(testQ30)) != uint64(testQ30)-1 {
			t.Errorf("N=%d: ψ^N != -1", N)
		}
	}
	if _, err := PrimitiveRoot(testQ27, 2048); err == nil {
		t.Error("expected no 4096-th root modulo a prime ≡ 2049 mod 4096")
	}
	if _, err := PrimitiveRoot(testQ27+2048, 1024); err == nil {
		t.Error("expected an error for a composite modulus")
	}
}

func TestInvMod(t *testing.T) {
	for _, q := range []uint64{testQ27, 1<<61 - 1, 15} {
		for _, a := range []uint64{1, 2, 7, q - 1} {
			inv, ok := InvMod(a, q)
			if !ok || MulMod64(a, inv, q) != 1 {
				t.Errorf("InvMod(%d, %d) = %d, %v", a, q, inv, ok)
			}
		}
	}
	if _, ok := InvMod(6, 15); ok {
		t.Error("InvMod(6, 15) should fail")
	}
}

func TestNTT32Schoolbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, q := range []uint32{testQ27, testQ28, testQ30} {
		for _, N := range []int{2, 4, 8, 16, 32, 64, 128, 512, 1024, 2048, 4096} {
			if (q-1)%uint32(2*N) != 0 {
				continue // no 2N-th root modulo q
			}
			t.Run(fmt.Sprintf("N=%d/Q=%d", N, q), func(t *testing.T) {
				r, err := NewNTT32(N, q)
				if err != nil {
					t.Fatal(err)
				}
				a, b := randPoly32(rng, N, q), randPoly32(rng, N, q)
				want := schoolbook32(a, b, q)
				fa, fb := make([]uint32, N), make([]uint32, N)
				r.Forward(a, fa)
				// In place, and from a lazily reduced input in [0, 4Q).
				copy(fb, b)
				for i := range fb {
					fb[i] += q * uint32(rng.IntN(4))
				}
				r.Forward(fb, fb)
				for i := range fa {
					if fa[i] >= q || fb[i] >= q {
						t.Fatalf("Forward output not reduced at %d", i)
					}
				}
				prod := make([]uint32, N)
				r.MulCoeffs(fa, fb, prod)
				got := make([]uint32, N)
				r.Inverse(prod, got)
				equal32(t, "NTT product", got, want)

				// Lazy variants agree modulo Q and stay in [0, 2Q).
				la, lb := make([]uint32, N), make([]uint32, N)
				r.ForwardLazy(a, la)
				r.ForwardLazy(b, lb)
				for i := range la {
					if la[i] >= 2*q || la[i]%q != fa[i] {
						t.Fatalf("ForwardLazy slot %d = %d, want ≡ %d in [0, 2Q)", i, la[i], fa[i])
					}
				}
				r.MulCoeffs(la, lb, prod)
				// Feed Inverse a [0, 2Q) input.
				for i := range prod {
					prod[i] += q * uint32(rng.IntN(2))
				}
				r.InverseLazy(prod, prod)
				for i := range prod {
					if prod[i] >= 2*q || prod[i]%q != want[i] {
						t.Fatalf("InverseLazy slot %d = %d, want ≡ %d in [0, 2Q)", i, prod[i], want[i])
					}
				}
			})
		}
	}
}

// TestNTT32SlotOrder pins the documented slot order:
// Forward(a)[k] = a(ψ^(2·brv(k)+1)).
func TestNTT32SlotOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, N := range []int{8, 1024} {
		r, err := NewNTT32(N, testQ27)
		if err != nil {
			t.Fatal(err)
		}
		a := randPoly32(rng, N, testQ27)
		fa := make([]uint32, N)
		r.Forward(a, fa)
		for _, k := range []int{0, 1, 2, N / 2, N - 1} {
			x := PowMod(uint64(r.Psi), 2*BitReverse(uint64(k), r.LogN)+1, testQ27)
			// Horner evaluation.
			var v uint64
			for i := N - 1; i >= 0; i-- {
				v = (MulMod64(v, x, testQ27) + uint64(a[i])) % testQ27
			}
			if uint64(fa[k]) != v {
				t.Errorf("N=%d slot %d = %d, want a(ψ^(2brv(k)+1)) = %d", N, k, fa[k], v)
			}
		}
	}
}

func TestNTT32Identity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, N := range []int{512, 1024, 2048, 4096} {
		r, err := NewNTT32(N, testQ28)
		if err != nil {
			t.Fatal(err)
		}
		a := randPoly32(rng, N, testQ28)
		f, g := make([]uint32, N), make([]uint32, N)
		r.Forward(a, f)
		r.Inverse(f, g)
		equal32(t, fmt.Sprintf("N=%d Inverse(Forward(a))", N), g, a)
		r.Inverse(a, f)
		r.Forward(f, g)
		equal32(t, fmt.Sprintf("N=%d Forward(Inverse(a))", N), g, a)
	}
}

func TestNewNTT32Errors(t *testing.T) {
	for _, c := range []struct {
		N int
		q uint32
	}{{1000, testQ27}, {2048, testQ27}, {1024, testQ27 + 2048}, {1024, 1 << 30}, {1024, 12289 * 2}} {
		if _, err := NewNTT32(c.N, c.q); err == nil {
			t.Errorf("NewNTT32(%d, %d) accepted", c.N, c.q)
		}
	}
}

// TestNTT32Extremes feeds the extreme inputs of the documented ranges (all
// 4Q-1 into Forward, all 2Q-1 into Inverse, and alternating patterns) through
// both the reducing and the no-X-reduction forward paths, to catch overflow of
// the lazy ranges that random inputs would rarely hit.
func TestNTT32Extremes(t *testing.T) {
	for _, q := range []uint32{testQ27, testQ28, testQ30} {
		for _, N := range []int{16, 32, 1024} {
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			ref := make([]uint32, N)
			for _, pattern := range []func(i int) uint32{
				func(int) uint32 { return 4*q - 1 },
				func(i int) uint32 { return uint32(i%2) * (4*q - 1) },
				func(i int) uint32 { return uint32(1-i%2) * (4*q - 1) },
				func(i int) uint32 { return uint32(i/(N/2)) * (4*q - 1) },
			} {
				in := make([]uint32, N)
				for i := range in {
					in[i] = pattern(i)
					ref[i] = in[i] % q
				}
				want := make([]uint32, N)
				copy(want, ref)
				forwardRadix2_32(want, r.psiRev, r.psiRevShoup, q, true)
				got := make([]uint32, N)
				r.Forward(in, got)
				equal32(t, fmt.Sprintf("Q=%d N=%d noXRed=%v Forward extreme", q, N, r.noXRed), got, want)
				for i := range in {
					in[i] = min(in[i], 2*q-1)
					ref[i] = in[i] % q
				}
				r.Inverse(in, got)
				r.Forward(got, got)
				equal32(t, fmt.Sprintf("Q=%d N=%d Inverse extreme", q, N), got, ref)
			}
		}
	}
}
