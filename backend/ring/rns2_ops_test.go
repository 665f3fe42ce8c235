package ring

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// decompCases are the gadgets Decompose is tested with; each is adjusted
// to the ring's width (drop grows until the digits span log Q + 1 bits).
var decompCases = []struct{ logB, digits int }{
	{2, 1}, {3, 4}, {7, 4}, {8, 8}, {10, 3}, {14, 4}, {16, 2}, {18, 3}, {23, 2}, {28, 2}, {30, 2}, {6, 10},
}

// decompEdges returns centred edge values: 0, ±1, ±(Q-1)/2 and values next
// to multiples of 2^drop and of the digit weights.
func decompEdges(r *RNS2, logB, drop int) []int64 {
	h := int64((r.Modulus() - 1) / 2)
	e := []int64{0, 1, -1, h, -h, h - 1, -h + 1}
	for s := 0; s < r.Bits(); s += max(1, logB/2) {
		for _, d := range []int64{-1, 0, 1} {
			v := int64(1)<<s + d
			if v <= h {
				e = append(e, v, -v)
			}
		}
	}
	if drop > 0 {
		half := int64(1) << (drop - 1)
		for _, d := range []int64{-1, 0, 1} {
			for _, v := range []int64{half + d, -half + d, 3*half + d, -3*half + d} {
				if v >= -h && v <= h {
					e = append(e, v)
				}
			}
		}
	}
	return e
}

// TestRNS2Decompose checks the digit range and the reconstruction
// Σ d_j·2^(drop+j·logB) ≈ x (within 2^(drop-1), exactly in math/big) for
// random and edge values, several gadgets and drops.
func TestRNS2Decompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, r := range rnsRings(t) {
		h := int64((r.Modulus() - 1) / 2)
		for _, c := range decompCases {
			minDrop := max(0, r.Bits()+1-c.digits*c.logB)
			for _, drop := range []int{minDrop, minDrop + 1, minDrop + 5, minDrop + c.logB} {
				if drop > 62 {
					continue
				}
				if err := r.CheckDecompose(c.logB, c.digits, drop); err != nil {
					t.Fatal(err)
				}
				v := make([]int64, r.N)
				for i := range v {
					v[i] = rng.Int64N(2*h+1) - h
				}
				edges := decompEdges(r, c.logB, drop)
				for off := 0; off < len(edges); off += r.N {
					copy(v, edges[off:])
					checkDecompose(t, r, v, c.logB, c.digits, drop)
				}
			}
		}
	}
}

func checkDecompose(t *testing.T, r *RNS2, v []int64, logB, digits, drop int) {
	t.Helper()
	in := r.NewPoly()
	r.SetCentered(v, in)
	out := make([]Poly2, digits)
	for j := range out {
		out[j] = r.NewPoly()
	}
	r.Decompose(in, logB, digits, drop, out)
	d := make([][]int64, digits)
	for j := range d {
		d[j] = make([]int64, r.N)
		r.Centered(out[j], d[j])
	}
	B := int64(1) << logB
	half := new(big.Int)
	if drop > 0 {
		half.Lsh(big.NewInt(1), uint(drop-1))
	}
	for i, x := range v {
		sum := new(big.Int)
		for j := range d {
			dj := d[j][i]
			if dj < -B/2 || dj >= B/2 {
				t.Fatalf("logB %d digits %d drop %d: x = %d digit %d = %d outside [-B/2, B/2)", logB, digits, drop, x, j, dj)
			}
			// The residues hold dj itself, not merely dj mod Q.
			for k, q := range [2]uint32{r.Q0, r.Q1} {
				want := new(big.Int).Mod(big.NewInt(dj), big.NewInt(int64(q))).Uint64()
				if uint64(out[j][k][i]) != want {
					t.Fatalf("digit residue %d of %d is %d, want %d", k, dj, out[j][k][i], want)
				}
			}
			term := new(big.Int).Lsh(big.NewInt(dj), uint(drop+j*logB))
			sum.Add(sum, term)
		}
		diff := new(big.Int).Sub(big.NewInt(x), sum)
		if diff.CmpAbs(half) > 0 || (drop == 0 && diff.Sign() != 0) {
			t.Fatalf("logB %d digits %d drop %d: x = %d reconstructs to %v (error %v > 2^(drop-1))", logB, digits, drop, x, sum, diff)
		}
		// Rounding is to nearest with ties up: x - sum in [-2^(drop-1), 2^(drop-1)).
		if drop > 0 && diff.Cmp(half) == 0 {
			t.Fatalf("x = %d: tie rounded down", x)
		}
	}
	// GadgetConst: Σ d_j·g_j mod Q equals the reconstruction mod Q.
	Q := new(big.Int).SetUint64(r.Modulus())
	for _, i := range []int{0, 1, r.N - 1} {
		s, ref := new(big.Int), new(big.Int)
		for j := range d {
			g := new(big.Int).SetUint64(r.GadgetConst(logB, j, drop))
			s.Add(s, new(big.Int).Mul(big.NewInt(d[j][i]), g))
			ref.Add(ref, new(big.Int).Lsh(big.NewInt(d[j][i]), uint(drop+j*logB)))
		}
		if s.Mod(s, Q).Cmp(ref.Mod(ref, Q)) != 0 {
			t.Fatalf("GadgetConst mismatch at coefficient %d", i)
		}
	}
}

