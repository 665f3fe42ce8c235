package bgv

import (
	"fmt"
	"math/bits"
)

// cyclicNTT is the length-N number-theoretic transform over Z_Q for the CYCLIC
// convolution (evaluation at the powers of a primitive N-th root ω), N a power
// of two, Q ≡ 1 (mod N). backend/ring's NTT is negacyclic (X^N + 1), which
// needs ψ with ψ^N = -1 and would cost a twist by ψ^{-i} before and ψ^i after
// every convolution; Rader's convolution is cyclic, so it gets its own
// transform (and needs only Q ≡ 1 mod N, not mod 2N).
//
// forward: Gentleman–Sande decimation in frequency, natural order in,
// bit-reversed order out. inverse: Cooley–Tukey decimation in time,
// bit-reversed in, natural out, WITHOUT the 1/N factor (callers fold it into a
// constant operand). A forward/pointwise/inverse chain therefore never
// permutes. Both use Harvey's lazy butterflies with Shoup twiddles.
type cyclicNTT struct {
	n   int
	mod modulus
	// Stage tables in heap layout: the stage whose butterflies span 2·h
	// elements uses entries h..2h-1, entry h+j = ω^(j·N/(2h)) (inverse: ω^-…).
	tw, twShoup   []uint64
	itw, itwShoup []uint64
}

func newCyclicNTT(q uint64, n int) (*cyclicNTT, error) {
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("cyclic NTT: length %d is not a power of two >= 2", n)
	}
	if (q-1)%uint64(n) != 0 {
		return nil, fmt.Errorf("cyclic NTT: q = %d is not 1 mod %d", q, n)
	}
	omega, err := rootOfUnity(q, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("cyclic NTT: %w", err)
	}
	t := &cyclicNTT{n: n, mod: newModulus(q)}
	t.tw, t.twShoup = make([]uint64, n), make([]uint64, n)
	t.itw, t.itwShoup = make([]uint64, n), make([]uint64, n)
	omegaInv := invMod(omega, q)
	for h := 1; h < n; h <<= 1 {
		step := uint64(n / (2 * h))
		w, wi := powMod(omega, step, q), powMod(omegaInv, step, q)
		x, xi := uint64(1), uint64(1)
		for j := 0; j < h; j++ {
			t.tw[h+j], t.twShoup[h+j] = x, shoup(x, q)
			t.itw[h+j], t.itwShoup[h+j] = xi, shoup(xi, q)
			x, xi = mulModSlow(x, w, q), mulModSlow(xi, wi, q)
		}
	}
	return t, nil
}

// rootOfUnity returns a primitive k-th root of unity modulo the prime q for
// k | q-1: the first x^((q-1)/k), x = 2, 3, ..., whose order is exactly k.
// The choice is deterministic, so evaluation-form data is portable.
func rootOfUnity(q, k uint64) (uint64, error) {
	if k == 0 || (q-1)%k != 0 {
		return 0, fmt.Errorf("no primitive %d-th root of unity mod %d", k, q)
	}
	primes := primeFactors(k)
	for x := uint64(2); x < q; x++ {
		r := powMod(x, (q-1)/k, q)
		ok := r != 0
		for _, f := range primes {
			if powMod(r, k/f, q) == 1 {
				ok = false
				break
			}
		}
		if ok {
			return r, nil
		}
	}
	return 0, fmt.Errorf("no primitive %d-th root of unity mod %d", k, q)
}

// primeFactors returns the distinct prime factors of k (trial division).
func primeFactors(k uint64) []uint64 {
	var fs []uint64
	for f := uint64(2); f*f <= k; f++ {
		if k%f == 0 {
			fs = append(fs, f)
			for k%f == 0 {
				k /= f
			}
		}
	}
	if k > 1 {
		fs = append(fs, k)
	}
	return fs
}

// forwardLazy transforms a in place: natural order in [0, 2Q), bit-reversed
// order out in [0, 2Q).
func (t *cyclicNTT) forwardLazy(a []uint64) {
	t.forwardStages(a, 1)
}

// forwardStages runs the decimation-in-frequency stages whose butterflies
// have half-span h >= hMin (all of them for hMin = 1), in place, [0, 2Q) in
// and out. convolve stops at hMin = 4 and finishes in convolveMiddle.
func (t *cyclicNTT) forwardStages(a []uint64, hMin int) {
	q, twoQ := t.mod.q, t.mod.twoQ
	n := t.n
	a = a[:n]
	for h := n >> 1; h >= hMin; h >>= 1 {
		tw, twp := t.tw[h:2*h], t.twShoup[h:2*h]
		for s := 0; s < n; s += 2 * h {
			// Re-slicing everything to len(x) lets the compiler drop the
			// bounds checks in the butterfly loop.
			x := a[s : s+h]
			y := a[s+h : s+2*h]
			y, tw, twp := y[:len(x)], tw[:len(x)], twp[:len(x)]
			for j := range x {
				u, v := x[j], y[j]
				sum := u + v
				if sum >= twoQ {
					sum -= twoQ
				}
				x[j] = sum
				y[j] = mulShoupLazy(u+twoQ-v, tw[j], twp[j], q)
			}
		}
	}
}

