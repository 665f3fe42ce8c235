package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAutomorphismAgree checks that the coefficient-domain automorphism and
// the NTT-slot permutation agree through the NTT, for the generator 5 and its
// powers, -5 and -1, as FHEW's blind rotation uses them.
func TestAutomorphismAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, N := range []int{8, 512, 1024, 2048} {
		r, err := NewNTT32(N, testQ28)
		if err != nil {
			t.Fatal(err)
		}
		a := randPoly32(rng, N, testQ28)
		fa := make([]uint32, N)
		r.Forward(a, fa)
		g := uint64(1)
		exps := []uint64{GaloisElement(N, -1), GaloisElement(N, -5), 3, uint64(2*N - 3)}
		for u := 0; u < 6; u++ {
			g = g * 5 % uint64(2*N)
			exps = append(exps, g)
		}
		for _, e := range exps {
			t.Run(fmt.Sprintf("N=%d/t=%d", N, e), func(t *testing.T) {
				coef := make([]uint32, N)
				r.AutomorphismCoeff(a, e, coef)
				coef2 := make([]uint32, N)
				r.AutomorphismCoeffWithIndex(a, AutomorphismCoeffIndex(N, e), coef2)
				equal32(t, "AutomorphismCoeffWithIndex", coef2, coef)
				want := make([]uint32, N)
				r.Forward(coef, want)
				got := make([]uint32, N)
				AutomorphismNTT(fa, AutomorphismNTTIndex(N, e), got)
				equal32(t, "AutomorphismNTT vs NTT(AutomorphismCoeff)", got, want)
			})
		}
		// X -> X^t of a monomial X^i is ±X^(i·t mod N) by definition.
		mono := make([]uint32, N)
		mono[3] = 1
		out := make([]uint32, N)
		r.AutomorphismCoeff(mono, 5, out)
		wantIdx, wantVal := 15%(2*N), uint32(1)
		if wantIdx >= N {
			wantIdx, wantVal = wantIdx-N, testQ28-1
		}
		if out[wantIdx] != wantVal {
			t.Errorf("N=%d: X^3 -> X^15 gave %d at %d", N, out[wantIdx], wantIdx)
		}
	}
}

func TestMulByMonomial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const N = 64
	r, err := NewNTT32(N, testQ28)
	if err != nil {
		t.Fatal(err)
	}
	a := randPoly32(rng, N, testQ28)
	for _, k := range []int{0, 1, 5, N - 1, N, N + 7, 2*N - 1, 2 * N, -1, -N - 3} {
		mono := make([]uint32, N)
		kk := ((k % (2 * N)) + 2*N) % (2 * N)
		if kk < N {
			mono[kk] = 1
		} else {
			mono[kk-N] = testQ28 - 1
		}
		want := schoolbook32(a, mono, testQ28)
		got := make([]uint32, N)
		r.MulByMonomial(a, k, got)
		equal32(t, fmt.Sprintf("MulByMonomial k=%d", k), got, want)
	}
}

func TestAllocs32(t *testing.T) {
	const N = 1024
	r, err := NewNTT32(N, testQ27)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	a, b, c := randPoly32(rng, N, testQ27), randPoly32(rng, N, testQ27), make([]uint32, N)
	acc := make([]uint64, N)
	idx := AutomorphismNTTIndex(N, 5)
	cidx := AutomorphismCoeffIndex(N, 5)
	digits := [][]uint32{make([]uint32, N), make([]uint32, N), make([]uint32, N)}
	for name, f := range map[string]func(){
		"Forward":          func() { r.Forward(a, c) },
		"ForwardLazy":      func() { r.ForwardLazy(a, c) },
		"Inverse":          func() { r.Inverse(a, c) },
		"InverseLazy":      func() { r.InverseLazy(a, c) },
		"MulCoeffs":        func() { r.MulCoeffs(a, b, c) },
		"MulCoeffsAdd":     func() { r.MulCoeffsAdd(a, b, c) },
		"MulCoeffsAddLazy": func() { r.MulCoeffsAddLazy(a, b, acc) },
		"ReduceLazy":       func() { r.ReduceLazy(acc, c) },
		"AutomorphismNTT":  func() { AutomorphismNTT(a, idx, c) },
		"AutomorphismCoeff": func() {
			r.AutomorphismCoeffWithIndex(a, cidx, c)
			r.AutomorphismCoeff(a, 5, c)
		},
		"MulByMonomial":   func() { r.MulByMonomial(a, 77, c) },
		"DecomposeSigned": func() { r.DecomposeSigned(a, 7, 1, digits) },
	} {
		if n := testing.AllocsPerRun(10, f); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}
