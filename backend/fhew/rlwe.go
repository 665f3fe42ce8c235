package fhew

// RLWE, RLWE', RGSW (section 2.2 of the seed paper) with keys in the NTT
// domain, the signed gadget decomposition, the external product and the
// automorphism with key switching.
//
// Layout. An RLWE ciphertext (b, a) in the NTT domain is 2N uint32. An
// RLWE'(m) is d_g RLWE rows, row r encrypting g_r·m with g_r = B_g^(r+dropped).
// An RGSW(m) is 2·d_g rows: rows [0, d_g) form RLWE'(m), rows [d_g, 2d_g)
// form RLWE'(z·m). Keys are flat []uint32 slabs of rows, each row b then a.

// decompose writes the signed base-B_g digits of the coefficient-domain
// polynomial in (entries in [0, Q)) into out[0..dg): in ≡ Σ_r g_r·out[r]
// up to the dropped low part. Each digit lies in [-B_g/2, B_g/2] and is
// stored mod Q. With DropLowestDigit the value is first rounded to a
// multiple of B_g (OpenFHE's approximate decomposition), which costs a
// rounding error below B_g/2 per coefficient and saves one digit.
func decompose(p *params, in []uint32, out [][]uint32) {
	// ring.DecomposeSigned implements exactly this (AVX-512 with a pure-Go
	// fallback).
	p.ntt.DecomposeSigned(in[:p.N], p.logBg, p.dropped, out[:p.dg])
}

// decomposeLazy is decompose with the digits stored as d + Q (below 2Q,
// see ring's DecomposeSignedLazy), for digits that are transformed next.
func decomposeLazy(p *params, in []uint32, out [][]uint32) {
	p.ntt.DecomposeSignedLazy(in[:p.N], p.logBg, p.dropped, out[:p.dg])
}

// rowLen is the length of one RLWE row (b then a) in uint32.
func (p *params) rowLen() int { return 2 * p.N }

// rgswLen is the length of one RGSW key.
func (p *params) rgswLen() int { return 2 * p.dg * p.rowLen() }

// autoKeyLen is the length of one automorphism key (an RLWE').
func (p *params) autoKeyLen() int { return p.dg * p.rowLen() }

// encryptRowsNTT fills rows (each b then a, NTT domain) with RLWE_z
// encryptions of g_r·msg[r%dg... ] as given by msgNTT: row r encrypts
// gadget[r % dg]·msgNTT[r / dg] (msgNTT entries in the NTT domain; a nil
// message encrypts zero). The a parts come from pub (regenerable from the
// key's seed), errors from noise: b = -a·z + e + g·m.
func encryptRowsNTT(p *params, zNTT []uint32, msgNTT [][]uint32, rows []uint32, pub, noise *prng, ebuf []uint32) {
	N := p.N
	nt := p.ntt
	nrows := len(rows) / (2 * N)
	for r := 0; r < nrows; r++ {
		b := rows[2*r*N : (2*r+1)*N]
		a := rows[(2*r+1)*N : (2*r+2)*N]
		pub.uniformMod(p.Q, a)
		for i := range ebuf[:N] {
			ebuf[i] = nt.FromInt64(noise.gaussian(p.gauss))
		}
		nt.Forward(ebuf, ebuf)
		// b = e - a·z
		nt.MulCoeffs(a, zNTT, b)
		nt.Sub(ebuf[:N], b, b)
		if m := msgNTT[r/p.dg]; m != nil {
			nt.MulScalarAdd(m, p.gadget[r%p.dg], b)
		}
	}
}

// externalProduct sets acc = acc ⊛ key (section 2.2): acc = (b, a) in the
// NTT domain, key an RGSW in the NTT domain. It inverse-transforms b and a,
// decomposes both (2·d_g digit polynomials), transforms the digits and
// accumulates Σ_r digit_r ⊙ row_r in 64 bits before one reduction
// (ring's DotRows).
func externalProduct(p *params, accB, accA []uint32, key []uint32, sc *Scratch) {
	nt := p.ntt
	N, dg := p.N, p.dg
	// The key comes from main memory (n distinct keys per bootstrap, 16-32
	// KB each, far beyond L2) and its loads dominated the multiply-adds'
	// time; prefetching it here overlaps them with the transforms below.
	prefetchKey(key)
	nt.Inverse(accB, sc.cb)
	nt.Inverse(accA, sc.ca)
	decomposeLazy(p, sc.cb, sc.dig[:dg])
	decomposeLazy(p, sc.ca, sc.dig[dg:2*dg])
	unreduced := unreducedDigits(p)
	for _, d := range sc.dig[:2*dg] {
		if unreduced {
			nt.ForwardUnreduced(d, d)
		} else {
			nt.ForwardLazy(d, d)
		}
	}
	nt.DotRows(sc.dig[:2*dg], key[:2*dg*2*N], nil, sc.lazyB, sc.lazyA, accB, accA)
}

// automorphism sets acc = Auto_t(acc, ak_t) (section 2.4.2): ψ_t permutes
// b and a in the NTT domain (index tables precomputed), then a(X^t) is
// switched from z(X^t) back to z with ak_t = RLWE'_z(z(X^t)):
// acc = (b(X^t), 0) + a(X^t) ⊙ ak_t.
func automorphism(p *params, accB, accA []uint32, index []uint32, key []uint32, sc *Scratch) {
	nt := p.ntt
	N, dg := p.N, p.dg
	autoNTT(accB, index, sc.tmpB)
	autoNTT(accA, index, sc.tmpA)
	nt.Inverse(sc.tmpA, sc.ca)
	decomposeLazy(p, sc.ca, sc.dig[:dg])
	unreduced := unreducedDigits(p)
	for _, d := range sc.dig[:dg] {
		if unreduced {
			nt.ForwardUnreduced(d, d)
		} else {
			nt.ForwardLazy(d, d)
		}
	}
	nt.DotRows(sc.dig[:dg], key[:dg*2*N], sc.tmpB[:N], sc.lazyB, sc.lazyA, accB, accA)
}

// autoNTT applies an NTT-domain automorphism permutation: out[k] = in[index[k]].
func autoNTT(in, index, out []uint32) {
	out = out[:len(index)]
	for k, src := range index {
		out[k] = in[src]
	}
}

// unreducedDigits reports whether digit polynomials that only feed DotRows
// may be transformed with ForwardUnreduced (entries below 2^32, skipping the
// pure-Go last pass's reductions): DotRows' sum of 2·d_g such products by
// key entries below Q, plus one entry below Q, provably stays below 2^64
// when (2·d_g + 1)·Q <= 2^32 (27- and 28-bit Q with up to 7 digits).
// Otherwise ForwardLazy (entries in [0, 2Q)) is used.
func unreducedDigits(p *params) bool {
	return uint64(2*p.dg+1)*uint64(p.ntt.Q) <= 1<<32
}
