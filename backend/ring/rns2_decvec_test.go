package ring

import (
	"math/rand/v2"
	"testing"
)

// TestRNS2DecomposeVectorDrops compares Decompose (the vector kernel where
// available) with decomposeRef bit for bit for the gadgets of the CBS and
// FHEW parameter sets and every drop from the smallest valid one up, so
// that the kernel's switch from int64 to int32 digit lanes (digits64) is
// exercised at each position, on random and edge inputs.
func TestRNS2DecomposeVectorDrops(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	r := newTestRNS2(t, 2048, 27)
	h := int64((r.Modulus() - 1) / 2)
	in := r.NewPoly()
	v := make([]int64, r.N)
	gadgets := []struct{ logB, digits int }{{17, 2}, {9, 2}, {11, 5}, {7, 8}, {14, 4}, {27, 2}, {5, 11}}
	for _, g := range gadgets {
		minDrop := max(0, r.Bits()+1-g.digits*g.logB)
		for drop := minDrop; drop <= min(minDrop+40, 62); drop++ {
			if r.CheckDecompose(g.logB, g.digits, drop) != nil {
				continue
			}
			for i := range v {
				v[i] = rng.Int64N(2*h+1) - h
			}
			copy(v, decompEdges(r, g.logB, drop))
			r.SetCentered(v, in)
			got, want := make([]Poly2, g.digits), make([]Poly2, g.digits)
			for j := range got {
				got[j], want[j] = r.NewPoly(), r.NewPoly()
			}
			r.Decompose(in, g.logB, g.digits, drop, got)
			r.decomposeRef(in, g.logB, g.digits, drop, want)
			for j := range got {
				for i := range 2 {
					for k := range r.N {
						if got[j][i][k] != want[j][i][k] {
							t.Fatalf("logB %d digits %d drop %d: digit %d residue %d slot %d = %d, want %d",
								g.logB, g.digits, drop, j, i, k, got[j][i][k], want[j][i][k])
						}
					}
				}
			}
		}
	}
}

// TestDigits64 checks the int32 switch point against the exact worst case:
// after digits64 digits, every remainder v of a centred input satisfies
// |v| + B/2 < 2^31.
func TestDigits64(t *testing.T) {
	r := newTestRNS2(t, 2048, 27)
	for _, g := range []struct{ logB, digits, drop int }{{17, 2, 21}, {9, 2, 37}, {11, 5, 0}, {7, 8, 0}, {14, 4, 0}, {14, 4, 20}} {
		var round int64
		if g.drop > 0 {
			round = 1 << (g.drop - 1)
		}
		k := digits64(r.halfQ, uint64(round), g.drop, g.logB, g.digits)
		halfB := int64(1) << (g.logB - 1)
		for _, x := range []int64{int64(r.halfQ), -int64(r.halfQ), int64(r.halfQ) - 1, -int64(r.halfQ) + 1} {
			v := (x + round) >> g.drop
			for j := 0; j < g.digits; j++ {
				if j >= k && (v+halfB >= 1<<31 || -v+halfB >= 1<<31) {
					t.Fatalf("%+v: digit %d of x = %d runs in int32 lanes with v = %d", g, j, x, v)
				}
				d := ((v + halfB) & (2*halfB - 1)) - halfB
				v = (v - d) >> g.logB
			}
		}
	}
}
