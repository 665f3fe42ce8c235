package bgv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestParallelScratch: key switches on 2 and 3 workers give the same
// ciphertexts, bit for bit, as on one (the rows are independent, so the
// split must not change any value), for multiplication and automorphisms.
func TestParallelScratch(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM257Literal, M8191Literal} {
		k := newTestKit(t, lit)
		rng := rand.New(rand.NewPCG(51, 52))
		x, y := k.encrypt(t, randomSlots(rng, k.enc)), k.encrypt(t, randomSlots(rng, k.enc))
		g := k.pr.RotationElement(1)
		want, wantRot := k.pr.NewCiphertext(), k.pr.NewCiphertext()
		if err := k.ev.Mul(x, y, want, k.pr.NewScratch()); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.Automorphism(x, g, wantRot, k.pr.NewScratch()); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", lit.Name, workers), func(t *testing.T) {
				sc := k.pr.NewParallelScratch(workers)
				if sc.Workers() != workers {
					t.Fatalf("Workers() = %d, want %d", sc.Workers(), workers)
				}
				got, gotRot := k.pr.NewCiphertext(), k.pr.NewCiphertext()
				if err := k.ev.Mul(x, y, got, sc); err != nil {
					t.Fatal(err)
				}
				if err := k.ev.Automorphism(x, g, gotRot, sc); err != nil {
					t.Fatal(err)
				}
				for _, pair := range [][2]*Ciphertext{{got, want}, {gotRot, wantRot}} {
					a, b := pair[0], pair[1]
					for c := range a.Value {
						for i, row := range a.Value[c].Rows {
							for j, v := range row {
								if v != b.Value[c].Rows[i][j] {
									t.Fatalf("component %d, row %d, entry %d: %d on %d workers, %d on one", c, i, j, v, workers, b.Value[c].Rows[i][j])
								}
							}
						}
					}
				}
			})
		}
	}
}
