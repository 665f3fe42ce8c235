package bgv

import (
	"math/rand/v2"
	"testing"
)

// TestCyclicNTTConvolution checks both NTT paths against the schoolbook
// cyclic convolution for every length 2..2^10 (odd and even stage counts,
// radix-2 and radix-4 passes) and primes near 2^40 and 2^61 (the top of the
// lazy ranges): forwardLazy / pointwise / inverseLazy, and the fused
// forwardStages(4) / convolveMiddle / inverseStages(4) chain convolve uses.
func TestCyclicNTTConvolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, bitSize := range []uint{40, 61} {
		for n := 2; n <= 1024; n <<= 1 {
			// Largest prime q < 2^bitSize with q ≡ 1 (mod n).
			q := (uint64(1)<<bitSize-1)/uint64(n)*uint64(n) + 1
			for !isPrime(q) {
				q -= uint64(n)
			}
			ntt, err := newCyclicNTT(q, n)
			if err != nil {
				t.Fatal(err)
			}
			a, b := randomRow(rng, n, q), randomRow(rng, n, q)
			want := make([]uint64, n)
			for i := range a {
				for j := range b {
					want[(i+j)%n] = addMod(want[(i+j)%n], mulModSlow(a[i], b[j], q), q)
				}
			}
			// Kernel NTT(b)/N with Shoup companions, as Transform.kernel builds it.
			k := append([]uint64(nil), b...)
			ntt.forwardLazy(k)
			nInv := invMod(uint64(n)%q, q)
			ks := make([]uint64, n)
			for i := range k {
				k[i] = mulModSlow(k[i]%q, nInv, q)
				ks[i] = shoup(k[i], q)
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
				x[i] = mulShoupLazy(x[i], k[i], ks[i], q)
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
