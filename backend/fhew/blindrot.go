package fhew

// Blind rotation (Definition 1 of the seed paper): given the test
// polynomial f and an LWE ciphertext (β, α) mod M, compute
// RLWE_z(f·Y^{β + <α, s>}) with Y = X^(2N/M).
//
// Accumulator initialisation and β (eprint 2022/198, LMKCDEY, Algorithm 3
// "BlindRotate", lines 1-2; OpenFHE does the same): β is absorbed into the
// plaintext test polynomial, f' = f·Y^β, and the accumulator starts as the
// trivial RLWE (ψ_t0(f'), 0), where ψ_t0 is the inverse of the product of
// every automorphism the core loop applies. In Algorithm 2 (Signed) the
// automorphisms multiply the exponent by g^(M/4-1) = g^-1 in total, so
// t0 = g; in Algorithm 1 (LMKCDEY) by g^(M/4-1)·(-g)·g^(M/4-1) = -g^-1, so
// t0 = -g. Each s_j of the index set I_l^± then ends up multiplied by ±g^l
// (Equation 2 / Equation 1) and the result is f'·Y^{<α, s>}.

// bucketize groups the coefficient indices by the discrete log of α_i:
// for odd α_i = ±g^l (mod M) the key is l (plus) or l + M/4 (minus).
// Lists are singly linked through sc.next, heads in sc.head (-1 = empty).
func bucketize(p *params, alpha []int32, sc *Scratch) {
	head := sc.head
	for i := range head {
		head[i] = -1
	}
	for i, a := range alpha {
		k := p.dlog[a]
		sc.next[i] = head[k]
		head[k] = int32(i)
	}
}

// blindRotateSigned runs Algorithm 2 (core of the signed-key blind
// rotation) on the accumulator in sc (NTT domain).
func blindRotateSigned(p *params, ek *EvaluationKey, alpha []int32, sc *Scratch) {
	bucketize(p, alpha, sc)
	q4 := p.M / 4
	head, next := sc.head, sc.next
	l := p.rgswLen()
	plus, minus := ek.brk[0], ek.brk[1]
	w := p.window
	v := 0                              // line 2
	for ell := q4 - 1; ell > 0; ell-- { // line 3
		for j := head[ell]; j >= 0; j = next[j] { // lines 4-5: acc ⊛ brk_{+,j}
			externalProduct(p, sc.accB, sc.accA, plus[int(j)*l:int(j+1)*l], sc)
		}
		for j := head[ell+q4]; j >= 0; j = next[j] { // lines 6-7: acc ⊛ brk_{-,j}
			externalProduct(p, sc.accB, sc.accA, minus[int(j)*l:int(j+1)*l], sc)
		}
		v++                                                                // line 8
		if head[ell-1] >= 0 || head[ell-1+q4] >= 0 || v == w || ell == 1 { // line 9
			automorphism(p, sc.accB, sc.accA, p.autoIndex[v], ek.auto[v], sc) // line 10
			sc.automorphisms++
			v = 0 // line 11
		}
	}
	for j := head[0]; j >= 0; j = next[j] { // lines 12-13
		externalProduct(p, sc.accB, sc.accA, plus[int(j)*l:int(j+1)*l], sc)
	}
	for j := head[q4]; j >= 0; j = next[j] { // lines 14-15
		externalProduct(p, sc.accB, sc.accA, minus[int(j)*l:int(j+1)*l], sc)
	}
}

// blindRotateLMKCDEY runs Algorithm 1 (core of LMKCDEY's blind rotation).
func blindRotateLMKCDEY(p *params, ek *EvaluationKey, alpha []int32, sc *Scratch) {
	bucketize(p, alpha, sc)
	q4 := p.M / 4
	// Lines 3-11 run over I^- (bucket offset q4), lines 13-21 over I^+.
	v := lmkcdeyHalf(p, ek, q4, 0, sc)                                // line 2: v <- 0
	automorphism(p, sc.accB, sc.accA, p.autoIndex[0], ek.auto[0], sc) // line 12: Auto_{-g}
	sc.automorphisms++
	lmkcdeyHalf(p, ek, 0, v, sc)
}

// lmkcdeyHalf runs lines 3-11 (off = M/4, the sets I^-) or 13-21 (off = 0,
// I^+) of Algorithm 1 starting with the window counter v; it returns v.
func lmkcdeyHalf(p *params, ek *EvaluationKey, off, v int, sc *Scratch) int {
	q4 := p.M / 4
	head, next := sc.head, sc.next
	l := p.rgswLen()
	keys := ek.brk[0]
	for ell := q4 - 1; ell > 0; ell-- {
		for j := head[ell+off]; j >= 0; j = next[j] { // lines 4-5 / 14-15
			externalProduct(p, sc.accB, sc.accA, keys[int(j)*l:int(j+1)*l], sc)
		}
		v++                                                    // line 6 / 16
		if head[ell-1+off] >= 0 || v == p.window || ell == 1 { // line 7 / 17
			automorphism(p, sc.accB, sc.accA, p.autoIndex[v], ek.auto[v], sc) // line 8 / 18
			sc.automorphisms++
			v = 0 // line 9 / 19
		}
	}
	for j := head[off]; j >= 0; j = next[j] { // lines 10-11 / 20-21
		externalProduct(p, sc.accB, sc.accA, keys[int(j)*l:int(j+1)*l], sc)
	}
	return v
}

// blindRotateGINX runs the ternary GINX blind rotation (section 2.5.2):
// acc <- acc + (Y^{α_i} - 1)·(acc ⊛ RGSW(s_i = 1)) + (Y^{-α_i} - 1)·(acc ⊛
// RGSW(s_i = -1)). The accumulator is decomposed once per i and both key
// products share the digits (transformed as in externalProduct: lazy
// digits, unreduced transforms where the sums allow, ring's fused DotRows);
// the monomial factors are precomputed NTTs, applied in one pass
// (MulCoeffsAdd2).
func blindRotateGINX(p *params, ek *EvaluationKey, alpha []int32, sc *Scratch) {
	nt := p.ntt
	N, dg := p.N, p.dg
	l := p.rgswLen()
	M := int32(p.M)
	unreduced := unreducedDigits(p)
	dig := sc.dig[:2*dg]
	for i, a := range alpha {
		if a == 0 {
			continue
		}
		kp := ek.brk[0][i*l : (i+1)*l]
		km := ek.brk[1][i*l : (i+1)*l]
		prefetchKey(kp) // see externalProduct
		prefetchKey(km)
		nt.Inverse(sc.accB, sc.cb)
		nt.Inverse(sc.accA, sc.ca)
		decomposeLazy(p, sc.cb, dig[:dg])
		decomposeLazy(p, sc.ca, dig[dg:])
		for _, d := range dig {
			if unreduced {
				nt.ForwardUnreduced(d, d)
			} else {
				nt.ForwardLazy(d, d)
			}
		}
		nt.DotRows(dig, kp[:2*dg*2*N], nil, sc.lazyB, sc.lazyA, sc.tmpB, sc.tmpA)
		nt.DotRows(dig, km[:2*dg*2*N], nil, sc.lazyB, sc.lazyA, sc.cb, sc.ca)
		mp := p.ginxMono[a]
		mm := p.ginxMono[(M-a)%M]
		nt.MulCoeffsAdd2(mp, sc.tmpB, mm, sc.cb, sc.accB)
		nt.MulCoeffsAdd2(mp, sc.tmpA, mm, sc.ca, sc.accA)
	}
}
