package ring

import (
	"fmt"
	"math/bits"
	"sync/atomic"
)

// RNS2 is Z_Q[X]/(X^N+1) for Q = Q0·Q1, two distinct NTT-friendly primes
// < 2^30 (Qi ≡ 1 mod 2N), each polynomial held as its two residue
// polynomials (Poly2). It is the ring of circuit bootstrapping, whose
// modulus (~54 bits) is too wide for one NTT32 prime but whose hot loops
// want the 32-bit kernels: every operation runs per prime on NTT32 /
// Modulus32, and only the centred value of a coefficient (Centered,
// Decompose) needs the Chinese remainder theorem.
//
// Immutable after NewRNS2, safe for concurrent use.
type RNS2 struct {
	// N is the ring degree (a power of two), LogN = log2(N).
	N, LogN int
	// Q0, Q1 are the two primes; Q = Q0·Q1.
	Q0, Q1 uint32
	// NTT holds the per-prime transforms (which embed their Modulus32).
	NTT [2]*NTT32

	// q = Q0·Q1 and halfQ = (Q-1)/2 (Q is odd): the centred representative
	// of x in [0, Q) is x - Q when x > halfQ.
	q, halfQ uint64
	// Garner's CRT: x = r0 + Q0·t with t = (r1 - r0)·q0Inv mod Q1. The
	// subtraction is done as r1 + sub - r0 with sub = Q1·ceil(Q0/Q1) >= Q0,
	// so it never wraps and stays below 2^32; q0Inv = Q0^-1 mod Q1 with its
	// Shoup companion.
	sub, q0Inv, q0InvShoup uint32
	// bits is the bit length of Q.
	bits int
}

// NewRNS2 builds the ring for degree N (a power of two >= 2) and the two
// distinct primes q0, q1 < 2^30 with qi ≡ 1 (mod 2N). GenerateNTTPrimes
// finds such primes, e.g. GenerateNTTPrimes(27, 2048, 2). Bad arguments are
// reported as errors.
func NewRNS2(N int, q0, q1 uint32) (*RNS2, error) {
	logN, err := checkN(N)
	if err != nil {
		return nil, fmt.Errorf("ring: RNS2: %w", err)
	}
	if q0 == q1 {
		return nil, fmt.Errorf("ring: RNS2: the two primes are equal (%d)", q0)
	}
	var ntt [2]*NTT32
	for i, q := range [2]uint32{q0, q1} {
		if q >= MaxQ32 {
			return nil, fmt.Errorf("ring: RNS2: prime %d = %d is not below 2^30", i, q)
		}
		ntt[i], err = NewNTT32(N, q)
		if err != nil {
			return nil, fmt.Errorf("ring: RNS2: prime %d: %w", i, err)
		}
	}
	inv, ok := InvMod(uint64(q0), uint64(q1))
	if !ok { // unreachable for distinct primes; kept as a guard
		return nil, fmt.Errorf("ring: RNS2: %d is not invertible mod %d", q0, q1)
	}
	Q := uint64(q0) * uint64(q1)
	r := &RNS2{
		N: N, LogN: logN, Q0: q0, Q1: q1, NTT: ntt,
		q: Q, halfQ: (Q - 1) / 2,
		sub:   q1 * ((q0 + q1 - 1) / q1),
		q0Inv: uint32(inv),
		bits:  bits.Len64(Q),
	}
	r.q0InvShoup = ntt[1].ShoupConst(r.q0Inv)
	return r, nil
}

// Modulus returns Q = Q0·Q1.
func (r *RNS2) Modulus() uint64 { return r.q }

// Bits returns the bit length of Q (Q < 2^Bits()).
func (r *RNS2) Bits() int { return r.bits }

// Poly2 is a polynomial of an RNS2 ring: [0] holds its residues mod Q0,
// [1] mod Q1, each of length N. Which domain (coefficient or NTT) it is in
// is up to the caller.
type Poly2 [2][]uint32

// NewPoly returns a zero polynomial (both residue slices of length N).
//
// The slices are staggered: their start offsets modulo 4 KiB differ from
// poly to poly (a cycling counter picks one of 32 offsets, 128 bytes
// apart) and between the two residues. Without that every slice of a
// power-of-two length would start at the same offset modulo the page size,
// and the 24 operand streams of an 8-digit DotRows would all map to the
// same L1 cache sets, thrashing them (measured: about twice as slow). The
// padding costs 6% of memory on average; NewPolys packs many polynomials
// more tightly.
func (r *RNS2) NewPoly() Poly2 {
	s := int(polyStagger.Add(1)%32) * 2 * polyPad
	buf := make([]uint32, s+2*r.N+polyPad)
	return Poly2{buf[s : s+r.N : s+r.N], buf[s+r.N+polyPad : s+2*r.N+polyPad : s+2*r.N+polyPad]}
}

// polyPad is the gap, in uint32 words (one 64-byte cache line), that
// staggers residue slices; polyStagger cycles NewPoly's offsets.
const polyPad = 16

var polyStagger atomic.Uint32

// NewPolys returns n zero polynomials in one allocation, each residue slice
// followed by a one-cache-line gap, so that (for N >= 32) up to 64
// consecutive slices start at distinct offsets modulo 4 KiB (see NewPoly):
// the layout for keys, gadget rows and digit sets.
func (r *RNS2) NewPolys(n int) []Poly2 {
	N := r.N
	stride := N + polyPad
	buf := make([]uint32, 2*n*stride)
	ps := make([]Poly2, n)
	for j := range ps {
		o := 2 * j * stride
		ps[j] = Poly2{buf[o : o+N : o+N], buf[o+stride : o+stride+N : o+stride+N]}
	}
	return ps
}

