package ring

import (
	"fmt"
	"math/bits"
)

// CyclicNTT64 is the length-N number-theoretic transform over Z_Q for the
// CYCLIC convolution (evaluation at the powers of a primitive N-th root ω),
// N a power of two, Q ≡ 1 (mod N), Q < 2^61. NTT64 is negacyclic (X^N + 1),
// which needs ψ with ψ^N = -1 and would cost a twist by ψ^{-i} before and ψ^i
// after every convolution; Rader's convolution (backend/bgv's transform for
// prime cyclotomics) is cyclic, so it gets its own transform (and needs only
// Q ≡ 1 mod N, not mod 2N). Its main operation is Convolve, a cyclic
// convolution with a fixed operand prepared by NewKernel, on AVX-512F/DQ
// kernels where available (cyclic64_amd64.s) and in pure Go otherwise.
//
// forward: Gentleman–Sande decimation in frequency, natural order in,
// bit-reversed order out. inverse: Cooley–Tukey decimation in time,
// bit-reversed in, natural out, WITHOUT the 1/N factor (callers fold it into a
// constant operand). A forward/pointwise/inverse chain therefore never
// permutes. Both use Harvey's lazy butterflies with Shoup twiddles.
type CyclicNTT64 struct {
	n       int
	q, twoQ uint64
	vec     bool // Convolve runs on the vector kernels (kernels in their layout)
	// Stage tables in heap layout: the stage whose butterflies span 2·h
	// elements uses entries h..2h-1, entry h+j = ω^(j·N/(2h)) (inverse: ω^-…).
	tw, twShoup   []uint64
	itw, itwShoup []uint64
	// vconst holds the twiddles of middleAVX's size-8 transforms (N >= 8):
	// ω^(N/8), ω^(N/4), ω^(3N/8), then their inverses, each as (w, w',
	// w' >> 32) with w' the Shoup companion.
	vconst [18]uint64
}

// NewCyclicNTT64 returns the transform of length n (a power of two >= 2)
// modulo the prime q ≡ 1 (mod n), q < 2^61. Convolve uses the AVX-512
// kernels when the CPU has them and n >= 64.
func NewCyclicNTT64(n int, q uint64) (*CyclicNTT64, error) {
	return newCyclicNTT64(n, q, hasCyclicVec && n >= cyclicVecMinN)
}

// newCyclicNTT64 is NewCyclicNTT64 with the kernel choice explicit (tests
// build both and compare them).
func newCyclicNTT64(n int, q uint64, vec bool) (*CyclicNTT64, error) {
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("ring: cyclic NTT length %d is not a power of two >= 2", n)
	}
	if q >= MaxQ64 || (q-1)%uint64(n) != 0 {
		return nil, fmt.Errorf("ring: cyclic NTT modulus %d is not 1 mod %d or not below 2^61", q, n)
	}
	omega, err := RootOfUnity(q, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("ring: cyclic NTT: %w", err)
	}
	t := &CyclicNTT64{n: n, q: q, twoQ: 2 * q, vec: vec}
	t.tw, t.twShoup = make([]uint64, n), make([]uint64, n)
	t.itw, t.itwShoup = make([]uint64, n), make([]uint64, n)
	omegaInv := InvModPrime(omega, q)
	for h := 1; h < n; h <<= 1 {
		step := uint64(n / (2 * h))
		w, wi := PowMod(omega, step, q), PowMod(omegaInv, step, q)
		x, xi := uint64(1), uint64(1)
		for j := 0; j < h; j++ {
			t.tw[h+j], t.twShoup[h+j] = x, ShoupConst64(x, q)
			t.itw[h+j], t.itwShoup[h+j] = xi, ShoupConst64(xi, q)
			x, xi = MulMod64(x, w, q), MulMod64(xi, wi, q)
		}
	}
	if n >= 8 {
		for i, idx := range []int{5, 3, 7} {
			t.vconst[3*i], t.vconst[3*i+1], t.vconst[3*i+2] = t.tw[idx], t.twShoup[idx], t.twShoup[idx]>>32
			t.vconst[9+3*i], t.vconst[10+3*i], t.vconst[11+3*i] = t.itw[idx], t.itwShoup[idx], t.itwShoup[idx]>>32
		}
	}
	return t, nil
}

