package ring

import "fmt"

// galoisElement reduces t modulo 2N and checks it is odd (X -> X^t is a ring
// automorphism of Z_Q[X]/(X^N+1) exactly for odd t).
func galoisElement(N int, t uint64) uint64 {
	t %= uint64(2 * N)
	if t%2 == 0 {
		panic(fmt.Sprintf("ring: automorphism exponent %d is even (N = %d)", t, N))
	}
	return t
}

// GaloisElement returns the exponent t mod 2N of the automorphism for a
// signed exponent (e.g. -g), so callers can write GaloisElement(N, -5).
// It panics on an even exponent: that is a caller bug, not a data error.
func GaloisElement(N int, t int64) uint64 {
	m := int64(2 * N)
	r := t % m
	if r < 0 {
		r += m
	}
	return galoisElement(N, uint64(r))
}

// AutomorphismNTTIndex returns the slot permutation of X -> X^t (t odd,
// taken mod 2N) in the NTT domain of this package (bit-reversed slot order):
// NTT(a(X^t))[k] = NTT(a)[index[k]]. Apply it with AutomorphismNTT. N must be
// a power of two.
func AutomorphismNTTIndex(N int, t uint64) []uint32 {
	logN, err := checkN(N)
	if err != nil {
		panic(err)
	}
	t = galoisElement(N, t)
	mask := uint64(2*N - 1)
	index := make([]uint32, N)
	for k := range index {
		// Slot k holds the evaluation at ψ^e, e = 2·brv(k)+1; a(X^t) there
		// is a(ψ^(e·t)), held by the slot whose exponent is e·t mod 2N.
		e := 2*BitReverse(uint64(k), logN) + 1
		et := (e * t) & mask
		index[k] = uint32(BitReverse((et-1)/2, logN))
	}
	return index
}

// AutomorphismNTT sets out[k] = in[index[k]] for k < len(index): the
// automorphism in the NTT domain, given index = AutomorphismNTTIndex(N, t).
// It is a pure permutation, so any reduction range is preserved. out must not
// alias in.
func AutomorphismNTT[T uint32 | uint64](in []T, index []uint32, out []T) {
	out = out[:len(index)]
	for k, src := range index {
		out[k] = in[src]
	}
}

// AutomorphismCoeffIndex precomputes the coefficient-domain automorphism
// X -> X^t (t odd, mod 2N) for AutomorphismCoeffWithIndex: entry i is the
// destination of coefficient i, with bit 31 set when the coefficient changes
// sign (X^(i·t) = -X^(i·t - N) when i·t mod 2N >= N).
func AutomorphismCoeffIndex(N int, t uint64) []uint32 {
	if _, err := checkN(N); err != nil {
		panic(err)
	}
	t = galoisElement(N, t)
	mask := uint64(2*N - 1)
	index := make([]uint32, N)
	for i := range index {
		d := (uint64(i) * t) & mask
		if d >= uint64(N) {
			index[i] = uint32(d-uint64(N)) | negFlag
		} else {
			index[i] = uint32(d)
		}
	}
	return index
}

// negFlag marks a sign change in an AutomorphismCoeffIndex entry.
const negFlag = 1 << 31

// AutomorphismCoeff sets out = in(X^t) in the coefficient domain (t odd,
// taken mod 2N, N = len(in)); in fully reduced. out must not alias in. It
// computes the destinations on the fly; AutomorphismCoeffWithIndex uses a
// precomputed table instead.
func (m Modulus32) AutomorphismCoeff(in []uint32, t uint64, out []uint32) {
	N := len(in)
	t = galoisElement(N, t)
	mask := uint64(2*N - 1)
	out = out[:N]
	q := m.Q
	for i, c := range in {
		d := (uint64(i) * t) & mask
		if d >= uint64(N) {
			nc := q - c
			out[d-uint64(N)] = min(nc, nc-q)
		} else {
			out[d] = c
		}
	}
}

// AutomorphismCoeffWithIndex is AutomorphismCoeff with index =
// AutomorphismCoeffIndex(N, t). out must not alias in.
func (m Modulus32) AutomorphismCoeffWithIndex(in []uint32, index []uint32, out []uint32) {
	q := m.Q
	in = in[:len(index)]
	for i, d := range index {
		c := in[i]
		if d&negFlag != 0 {
			nc := q - c
			c = min(nc, nc-q)
		}
		out[d&^negFlag] = c
	}
}

// MulByMonomial sets out = in · X^k in Z_Q[X]/(X^N+1) (coefficient domain,
// N = len(in), any integer k, negacyclic: X^N = -1). in fully reduced; out
// must not alias in. This is the rotation blind rotation applies to
// accumulators and test polynomials.
func (m Modulus32) MulByMonomial(in []uint32, k int, out []uint32) {
	N := len(in)
	out = out[:N]
	k %= 2 * N
	if k < 0 {
		k += 2 * N
	}
	q := m.Q
	neg := k >= N
	if neg {
		k -= N
	}
	// Coefficients i < N-k move up by k with the sign of X^k; the rest wrap
	// past X^N and flip sign once more.
	for i, c := range in {
		j := i + k
		flip := neg
		if j >= N {
			j -= N
			flip = !flip
		}
		if flip {
			nc := q - c
			c = min(nc, nc-q)
		}
		out[j] = c
	}
}