func TestRNS2DecomposeBadArgs(t *testing.T) {
	r := newTestRNS2(t, 64, 27)
	bad := []struct{ logB, digits, drop int }{
		{1, 60, 0}, {0, 4, 0}, {31, 2, 0}, {8, 0, 60}, {8, 4, -1}, {8, 4, 63}, {8, 6, 6}, {27, 2, 0},
	}
	out := []Poly2{r.NewPoly(), r.NewPoly()}
	for _, b := range bad {
		if err := r.CheckDecompose(b.logB, b.digits, b.drop); err == nil {
			t.Errorf("CheckDecompose(%d, %d, %d) accepted", b.logB, b.digits, b.drop)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Decompose(%d, %d, %d) did not panic", b.logB, b.digits, b.drop)
				}
			}()
			r.Decompose(r.NewPoly(), b.logB, b.digits, b.drop, out)
		}()
	}
	if err := r.CheckDecompose(28, 2, 0); err != nil { // 56 >= 55 bits
		t.Error(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Decompose with fewer outputs than digits did not panic")
			}
		}()
		r.Decompose(r.NewPoly(), 8, 7, 0, out)
	}()
}

// TestRNS2MulByMonomial compares in·X^k with the schoolbook product by the
// monomial, for shifts of every sign and size.
func TestRNS2MulByMonomial(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, r := range rnsRings(t) {
		N := r.N
		a := randModQ(rng, r)
		pa, out := r.NewPoly(), r.NewPoly()
		fromModQ(r, a, pa)
		for _, k := range []int{0, 1, -1, 5, N - 1, N, N + 1, 2*N - 1, 2 * N, 2*N + 3, -N, -N - 1, -2*N - 7, 5*N + 2, -7*N + 1} {
			r.MulByMonomial(pa, k, out)
			e := ((k % (2 * N)) + 2*N) % (2 * N)
			mono := make([]uint64, N)
			if e < N {
				mono[e] = 1
			} else {
				mono[e-N] = r.Modulus() - 1
			}
			var want []uint64
			if N <= 64 {
				want = schoolbook(a, mono, r.Modulus())
			} else { // shift by definition: a_i X^(i+e), X^N = -1
				want = make([]uint64, N)
				Q := r.Modulus()
				for i, x := range a {
					j := (i + e) % (2 * N)
					if j < N {
						want[j] = x
					} else {
						want[j-N] = (Q - x) % Q
					}
				}
			}
			equalU64(t, "MulByMonomial", toModQ(r, out), want)
		}
	}
}

// TestRNS2Automorphism checks AutomorphismCoeff against the definition
// a(X^t) = Σ a_i X^(i·t) and that AutomorphismNTT agrees with it through
// Forward.
func TestRNS2Automorphism(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, r := range rnsRings(t) {
		N := r.N
		Q := r.Modulus()
		a := randModQ(rng, r)
		pa, out, fa, fo, ref := r.NewPoly(), r.NewPoly(), r.NewPoly(), r.NewPoly(), r.NewPoly()
		fromModQ(r, a, pa)
		r.Forward(pa, fa)
		for _, tt := range []uint64{1, 3, 5, uint64(2*N - 1), uint64(N + 1), 25, uint64(4*N + 5)} {
			r.AutomorphismCoeff(pa, tt, out)
			want := make([]uint64, N)
			for i, x := range a {
				e := (uint64(i) * tt) % uint64(2*N)
				if e < uint64(N) {
					want[e] = (want[e] + x) % Q
				} else {
					want[e-uint64(N)] = (want[e-uint64(N)] + Q - x) % Q
				}
			}
			equalU64(t, "AutomorphismCoeff", toModQ(r, out), want)

			r.AutomorphismNTT(fa, AutomorphismNTTIndex(N, tt), fo)
			r.Forward(out, ref)
			for k := range ref {
				if ref[0][k] != fo[0][k] || ref[1][k] != fo[1][k] {
					t.Fatalf("t = %d: AutomorphismNTT slot %d disagrees with Forward(AutomorphismCoeff)", tt, k)
				}
			}
		}
	}
}

// TestRNS2DotRows compares DotRows with sums of MulCoeffs products, for
// digit counts beyond the lazy-accumulation limit of 30-bit primes.
func TestRNS2DotRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, r := range rnsRings(t) {
		for _, nd := range []int{1, 2, 3, 4, 8, 17, 40} {
			digits, rowsB, rowsA := make([]Poly2, nd), make([]Poly2, nd), make([]Poly2, nd)
			for j := range digits {
				digits[j], rowsB[j], rowsA[j] = r.NewPoly(), r.NewPoly(), r.NewPoly()
				for _, p := range []Poly2{digits[j], rowsB[j], rowsA[j]} {
					for k := range p[0] {
						p[0][k], p[1][k] = rng.Uint32N(r.Q0), rng.Uint32N(r.Q1)
					}
					if j == 0 { // the largest residues
						p[0][0], p[1][0] = r.Q0-1, r.Q1-1
					}
				}
			}
			wantB, wantA, tmp := r.NewPoly(), r.NewPoly(), r.NewPoly()
			for j := range digits {
				r.MulCoeffs(digits[j], rowsB[j], tmp)
				r.Add(wantB, tmp, wantB)
				r.MulCoeffs(digits[j], rowsA[j], tmp)
				r.Add(wantA, tmp, wantA)
			}
			outB, outA := r.NewPoly(), r.NewPoly()
			for k := range outB[0] { // garbage: DotRows overwrites
				outB[0][k], outA[1][k] = 1<<32-1, 1<<31
			}
			r.DotRows(digits, rowsB, rowsA, outB, outA)
			for i := range 2 {
				for k := range outB[i] {
					if outB[i][k] != wantB[i][k] || outA[i][k] != wantA[i][k] {
						t.Fatalf("N %d Q%d %d digits: slot %d: DotRows (%d, %d), want (%d, %d)",
							r.N, i, nd, k, outB[i][k], outA[i][k], wantB[i][k], wantA[i][k])
					}
				}
			}
		}
	}
}
