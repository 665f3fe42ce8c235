package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// TestAutomorphismAgrees: κ_t in evaluation form (rotation) equals κ_t in
// coefficient form (permutation and folding), for every t at m = 17 and
// sampled t at m = 257 and 8191; and κ_t composes as the group Z_m^*.
func TestAutomorphismAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		lit    ParamsLiteral
		sample int
	}{{ToyM17Literal, 0}, {ToyM257Literal, 20}, {M8191Literal, 3}} {
		pr := testParams(t, tc.lit)
		r := pr.RingQ()
		level := min(r.MaxLevel(), 2)
		m := pr.M()
		ts := []uint64{}
		if tc.sample == 0 {
			for i := 1; i < m; i++ {
				ts = append(ts, uint64(i))
			}
		} else {
			ts = append(ts, 2, pr.Generator(), uint64(m-1))
			for len(ts) < tc.sample {
				ts = append(ts, 1+rng.Uint64N(uint64(m-1)))
			}
		}
		t.Run(fmt.Sprintf("m=%d", m), func(t *testing.T) {
			scratch := r.NewScratch()
			a := r.NewPoly(level)
			for i := range a.Rows {
				a.Rows[i] = randomRow(rng, r.N(), r.Prime(i))
			}
			ae := r.NewPoly(level)
			r.ToEval(a, ae, scratch)
			got, want := r.NewPoly(level), r.NewPoly(level)
			for _, g := range ts {
				if err := r.Automorphism(ae, g, got); err != nil {
					t.Fatal(err)
				}
				r.ToCoeff(got, got, scratch)
				if err := r.AutomorphismCoeff(a, g, want); err != nil {
					t.Fatal(err)
				}
				for i := range want.Rows {
					for j := range want.Rows[i] {
						if got.Rows[i][j] != want.Rows[i][j] {
							t.Fatalf("κ_%d: prime %d coefficient %d: eval %d != coeff %d", g, i, j, got.Rows[i][j], want.Rows[i][j])
						}
					}
				}
			}
			// κ_u ∘ κ_v = κ_(uv), checked in coefficient form.
			u, v := ts[len(ts)-1], ts[len(ts)/2]
			x, y, z := r.NewPoly(level), r.NewPoly(level), r.NewPoly(level)
			_ = r.AutomorphismCoeff(a, v, x)
			_ = r.AutomorphismCoeff(x, u, y)
			_ = r.AutomorphismCoeff(a, u*v%uint64(m), z)
			for i := range z.Rows {
				for j := range z.Rows[i] {
					if y.Rows[i][j] != z.Rows[i][j] {
						t.Fatalf("κ_%d∘κ_%d != κ_%d at prime %d coefficient %d", u, v, u*v%uint64(m), i, j)
					}
				}
			}
		})
	}
}

func TestGaloisLog(t *testing.T) {
	pr := testParams(t, ToyM257Literal)
	for e := 0; e < pr.N(); e++ {
		g := pr.GaloisElement(e)
		if g != ring.PowMod(pr.Generator(), uint64(e), uint64(pr.M())) {
			t.Fatalf("GaloisElement(%d) = %d", e, g)
		}
		if got, err := pr.GaloisLog(g); err != nil || got != e {
			t.Fatalf("GaloisLog(%d) = %d, %v; want %d", g, got, err, e)
		}
	}
	if _, err := pr.GaloisLog(uint64(pr.M())); err == nil {
		t.Error("GaloisLog(m) succeeded, want an error for a non-unit")
	}
	r := pr.RingQ()
	a, b := r.NewPoly(r.MaxLevel()), r.NewPoly(r.MaxLevel())
	if n := testing.AllocsPerRun(10, func() {
		_ = r.Automorphism(a, 3, b)
		_ = r.AutomorphismCoeff(a, 3, b)
	}); n != 0 {
		t.Errorf("automorphisms allocate %.1f times per run, want 0", n)
	}
}
