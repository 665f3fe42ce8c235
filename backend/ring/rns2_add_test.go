package ring

import (
	"math/rand/v2"
	"testing"
)

// TestRNS2AddVector checks RNS2.Add and Add3 (vector kernel and Go tail)
// against Modulus32.Add entry by entry, on random values, on the extremes
// 0 and Q-1 in every combination, at N = 2048 and N = 8 (Go loop only),
// and with the output aliasing an input.
func TestRNS2AddVector(t *testing.T) {
	for _, N := range []int{8, 2048} {
		r := newTestRNS2(t, N, 27)
		rng := rand.New(rand.NewPCG(5, uint64(N)))
		fill := func(p Poly2, mode int) {
			for i, nt := range r.NTT {
				for k := range p[i] {
					switch mode {
					case 0:
						p[i][k] = rng.Uint32N(nt.Q)
					case 1:
						p[i][k] = nt.Q - 1
					case 2:
						p[i][k] = 0
					default: // 0 or Q-1 by slot, so a block mixes both
						p[i][k] = (nt.Q - 1) * uint32(rng.IntN(2))
					}
				}
			}
		}
		a, b, c := r.NewPoly(), r.NewPoly(), r.NewPoly()
		want, got, tmp := r.NewPoly(), r.NewPoly(), r.NewPoly()
		for ma := range 4 {
			for mb := range 4 {
				for mc := range 4 {
					fill(a, ma)
					fill(b, mb)
					fill(c, mc)
					for i, nt := range r.NTT {
						nt.Add(a[i], b[i], tmp[i])
						nt.Add(tmp[i], c[i], want[i])
					}
					r.Add3(a, b, c, got)
					comparePoly(t, "Add3", want, got)
					copyPoly2(a, got)
					r.Add3(got, b, c, got) // out aliases a
					comparePoly(t, "Add3 aliased", want, got)
					for i, nt := range r.NTT {
						nt.Add(a[i], b[i], want[i])
					}
					r.Add(a, b, got)
					comparePoly(t, "Add", want, got)
					copyPoly2(b, got)
					r.Add(a, got, got) // out aliases b
					comparePoly(t, "Add aliased", want, got)
				}
			}
		}
	}
}

func copyPoly2(from, to Poly2) {
	copy(to[0], from[0])
	copy(to[1], from[1])
}

func comparePoly(t *testing.T, what string, want, got Poly2) {
	t.Helper()
	for i := range want {
		for k := range want[i] {
			if want[i][k] != got[i][k] {
				t.Fatalf("%s: residue %d slot %d: got %d, want %d", what, i, k, got[i][k], want[i][k])
			}
		}
	}
}

// TestRNS2AddAllocs checks that Add and Add3 allocate nothing.
func TestRNS2AddAllocs(t *testing.T) {
	s := newRNSBench(t)
	if n := testing.AllocsPerRun(20, func() { s.r.Add(s.a, s.tmp, s.tmp) }); n != 0 {
		t.Errorf("Add: %v allocations per run", n)
	}
	if n := testing.AllocsPerRun(20, func() { s.r.Add3(s.a, s.a, s.tmp, s.tmp) }); n != 0 {
		t.Errorf("Add3: %v allocations per run", n)
	}
}

// BenchmarkRNS2Add times RNS2.Add and Add3 at N = 2048.
//
//	go test ./backend/ring -run '^$' -bench RNS2Add -benchtime 10000x
func BenchmarkRNS2Add(b *testing.B) {
	s := newRNSBench(b)
	b.Run("Add", func(b *testing.B) {
		for b.Loop() {
			s.r.Add(s.a, s.tmp, s.tmp)
		}
	})
	b.Run("Add3", func(b *testing.B) {
		for b.Loop() {
			s.r.Add3(s.a, s.a, s.tmp, s.tmp)
		}
	})
}