// N returns the transform length.
func (t *CyclicNTT64) N() int { return t.n }

// Q returns the modulus.
func (t *CyclicNTT64) Q() uint64 { return t.q }

// Vector reports whether Convolve runs on the AVX-512 kernels.
func (t *CyclicNTT64) Vector() bool { return t.vec }

// CyclicKernel is a fixed operand of CyclicNTT64.Convolve: its transform
// with 1/N folded in, with Shoup companions, in the layout the transform's
// kernels read. Immutable.
type CyclicKernel struct {
	k, kShoup []uint64
}

// NewKernel prepares v (N entries, any uint64, taken mod Q) as a
// convolution operand.
func (t *CyclicNTT64) NewKernel(v []uint64) *CyclicKernel {
	q := t.q
	k := make([]uint64, t.n)
	for i := range k {
		k[i] = v[i] % q
	}
	t.forwardLazy(k)
	nInv := InvModPrime(uint64(t.n)%q, q)
	ks := make([]uint64, t.n)
	for i := range k {
		k[i] = MulMod64(k[i]%q, nInv, q)
		ks[i] = ShoupConst64(k[i], q)
	}
	if t.vec {
		kernelLayoutVec(k)
		kernelLayoutVec(ks)
	}
	return &CyclicKernel{k: k, kShoup: ks}
}

// Convolve replaces buf (N entries in [0, Q)) by its cyclic convolution
// with the operand of k (made by this transform's NewKernel), in [0, Q).
// Allocates nothing.
func (t *CyclicNTT64) Convolve(buf []uint64, k *CyclicKernel) {
	buf = buf[:t.n]
	if t.vec {
		t.convolveVec(buf, k.k, k.kShoup)
		return
	}
	q, twoQ := t.q, t.twoQ
	if t.n >= 4 {
		t.forwardStages(buf, 4)
		t.convolveMiddle(buf, k.k, k.kShoup)
		t.inverseStages(buf, 4, true)
		return
	}
	t.forwardLazy(buf)
	for i := range buf {
		buf[i] = MulShoupLazy64(buf[i], k.k[i], k.kShoup[i], q)
	}
	t.inverseLazy(buf)
	for i, x := range buf {
		buf[i] = reduce4(x, q, twoQ)
	}
}

// cyclicVecMinN is the smallest length the vector kernels handle:
// middleAVX works on groups of 64 entries.
const cyclicVecMinN = 64

// kernelLayoutVec permutes a kernel (bit-reversed order) into middleAVX's
// layout: within each group of 64 entries, the 8×8 transpose, so that entry
// 8k+b of the group is position k of block b.
func kernelLayoutVec(k []uint64) {
	var tmp [64]uint64
	for g := 0; g+64 <= len(k); g += 64 {
		blk := k[g : g+64]
		for b := 0; b < 8; b++ {
			for j := 0; j < 8; j++ {
				tmp[8*j+b] = blk[8*b+j]
			}
		}
		copy(blk, tmp[:])
	}
}

// forwardLazy transforms a in place: natural order in [0, 2Q), bit-reversed
// order out in [0, 2Q).
func (t *CyclicNTT64) forwardLazy(a []uint64) {
	t.forwardStages(a, 1)
}

// forwardStages runs the decimation-in-frequency stages whose butterflies
// have half-span h >= hMin (all of them for hMin = 1), in place, [0, 2Q) in
// and out. convolve stops at hMin = 4 and finishes in convolveMiddle. Stages
// go in pairs (radix 4: two stages per pass over a, half the memory traffic),
// after a single radix-2 stage when their number is odd.
func (t *CyclicNTT64) forwardStages(a []uint64, hMin int) {
	n := t.n
	a = a[:n]
	h := n >> 1
	if h < hMin {
		return
	}
	if (log2Int(h)-log2Int(hMin))%2 == 0 {
		t.forwardStage(a, h)
		h >>= 1
	}
	for ; h > hMin; h >>= 2 {
		t.forwardStage2(a, h)
	}
}