// Forward sets out = NTT(in) for both residues: in in the coefficient
// domain, out in the NTT domain (slot order as for NTT32), fully reduced.
// in and out may alias.
func (r *RNS2) Forward(in, out Poly2) {
	r.NTT[0].Forward(in[0], out[0])
	r.NTT[1].Forward(in[1], out[1])
}

// Forward4Q is Forward with out's entries in [0, 4Q_i) instead of fully
// reduced (NTT32.Forward4Q), for DotRowsMono2's digits. in and out may
// alias.
func (r *RNS2) Forward4Q(in, out Poly2) {
	r.NTT[0].Forward4Q(in[0], out[0])
	r.NTT[1].Forward4Q(in[1], out[1])
}

// Inverse sets out = NTT^-1(in) for both residues (NTT domain to
// coefficient domain), fully reduced. in and out may alias.
func (r *RNS2) Inverse(in, out Poly2) {
	r.NTT[0].Inverse(in[0], out[0])
	r.NTT[1].Inverse(in[1], out[1])
}

// InverseUnscaled sets out = N·NTT^-1(in) for both residues, fully
// reduced (NTT32.InverseUnscaled: Inverse without N^-1). in and out may
// alias.
func (r *RNS2) InverseUnscaled(in, out Poly2) {
	r.NTT[0].InverseUnscaled(in[0], out[0])
	r.NTT[1].InverseUnscaled(in[1], out[1])
}

// Add sets out = a + b mod Q (either domain). Any of a, b, out may alias.
func (r *RNS2) Add(a, b, out Poly2) {
	// addMod (rns2_add.go): the vector kernel where it applies.
	addMod(r.Q0, a[0][:r.N], b[0][:r.N], nil, out[0][:r.N])
	addMod(r.Q1, a[1][:r.N], b[1][:r.N], nil, out[1][:r.N])
}

// Sub sets out = a - b mod Q (either domain). Any of a, b, out may alias.
func (r *RNS2) Sub(a, b, out Poly2) {
	r.NTT[0].Sub(a[0], b[0], out[0])
	r.NTT[1].Sub(a[1], b[1], out[1])
}

// Neg sets out = -a mod Q (either domain). a and out may alias.
func (r *RNS2) Neg(a, out Poly2) {
	r.NTT[0].Neg(a[0], out[0])
	r.NTT[1].Neg(a[1], out[1])
}

// MulCoeffs sets out = a∘b slot-wise (NTT domain: the ring product). Any of
// a, b, out may alias.
func (r *RNS2) MulCoeffs(a, b, out Poly2) {
	r.NTT[0].MulCoeffs(a[0], b[0], out[0])
	r.NTT[1].MulCoeffs(a[1], b[1], out[1])
}

// MulCoeffsAdd sets out = out + a∘b slot-wise (NTT domain). Any of a, b,
// out may alias.
func (r *RNS2) MulCoeffsAdd(a, b, out Poly2) {
	r.NTT[0].MulCoeffsAdd(a[0], b[0], out[0])
	r.NTT[1].MulCoeffsAdd(a[1], b[1], out[1])
}

// MulScalar sets out = a·s mod Q (either domain; s is reduced mod Q
// first, i.e. any uint64 is accepted). a and out may alias.
func (r *RNS2) MulScalar(a Poly2, s uint64, out Poly2) {
	r.NTT[0].MulScalar(a[0], uint32(s%uint64(r.Q0)), out[0])
	r.NTT[1].MulScalar(a[1], uint32(s%uint64(r.Q1)), out[1])
}

// AddScalarConst sets out = a + s (coefficient domain: s, reduced mod Q,
// is added to the constant coefficient; the others are copied). a and out
// may alias.
func (r *RNS2) AddScalarConst(a Poly2, s uint64, out Poly2) {
	for i, m := range r.NTT {
		if &out[i][0] != &a[i][0] {
			copy(out[i][:r.N], a[i][:r.N])
		}
		out[i][0] = m.AddMod(a[i][0], uint32(s%uint64(m.Q)))
	}
}

// SetCentered sets out to the coefficient-domain polynomial with
// coefficients v[i] (|v[i]| < Q/2, len(v) >= N).
func (r *RNS2) SetCentered(v []int64, out Poly2) {
	v = v[:r.N]
	for i, m := range r.NTT {
		o := out[i][:r.N]
		for j, x := range v {
			o[j] = m.FromInt64(x)
		}
	}
}

// crt returns the representative in [0, Q) of the residues (r0, r1)
// (Garner): x = r0 + Q0·((r1 - r0)·Q0^-1 mod Q1).
func (r *RNS2) crt(r0, r1 uint32) uint64 {
	t := r.NTT[1].MulShoup(r1+r.sub-r0, r.q0Inv, r.q0InvShoup)
	return uint64(r0) + uint64(r.Q0)*uint64(t)
}

// centered returns the representative of (r0, r1) in [-(Q-1)/2, (Q-1)/2].
func (r *RNS2) centered(r0, r1 uint32) int64 {
	x := r.crt(r0, r1)
	if x > r.halfQ {
		return int64(x) - int64(r.q)
	}
	return int64(x)
}

// Centered sets out[i] to the centred representative of coefficient i of in
// (coefficient domain, fully reduced), in [-(Q-1)/2, (Q-1)/2] (Q is odd, so
// this is the interval (-Q/2, Q/2]). len(out) >= N.
func (r *RNS2) Centered(in Poly2, out []int64) {
	a, b := in[0][:r.N], in[1][:r.N]
	out = out[:r.N]
	for i := range out {
		out[i] = r.centered(a[i], b[i])
	}
}

// CenteredAt returns the centred representative of coefficient i of in
// (see Centered).
func (r *RNS2) CenteredAt(in Poly2, i int) int64 {
	return r.centered(in[0][i], in[1][i])
}