// inverseLazy transforms a in place: bit-reversed order in [0, 2Q), natural
// order out in [0, 4Q), scaled by N (no 1/N factor).
func (t *cyclicNTT) inverseLazy(a []uint64) {
	t.inverseStages(a, 1)
}

// inverseStages runs the decimation-in-time stages whose butterflies have
// half-span h >= hMin, in place, [0, 4Q) in and out.
func (t *cyclicNTT) inverseStages(a []uint64, hMin int) {
	q, twoQ := t.mod.q, t.mod.twoQ
	n := t.n
	a = a[:n]
	for h := hMin; h < n; h <<= 1 {
		tw, twp := t.itw[h:2*h], t.itwShoup[h:2*h]
		for s := 0; s < n; s += 2 * h {
			x := a[s : s+h]
			y := a[s+h : s+2*h]
			y, tw, twp := y[:len(x)], tw[:len(x)], twp[:len(x)]
			for j := range x {
				u := x[j]
				if u >= twoQ {
					u -= twoQ
				}
				v := mulShoupLazy(y[j], tw[j], twp[j], q)
				x[j] = u + v
				y[j] = u + twoQ - v
			}
		}
	}
}

// convolveMiddle fuses, per block of four, the forward stages h = 2 and 1,
// the pointwise product with the kernel k (bit-reversed, with Shoup
// companions ks) and the inverse stages h = 1 and 2: one pass over a instead
// of five. The twiddles of these stages are 1 and ±ω^(N/4), so half of the
// butterflies need no multiplication. Input is forwardStages(a, 4)'s output
// in [0, 2Q); output in [0, 4Q) goes on to inverseStages(a, 4). N >= 4.
func (t *cyclicNTT) convolveMiddle(a, k, ks []uint64) {
	q, twoQ := t.mod.q, t.mod.twoQ
	n := t.n
	a, k, ks = a[:n], k[:n], ks[:n]
	w, wp := t.tw[3], t.twShoup[3]
	iw, iwp := t.itw[3], t.itwShoup[3]
	for s := 0; s+3 < n; s += 4 {
		x, kk, kp := a[s:s+4:s+4], k[s:s+4:s+4], ks[s:s+4:s+4]
		a0, a1, a2, a3 := x[0], x[1], x[2], x[3]
		// Forward h = 2: twiddles 1 and ω^(N/4).
		b0 := a0 + a2
		if b0 >= twoQ {
			b0 -= twoQ
		}
		b2 := a0 + twoQ - a2
		if b2 >= twoQ {
			b2 -= twoQ
		}
		b1 := a1 + a3
		if b1 >= twoQ {
			b1 -= twoQ
		}
		b3 := mulShoupLazy(a1+twoQ-a3, w, wp, q)
		// Forward h = 1 (twiddle 1; sums stay below 4Q, which the Shoup
		// product accepts) and the pointwise product.
		d0 := mulShoupLazy(b0+b1, kk[0], kp[0], q)
		d1 := mulShoupLazy(b0+twoQ-b1, kk[1], kp[1], q)
		d2 := mulShoupLazy(b2+b3, kk[2], kp[2], q)
		d3 := mulShoupLazy(b2+twoQ-b3, kk[3], kp[3], q)
		// Inverse h = 1 (twiddle 1): [0, 2Q) in, [0, 4Q) out.
		e0, e1 := d0+d1, d0+twoQ-d1
		e2, e3 := d2+d3, d2+twoQ-d3
		// Inverse h = 2: twiddles 1 and ω^(-N/4).
		if e0 >= twoQ {
			e0 -= twoQ
		}
		if e2 >= twoQ {
			e2 -= twoQ
		}
		x[0], x[2] = e0+e2, e0+twoQ-e2
		if e1 >= twoQ {
			e1 -= twoQ
		}
		v := mulShoupLazy(e3, iw, iwp, q)
		x[1], x[3] = e1+v, e1+twoQ-v
	}
}

// log2 returns log2(n) for a power of two n.
func log2(n int) int { return bits.TrailingZeros(uint(n)) }