// forwardStage runs one decimation-in-frequency stage of half-span h.
func (t *CyclicNTT64) forwardStage(a []uint64, h int) {
	q, twoQ := t.q, t.twoQ
	n := t.n
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
			y[j] = MulShoupLazy64(u+twoQ-v, tw[j], twp[j], q)
		}
	}
}

// forwardStage2 runs the decimation-in-frequency stages of half-spans h and
// h/2 in one pass: per block of 2h, quarters x0..x3 of length h/2 take the
// butterflies (x0, x2), (x1, x3) with ω-powers tw[h+j], tw[h+h/2+j], then
// (x0, x1), (x2, x3) with tw[h/2+j].
func (t *CyclicNTT64) forwardStage2(a []uint64, h int) {
	q, twoQ := t.q, t.twoQ
	n := t.n
	g := h >> 1
	w1, w1p := t.tw[h:h+g], t.twShoup[h:h+g]
	w2, w2p := t.tw[h+g:2*h], t.twShoup[h+g:2*h]
	w3, w3p := t.tw[g:h], t.twShoup[g:h]
	for s := 0; s < n; s += 2 * h {
		x0 := a[s : s+g]
		x1 := a[s+g : s+2*g]
		x2 := a[s+2*g : s+3*g]
		x3 := a[s+3*g : s+4*g]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		w1, w1p, w2, w2p := w1[:len(x0)], w1p[:len(x0)], w2[:len(x0)], w2p[:len(x0)]
		w3, w3p := w3[:len(x0)], w3p[:len(x0)]
		for j := range x0 {
			u0, u1, u2, u3 := x0[j], x1[j], x2[j], x3[j]
			b0 := u0 + u2
			if b0 >= twoQ {
				b0 -= twoQ
			}
			b2 := MulShoupLazy64(u0+twoQ-u2, w1[j], w1p[j], q)
			b1 := u1 + u3
			if b1 >= twoQ {
				b1 -= twoQ
			}
			b3 := MulShoupLazy64(u1+twoQ-u3, w2[j], w2p[j], q)
			c0 := b0 + b1
			if c0 >= twoQ {
				c0 -= twoQ
			}
			c2 := b2 + b3
			if c2 >= twoQ {
				c2 -= twoQ
			}
			x0[j], x1[j] = c0, MulShoupLazy64(b0+twoQ-b1, w3[j], w3p[j], q)
			x2[j], x3[j] = c2, MulShoupLazy64(b2+twoQ-b3, w3[j], w3p[j], q)
		}
	}
}

// inverseLazy transforms a in place: bit-reversed order in [0, 2Q), natural
// order out in [0, 4Q), scaled by N (no 1/N factor).
func (t *CyclicNTT64) inverseLazy(a []uint64) {
	t.inverseStages(a, 1, false)
}

// inverseStages runs the decimation-in-time stages whose butterflies have
// half-span h >= hMin, in place, [0, 4Q) in and out: a single radix-2 stage
// first when their number is odd, then pairs in one pass each. With full,
// the output is reduced to [0, Q) (in the last pass when it is a pair).
func (t *CyclicNTT64) inverseStages(a []uint64, hMin int, full bool) {
	n := t.n
	a = a[:n]
	h := hMin
	if h < n && (log2Int(n)-log2Int(hMin))%2 == 1 {
		t.inverseStage(a, h)
		h <<= 1
	}
	if h >= n {
		if full {
			q, twoQ := t.q, t.twoQ
			for i, x := range a {
				a[i] = reduce4(x, q, twoQ)
			}
		}
		return
	}
	for ; h < n; h <<= 2 {
		t.inverseStage2(a, h, full && 4*h == n)
	}
}

// reduce4 maps x in [0, 4q) to x mod q.
func reduce4(x, q, twoQ uint64) uint64 {
	if x >= twoQ {
		x -= twoQ
	}
	if x >= q {
		x -= q
	}
	return x
}

