package ring

import "fmt"

// CheckDecompose reports whether (logB, digits, drop) is a valid gadget for
// Decompose in this ring: 2 <= logB <= 30, digits >= 1, 0 <= drop <= 62 and
// drop + digits·logB >= Bits()+1 (so the digits, each in [-B/2, B/2), span
// every centred value). Parameter sets should call it once at set-up;
// Decompose panics on what it rejects.
func (r *RNS2) CheckDecompose(logB, digits, drop int) error {
	switch {
	case logB < 2 || logB > 30:
		return fmt.Errorf("ring: RNS2 gadget base 2^%d: need 2 <= logB <= 30", logB)
	case digits < 1:
		return fmt.Errorf("ring: RNS2 gadget with %d digits: need at least one", digits)
	case drop < 0 || drop > 62:
		return fmt.Errorf("ring: RNS2 gadget drops %d bits: need 0 <= drop <= 62", drop)
	case drop+digits*logB < r.bits+1:
		return fmt.Errorf("ring: RNS2 gadget drop %d + %d digits × %d bits < log Q + 1 = %d: the top digit cannot absorb the sign",
			drop, digits, logB, r.bits+1)
	}
	return nil
}

// GadgetConst returns g_j = 2^(drop + j·logB) mod Q, the gadget constant
// matching digit j of Decompose.
func (r *RNS2) GadgetConst(logB, j, drop int) uint64 {
	return PowMod(2, uint64(drop+j*logB), r.q)
}

// Decompose writes the signed gadget digits of every coefficient of in
// (coefficient domain, fully reduced): the centred value x is rounded to a
// multiple of 2^drop and written as Σ_j d_j·2^(drop + j·logB) with every
// d_j in [-B/2, B/2), B = 2^logB, j = 0..digits-1 (least significant
// first); out[j] receives d_j as residues (coefficient domain, fully
// reduced). Rounding is to nearest, ties up: |x - Σ_j d_j·2^(drop+j·logB)|
// <= 2^(drop-1). Requires CheckDecompose(logB, digits, drop) == nil and
// len(out) >= digits (it panics otherwise: a caller bug). The gadget vector
// is g_j = 2^(drop + j·logB) mod Q (GadgetConst). No out[j] may alias in.
func (r *RNS2) Decompose(in Poly2, logB, digits, drop int, out []Poly2) {
	if err := r.CheckDecompose(logB, digits, drop); err != nil {
		panic(err)
	}
	if len(out) < digits {
		panic(fmt.Sprintf("ring: RNS2.Decompose: %d output polynomials for %d digits", len(out), digits))
	}
	r.decompose(in, logB, digits, drop, out)
}

// decomposeRef is the obvious per-coefficient, per-digit Decompose.
func (r *RNS2) decomposeRef(in Poly2, logB, digits, drop int, out []Poly2) {
	B := int64(1) << logB
	for i := 0; i < r.N; i++ {
		y := r.centered(in[0][i], in[1][i])
		if drop > 0 {
			y = (y + 1<<(drop-1)) >> drop // arithmetic shift floors: rounds to nearest
		}
		for j := 0; j < digits; j++ {
			d := y & (B - 1) // y mod B in [0, B)
			if d >= B/2 {
				d -= B
			}
			y = (y - d) >> logB
			out[j][0][i] = r.NTT[0].FromInt64(d)
			out[j][1][i] = r.NTT[1].FromInt64(d)
		}
	}
}

// MulByMonomial sets out = in·X^k (coefficient domain, negacyclic:
// X^N = -1) for any integer k (taken mod 2N). in and out must not alias.
func (r *RNS2) MulByMonomial(in Poly2, k int, out Poly2) {
	r.NTT[0].MulByMonomial(in[0][:r.N], k, out[0])
	r.NTT[1].MulByMonomial(in[1][:r.N], k, out[1])
}

// AutomorphismCoeff sets out = in(X^t) in the coefficient domain (t odd,
// taken mod 2N; an even t panics). in and out must not alias.
func (r *RNS2) AutomorphismCoeff(in Poly2, t uint64, out Poly2) {
	r.NTT[0].AutomorphismCoeff(in[0][:r.N], t, out[0])
	r.NTT[1].AutomorphismCoeff(in[1][:r.N], t, out[1])
}

// AutomorphismNTT applies X -> X^t in the NTT domain: out[k] = in[index[k]]
// in both residues, with index = AutomorphismNTTIndex(N, t). in and out
// must not alias.
func (r *RNS2) AutomorphismNTT(in Poly2, index []uint32, out Poly2) {
	AutomorphismNTT(in[0], index[:r.N], out[0])
	AutomorphismNTT(in[1], index[:r.N], out[1])
}

// DotRows sets, slot-wise in the NTT domain,
//
//	outB = Σ_j digits[j]∘rowsB[j],  outA = Σ_j digits[j]∘rowsA[j]  (mod Q),
//
// overwriting outB and outA (fully reduced): the multiply-accumulate of the
// external product. len(rowsB), len(rowsA) >= len(digits); entries of
// digits and rows in [0, Q_i). outB and outA must not alias each other nor
// any digit or row.
func (r *RNS2) DotRows(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) {
	r.dotRows(digits, rowsB, rowsA, outB, outA)
}

// dotRowsRef is DotRows as one MulCoeffsAdd per digit and row.
func (r *RNS2) dotRowsRef(digits []Poly2, rowsB, rowsA []Poly2, outB, outA Poly2) {
	for i, m := range r.NTT {
		ob, oa := outB[i][:r.N], outA[i][:r.N]
		clear(ob)
		clear(oa)
		for j, d := range digits {
			m.MulCoeffsAdd(d[i], rowsB[j][i], ob)
			m.MulCoeffsAdd(d[i], rowsA[j][i], oa)
		}
	}
}
