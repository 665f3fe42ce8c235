package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// cyclicTestRow is a random row mod q with the extreme residues 0 and q-1
// mixed in.
func cyclicTestRow(rng *rand.Rand, n int, q uint64) []uint64 {
	r := randPoly64(rng, n, q)
	for i := 0; i < n; i += 7 {
		r[i] = q - 1
	}
	for i := 3; i < n; i += 11 {
		r[i] = 0
	}
	return r
}

// TestCyclicConvolve: Convolve equals the schoolbook cyclic convolution mod
// q, on the pure-Go kernels and (where built and supported) the AVX-512
// ones, bit for bit, for lengths below, at and above the vector minimum and
// primes up to 2^61.
func TestCyclicConvolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, n := range []int{2, 4, 16, 64, 128, 512} {
		for _, q := range testPrimes64 {
			t.Run(fmt.Sprintf("N=%d/q=%d", n, q), func(t *testing.T) {
				a, v := cyclicTestRow(rng, n, q), cyclicTestRow(rng, n, q)
				want := make([]uint64, n)
				for i, x := range a {
					for j, y := range v {
						k := (i + j) % n
						want[k] = (want[k] + MulMod64(x, y, q)) % q
					}
				}
				variants := []bool{false}
				if hasCyclicVec && n >= cyclicVecMinN {
					variants = append(variants, true)
				}
				for _, vec := range variants {
					tr, err := newCyclicNTT64(n, q, vec)
					if err != nil {
						t.Fatal(err)
					}
					buf := append([]uint64(nil), a...)
					tr.Convolve(buf, tr.NewKernel(v))
					for i := range want {
						if buf[i] != want[i] {
							t.Fatalf("vector=%v, entry %d: %d, schoolbook %d", vec, i, buf[i], want[i])
						}
					}
				}
			})
		}
	}
}

// TestCyclicRoundTrip: inverseLazy(forwardLazy(a)) = N·a mod q at N = 2^16,
// and the root of unity has exact order N.
func TestCyclicRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const n = 1 << 16
	for _, q := range testPrimes64 {
		tr, err := NewCyclicNTT64(n, q)
		if err != nil {
			t.Fatal(err)
		}
		if tr.N() != n || tr.Q() != q {
			t.Fatalf("N, Q = %d, %d, want %d, %d", tr.N(), tr.Q(), n, q)
		}
		w := tr.tw[n/2+1] // ω^(1) at h = N/2, j = 1
		if PowMod(w, n, q) != 1 || PowMod(w, n/2, q) == 1 {
			t.Fatalf("q=%d: ω = %d is not a primitive %d-th root of unity", q, w, n)
		}
		a := cyclicTestRow(rng, n, q)
		b := append([]uint64(nil), a...)
		tr.forwardLazy(b)
		tr.inverseLazy(b)
		for i := range a {
			if b[i]%q != MulMod64(a[i], n, q) {
				t.Fatalf("q=%d, entry %d: %d, want N·a = %d", q, i, b[i]%q, MulMod64(a[i], n, q))
			}
		}
	}
	if _, err := NewCyclicNTT64(48, testPrimes64[0]); err == nil {
		t.Error("length 48 accepted")
	}
	if _, err := NewCyclicNTT64(1<<16, 1<<40+3); err == nil {
		t.Error("a modulus that is not 1 mod N accepted")
	}
}

// TestCyclicConvolveAllocs: Convolve allocates nothing.
func TestCyclicConvolveAllocs(t *testing.T) {
	tr, err := NewCyclicNTT64(1<<10, testPrimes64[1])
	if err != nil {
		t.Fatal(err)
	}
	k := tr.NewKernel(make([]uint64, 1<<10))
	buf := make([]uint64, 1<<10)
	if a := testing.AllocsPerRun(10, func() { tr.Convolve(buf, k) }); a != 0 {
		t.Errorf("Convolve: %.1f allocations per run, want 0", a)
	}
}

// BenchmarkCyclicConvolve measures one convolution of length 2^16 (a
// forward and an inverse NTT around a pointwise product) with a 59-bit prime.
func BenchmarkCyclicConvolve(b *testing.B) {
	ps, err := GenerateNTTPrimes(59, 1<<16, 1)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := NewCyclicNTT64(1<<16, ps[0])
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(75, 76))
	k := tr.NewKernel(randPoly64(rng, 1<<16, ps[0]))
	buf := randPoly64(rng, 1<<16, ps[0])
	b.ReportAllocs()
	for b.Loop() {
		tr.Convolve(buf, k)
	}
}

// TestCyclicNTTStages checks both pure-Go NTT paths against the schoolbook
// cyclic convolution for every length 2..2^10 (odd and even stage counts,
// radix-2 and radix-4 passes) and primes near 2^40 and 2^61 (the top of the
// lazy ranges): forwardLazy / pointwise / inverseLazy, and the fused
// forwardStages(4) / convolveMiddle / inverseStages(4) chain convolve uses.
func TestCyclicNTTStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, bitSize := range []uint{40, 61} {
		for n := 2; n <= 1024; n <<= 1 {
			// Largest prime q < 2^bitSize with q ≡ 1 (mod n).
			q := (uint64(1)<<bitSize-1)/uint64(n)*uint64(n) + 1
			for !IsPrime(q) {
				q -= uint64(n)
			}
			ntt, err := newCyclicNTT64(n, q, false)
			if err != nil {
				t.Fatal(err)
			}
			a, b := randPoly64(rng, n, q), randPoly64(rng, n, q)
			want := make([]uint64, n)
			for i := range a {
				for j := range b {
					want[(i+j)%n] = (want[(i+j)%n] + MulMod64(a[i], b[j], q)) % q
				}
			}
			// Kernel NTT(b)/N with Shoup companions, as NewKernel builds it on the Go path.
			k := append([]uint64(nil), b...)
			ntt.forwardLazy(k)
			nInv := InvModPrime(uint64(n)%q, q)
			ks := make([]uint64, n)
			for i := range k {
				k[i] = MulMod64(k[i]%q, nInv, q)
				ks[i] = ShoupConst64(k[i], q)
			}
			check := func(name string, got []uint64) {
				t.Helper()
				for i := range got {
					if got[i]%q != want[i] {
						t.Fatalf("q %d bits, n = %d, %s: entry %d = %d, want %d", bitSize, n, name, i, got[i]%q, want[i])
					}
				}
			}
			x := append([]uint64(nil), a...)
			ntt.forwardLazy(x)
			for i := range x {
				x[i] = MulShoupLazy64(x[i], k[i], ks[i], q)
			}
			ntt.inverseLazy(x)
			check("radix-2 path", x)
			if n >= 4 {
				x = append(x[:0], a...)
				ntt.forwardStages(x, 4)
				ntt.convolveMiddle(x, k, ks)
				ntt.inverseStages(x, 4, false)
				check("fused path", x)
				x = append(x[:0], a...)
				ntt.forwardStages(x, 4)
				ntt.convolveMiddle(x, k, ks)
				ntt.inverseStages(x, 4, true)
				for i := range x {
					if x[i] >= q {
						t.Fatalf("q %d bits, n = %d: reduced output %d = %d >= q", bitSize, n, i, x[i])
					}
				}
				check("fused path, reduced", x)
			}
		}
	}
}
