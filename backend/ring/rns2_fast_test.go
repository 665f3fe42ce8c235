package ring

import (
	"math/rand/v2"
	"testing"
)

// TestRNS2FastPathsAgree checks that Decompose and DotRows (vector kernels
// where available) give exactly the results of the obvious reference loops
// and of the scalar Go loops, for every gadget of decompCases, ring sizes
// below and above the vector width, and digit counts around the fused
// kernel's and the lazy accumulator's limits. Under -tags purego it checks
// the Go loops alone.
func TestRNS2FastPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	rings := append(rnsRings(t), newTestRNS2(t, 4, 20), newTestRNS2(t, 8, 29))
	for _, r := range rings {
		h := int64((r.Modulus() - 1) / 2)
		in := r.NewPoly()
		v := make([]int64, r.N)
		for _, c := range decompCases {
			for _, extra := range []int{0, 3} {
				drop := max(0, r.Bits()+1-c.digits*c.logB) + extra
				for i := range v {
					v[i] = rng.Int64N(2*h+1) - h
				}
				copy(v, decompEdges(r, c.logB, drop))
				r.SetCentered(v, in)
				outs := make([][]Poly2, 3)
				for k := range outs {
					outs[k] = make([]Poly2, c.digits)
					for j := range outs[k] {
						outs[k][j] = r.NewPoly()
					}
				}
				r.Decompose(in, c.logB, c.digits, drop, outs[0])
				r.decomposeRef(in, c.logB, c.digits, drop, outs[1])
				r.decomposeGo(in, 0, c.logB, c.digits, drop, outs[2])
				for j := range c.digits {
					for i := range 2 {
						for k := range r.N {
							a, b, g := outs[0][j][i][k], outs[1][j][i][k], outs[2][j][i][k]
							if a != b || g != b {
								t.Fatalf("N %d logB %d digits %d drop %d: digit %d residue %d slot %d: Decompose %d, Go %d, reference %d",
									r.N, c.logB, c.digits, drop, j, i, k, a, g, b)
							}
						}
					}
				}
			}
		}
		for _, nd := range []int{0, 1, 4, 8, 15, 16, 17, 33} {
			digits, rowsB, rowsA := make([]Poly2, nd), make([]Poly2, nd), make([]Poly2, nd)
			for j := range digits {
				digits[j], rowsB[j], rowsA[j] = r.NewPoly(), r.NewPoly(), r.NewPoly()
				for _, p := range []Poly2{digits[j], rowsB[j], rowsA[j]} {
					for k := range p[0] {
						// Mostly the largest residues, where lazy sums overflow first.
						p[0][k], p[1][k] = r.Q0-1-rng.Uint32N(3), r.Q1-1-rng.Uint32N(3)
						if rng.IntN(4) == 0 {
							p[0][k], p[1][k] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
						}
					}
				}
			}
			res := make([][2]Poly2, 3)
			for k := range res {
				res[k] = [2]Poly2{r.NewPoly(), r.NewPoly()}
			}
			r.DotRows(digits, rowsB, rowsA, res[0][0], res[0][1])
			r.dotRowsRef(digits, rowsB, rowsA, res[1][0], res[1][1])
			r.dotRowsChunked(digits, rowsB, rowsA, res[2][0], res[2][1])
			for o := range 2 {
				for i := range 2 {
					for k := range r.N {
						a, b, g := res[0][o][i][k], res[1][o][i][k], res[2][o][i][k]
						if a != b || g != b {
							t.Fatalf("N %d Q%d %d digits: output %d slot %d: DotRows %d, chunked %d, reference %d", r.N, i, nd, o, k, a, g, b)
						}
					}
				}
			}
		}
	}
}
