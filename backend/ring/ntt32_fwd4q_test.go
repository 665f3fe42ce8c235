package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// forwardRadix2NR4Q is the reference of the noXRed Forward4Q kernels: the
// radix-2 Cooley–Tukey stages of forwardRadix2_32 without Harvey's
// reduction of X, the last stage's X reduced by Barrett (X -
// floor(X·br/2^32)·Q, br = floor(2^32/Q), as BARRETT_V), and no final
// reduction: the outputs in [0, 4Q), representatives included.
func forwardRadix2NR4Q(a, psi, psiS []uint32, q, br uint32) {
	N := len(a)
	q2 := 2 * q
	for m, t := 1, N/2; m < N; m, t = 2*m, t/2 {
		for i := 0; i < m; i++ {
			w, ws := psi[m+i], psiS[m+i]
			for j := 2 * i * t; j < 2*i*t+t; j++ {
				u := a[j]
				if t == 1 {
					u -= uint32((uint64(u)*uint64(br))>>32) * q
				}
				v := a[j+t]
				tt := v*w - uint32((uint64(v)*uint64(ws))>>32)*q
				a[j], a[j+t] = u+tt, u-tt+q2
			}
		}
	}
}

// TestNTT32Forward4Q checks Forward4Q on every prime of the vector tests and
// every N the prime admits: entries below 4Q (below 2^32 for 30-bit
// primes) and congruent to Forward's, in place and out of place, on random
// and extreme inputs; where the noXRed vector kernels run (27-bit primes,
// N >= 128) also bit for bit against forwardRadix2NR4Q.
func TestNTT32Forward4Q(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	exactRuns := 0
	for _, q := range exactPrimes {
		for logN := 1; logN <= 13; logN++ {
			N := 1 << logN
			if (uint64(q)-1)%uint64(2*N) != 0 {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			ins := [][]uint32{randPoly32(rng, N, 4*q), randPoly32(rng, N, q), make([]uint32, N), make([]uint32, N)}
			for i := range N {
				ins[2][i] = 4*q - 1
				ins[3][i] = uint32(i%2) * (4*q - 1)
			}
			top := min(4*uint64(q), 1<<32)
			exact := r.noXRed && hasAVX512 && N >= avxMinN
			for k, in := range ins {
				name := fmt.Sprintf("Q=%d/N=%d/input=%d", q, N, k)
				want := make([]uint32, N)
				r.Forward(in, want)
				got := make([]uint32, N)
				r.Forward4Q(in, got)
				inPlace := append([]uint32(nil), in...)
				r.Forward4Q(inPlace, inPlace)
				equal32(t, name+"/in place", inPlace, got)
				for i, x := range got {
					if uint64(x) >= top || x%q != want[i] {
						t.Fatalf("%s: slot %d = %d (mod Q %d), want %d below %d", name, i, x, x%q, want[i], top)
					}
				}
				if exact {
					ref := append([]uint32(nil), in...)
					forwardRadix2NR4Q(ref, r.psiRev, r.psiRevShoup, q, r.br)
					equal32(t, name+"/reference", got, ref)
					exactRuns++
				}
			}
		}
	}
	if hasAVX512 && exactRuns == 0 {
		t.Fatal("no case ran the noXRed vector kernels")
	}
}

// TestRNS2Forward4Q checks that RNS2.Forward4Q is Forward4Q per residue.
func TestRNS2Forward4Q(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, r := range rnsRings(t) {
		in := r.NewPoly()
		for i := range 2 {
			copy(in[i], randPoly32(rng, r.N, r.NTT[i].Q))
		}
		got := r.NewPoly()
		r.Forward4Q(in, got)
		for i, nt := range r.NTT {
			want := make([]uint32, r.N)
			nt.Forward4Q(in[i], want)
			equal32(t, fmt.Sprintf("N=%d residue %d", r.N, i), got[i], want)
		}
	}
}

// TestNTT32InverseUnscaled checks InverseUnscaled against N times Inverse
// (both fully reduced, so bit for bit) on every prime of the vector tests
// and every N the prime admits, random and extreme inputs below 2Q, in
// place and out of place; and RNS2.InverseUnscaled per residue.
func TestNTT32InverseUnscaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	vector := 0
	for _, q := range exactPrimes {
		for logN := 1; logN <= 13; logN++ {
			N := 1 << logN
			if (uint64(q)-1)%uint64(2*N) != 0 {
				continue
			}
			r, err := NewNTT32(N, q)
			if err != nil {
				t.Fatal(err)
			}
			if hasAVX512 && N > avxMinN {
				vector++
			}
			ins := [][]uint32{randPoly32(rng, N, 2*q), randPoly32(rng, N, q), make([]uint32, N), make([]uint32, N)}
			for i := range N {
				ins[2][i] = 2*q - 1
				ins[3][i] = uint32(i%2) * (2*q - 1)
			}
			for k, in := range ins {
				name := fmt.Sprintf("Q=%d/N=%d/input=%d", q, N, k)
				want := make([]uint32, N)
				r.Inverse(in, want)
				for i, x := range want {
					want[i] = uint32(uint64(x) * uint64(N) % uint64(q))
				}
				got := make([]uint32, N)
				r.InverseUnscaled(in, got)
				equal32(t, name, got, want)
				copy(got, in)
				r.InverseUnscaled(got, got)
				equal32(t, name+"/in place", got, want)
			}
		}
	}
	if hasAVX512 && vector == 0 {
		t.Fatal("no case ran the vector kernels")
	}
	for _, r := range rnsRings(t) {
		in := r.NewPoly()
		for i := range 2 {
			copy(in[i], randPoly32(rng, r.N, r.NTT[i].Q))
		}
		got := r.NewPoly()
		r.InverseUnscaled(in, got)
		for i, nt := range r.NTT {
			want := make([]uint32, r.N)
			nt.InverseUnscaled(in[i], want)
			equal32(t, fmt.Sprintf("RNS2 N=%d residue %d", r.N, i), got[i], want)
		}
	}
}