// inverseStage runs one decimation-in-time stage of half-span h.
func (t *CyclicNTT64) inverseStage(a []uint64, h int) {
	q, twoQ := t.q, t.twoQ
	n := t.n
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
			v := MulShoupLazy64(y[j], tw[j], twp[j], q)
			x[j] = u + v
			y[j] = u + twoQ - v
		}
	}
}

// inverseStage2 runs the decimation-in-time stages of half-spans h and 2h in
// one pass: per block of 4h, quarters x0..x3 of length h take the
// butterflies (x0, x1), (x2, x3) with ω^-powers itw[h+j], then (x0, x2),
// (x1, x3) with itw[2h+j], itw[3h+j]. With full, the outputs are reduced to
// [0, Q) (saving the caller a pass over the data).
func (t *CyclicNTT64) inverseStage2(a []uint64, h int, full bool) {
	q, twoQ := t.q, t.twoQ
	n := t.n
	w1, w1p := t.itw[h:2*h], t.itwShoup[h:2*h]
	w2, w2p := t.itw[2*h:3*h], t.itwShoup[2*h:3*h]
	w3, w3p := t.itw[3*h:4*h], t.itwShoup[3*h:4*h]
	for s := 0; s < n; s += 4 * h {
		x0 := a[s : s+h]
		x1 := a[s+h : s+2*h]
		x2 := a[s+2*h : s+3*h]
		x3 := a[s+3*h : s+4*h]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		w1, w1p, w2, w2p := w1[:len(x0)], w1p[:len(x0)], w2[:len(x0)], w2p[:len(x0)]
		w3, w3p := w3[:len(x0)], w3p[:len(x0)]
		for j := range x0 {
			u0, u2 := x0[j], x2[j]
			if u0 >= twoQ {
				u0 -= twoQ
			}
			if u2 >= twoQ {
				u2 -= twoQ
			}
			v1 := MulShoupLazy64(x1[j], w1[j], w1p[j], q)
			v3 := MulShoupLazy64(x3[j], w1[j], w1p[j], q)
			b0, b1 := u0+v1, u0+twoQ-v1
			b2, b3 := u2+v3, u2+twoQ-v3
			if b0 >= twoQ {
				b0 -= twoQ
			}
			if b1 >= twoQ {
				b1 -= twoQ
			}
			v2 := MulShoupLazy64(b2, w2[j], w2p[j], q)
			v3 = MulShoupLazy64(b3, w3[j], w3p[j], q)
			if full {
				x0[j], x2[j] = reduce4(b0+v2, q, twoQ), reduce4(b0+twoQ-v2, q, twoQ)
				x1[j], x3[j] = reduce4(b1+v3, q, twoQ), reduce4(b1+twoQ-v3, q, twoQ)
			} else {
				x0[j], x2[j] = b0+v2, b0+twoQ-v2
				x1[j], x3[j] = b1+v3, b1+twoQ-v3
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
func (t *CyclicNTT64) convolveMiddle(a, k, ks []uint64) {
	q, twoQ := t.q, t.twoQ
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
		b3 := MulShoupLazy64(a1+twoQ-a3, w, wp, q)
		// Forward h = 1 (twiddle 1; sums stay below 4Q, which the Shoup
		// product accepts) and the pointwise product.
		d0 := MulShoupLazy64(b0+b1, kk[0], kp[0], q)
		d1 := MulShoupLazy64(b0+twoQ-b1, kk[1], kp[1], q)
		d2 := MulShoupLazy64(b2+b3, kk[2], kp[2], q)
		d3 := MulShoupLazy64(b2+twoQ-b3, kk[3], kp[3], q)
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
		v := MulShoupLazy64(e3, iw, iwp, q)
		x[1], x[3] = e1+v, e1+twoQ-v
	}
}

// log2 returns log2Int(n) for a power of two n.
func log2Int(n int) int { return bits.TrailingZeros(uint(n)) }
