package ring

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestNTT32VectorMatchesGo compares the AVX-512 kernels with the pure-Go ones
// bit for bit (fully reduced outputs) and modulo Q with range checks (Lazy
// outputs, whose representatives may differ), on random and extreme inputs.
func TestNTT32VectorMatchesGo(t *testing.T) {
	if !hasAVX512 {
		if runtime.GOARCH == "amd64" {
			t.Log("no AVX-512F on this CPU (or purego build): vector path not exercised")
		}
		t.Skip("vector kernels unavailable")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, q := range []uint32{testQ27, testQ28, testQ30} {
		for _, N := range []int{32, 64, 128, 512, 1024, 2048, 4096} {
			if (q-1)%uint32(2*N) != 0 || N < avxMinN {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			inputs := [][]uint32{randPoly32(rng, N, 4*q), randPoly32(rng, N, q), make([]uint32, N), make([]uint32, N)}
			for i := range N {
				inputs[2][i] = 4*q - 1
				inputs[3][i] = uint32(i%2) * (4*q - 1)
			}
			for k, in := range inputs {
				name := fmt.Sprintf("Q=%d/N=%d/input=%d", q, N, k)
				goOut, vecOut := make([]uint32, N), make([]uint32, N)
				r.forwardGo(in, goOut, true)
				r.forwardAVX512(in, vecOut, true)
				equal32(t, name+"/Forward", vecOut, goOut)
				r.forwardAVX512(in, vecOut, false)
				for i := range vecOut {
					if vecOut[i] >= 2*q || vecOut[i]%q != goOut[i] {
						t.Fatalf("%s/ForwardLazy slot %d = %d, want ≡ %d in [0, 2Q)", name, i, vecOut[i], goOut[i])
					}
				}
				// Inverse takes [0, 2Q).
				inv := make([]uint32, N)
				for i := range inv {
					inv[i] = in[i] % (2 * q)
				}
				r.inverseGo(inv, goOut, true)
				r.inverseAVX512(inv, vecOut, true)
				equal32(t, name+"/Inverse", vecOut, goOut)
				r.inverseAVX512(inv, vecOut, false)
				for i := range vecOut {
					if vecOut[i] >= 2*q || vecOut[i]%q != goOut[i] {
						t.Fatalf("%s/InverseLazy slot %d = %d, want ≡ %d in [0, 2Q)", name, i, vecOut[i], goOut[i])
					}
				}
			}
		}
	}
}

// TestAVXLayouts checks that the lane layouts are bijections and that each
// places butterfly partners (entries differing in bit s) in the same lane.
func TestAVXLayouts(t *testing.T) {
	for s := 0; s < 4; s++ {
		seen := map[int]bool{}
		for e := 0; e < 32; e++ {
			p := posL(s, e)
			if seen[p] || elemL(s, p) != e {
				t.Fatalf("layout L%d not a bijection at e=%d", s, e)
			}
			seen[p] = true
			if e>>s&1 == 0 && posL(s, e|1<<s) != p+16 {
				t.Errorf("L%d: partner of %d not in the same lane of the other register", s, e)
			}
			if (p&15)>>s != e>>(s+1) {
				t.Errorf("L%d: lane>>s is not the butterfly group for e=%d", s, e)
			}
		}
	}
}
