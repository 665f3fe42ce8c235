package ring

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
)

// MulMod64 returns a·b mod q for any q > 0 (slow path: a 128-bit division).
// Hot loops use Modulus32/Modulus64 instead.
func MulMod64(a, b, q uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, q)
}

// PowMod returns a^e mod q by square-and-multiply. It is meant for table
// construction, not for inner loops.
func PowMod(a, e, q uint64) uint64 {
	if q == 1 {
		return 0
	}
	r := uint64(1)
	a %= q
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = MulMod64(r, a, q)
		}
		a = MulMod64(a, a, q)
	}
	return r
}

// InvMod returns a^-1 mod q via the extended Euclidean algorithm, and false if
// gcd(a, q) != 1 (q need not be prime).
func InvMod(a, q uint64) (uint64, bool) {
	if q == 0 {
		return 0, false
	}
	// Bezout coefficients of 64-bit moduli overflow int64, so use math/big:
	// this is never on a hot path.
	inv := new(big.Int).ModInverse(new(big.Int).SetUint64(a%q), new(big.Int).SetUint64(q))
	if inv == nil {
		return 0, false
	}
	return inv.Uint64(), true
}

// IsPrime reports whether q is prime. big.Int.ProbablyPrime(0) runs
// Baillie-PSW, which is exact for all 64-bit inputs.
func IsPrime(q uint64) bool {
	return new(big.Int).SetUint64(q).ProbablyPrime(0)
}

// BitReverse returns the reversal of the low logN bits of k.
func BitReverse(k uint64, logN int) uint64 {
	if logN == 0 {
		return 0
	}
	return bits.Reverse64(k) >> (64 - uint(logN))
}

// checkN verifies that N is a power of two >= 2 and returns log2(N).
func checkN(N int) (int, error) {
	if N < 2 || N&(N-1) != 0 {
		return 0, fmt.Errorf("ring: N = %d is not a power of two >= 2", N)
	}
	return bits.TrailingZeros(uint(N)), nil
}

// GenerateNTTPrimes returns the count largest primes Q < 2^bitSize with
// Q ≡ 1 (mod 2N), in decreasing order; these are exactly the primes with a
// primitive 2N-th root of unity, as the negacyclic NTT needs. For example
// GenerateNTTPrimes(27, 1024, 1) = [134215681]. All returned primes have
// exactly bitSize bits; it is an error if fewer than count exist.
func GenerateNTTPrimes(bitSize, N, count int) ([]uint64, error) {
	if _, err := checkN(N); err != nil {
		return nil, fmt.Errorf("generating NTT primes: %w", err)
	}
	primes, err := GeneratePrimes(bitSize, uint64(2*N), count, nil)
	if err != nil {
		return primes, fmt.Errorf("generating NTT primes for N = %d: %w", N, err)
	}
	return primes, nil
}

// ErrNoRoot reports that Q has no primitive 2N-th root of unity.
var ErrNoRoot = errors.New("ring: no primitive 2N-th root of unity (need prime Q ≡ 1 mod 2N)")

// PrimitiveRoot returns a primitive 2N-th root of unity ψ modulo the prime q:
// ψ^N = -1. It takes x^((q-1)/2N) for x = 2, 3, ... and returns the first
// candidate of full order, so the choice is deterministic for a given (q, N);
// keys stored in the NTT domain rely on that.
func PrimitiveRoot(q uint64, N int) (uint64, error) {
	if _, err := checkN(N); err != nil {
		return 0, err
	}
	m := uint64(2 * N)
	if q < 3 || (q-1)%m != 0 || !IsPrime(q) {
		return 0, fmt.Errorf("%w: q = %d, N = %d", ErrNoRoot, q, N)
	}
	e := (q - 1) / m
	for x := uint64(2); x < q; x++ {
		g := PowMod(x, e, q)
		// g has order dividing 2N, a power of two: it is exactly 2N iff g^N = -1.
		if PowMod(g, uint64(N), q) == q-1 {
			return g, nil
		}
	}
	return 0, fmt.Errorf("%w: q = %d, N = %d", ErrNoRoot, q, N)
}

// RootOfUnity returns a primitive k-th root of unity modulo the prime q for
// k | q-1: the first x^((q-1)/k), x = 2, 3, ..., whose order is exactly k.
// The choice is deterministic, so evaluation-form data is portable.
func RootOfUnity(q, k uint64) (uint64, error) {
	if k == 0 || (q-1)%k != 0 {
		return 0, fmt.Errorf("no primitive %d-th root of unity mod %d", k, q)
	}
	primes := PrimeFactors(k)
	for x := uint64(2); x < q; x++ {
		r := PowMod(x, (q-1)/k, q)
		ok := r != 0
		for _, f := range primes {
			if PowMod(r, k/f, q) == 1 {
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

// PrimeFactors returns the distinct prime factors of k in increasing order
// (trial division; table construction only).
func PrimeFactors(k uint64) []uint64 {
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

// InvModPrime returns a^-1 mod the prime q (Fermat; table construction only).
func InvModPrime(a, q uint64) uint64 { return PowMod(a, q-2, q) }

// MultiplicativeOrder returns the order of a in Z_m^* (gcd(a, m) = 1, m >= 2;
// table construction only).
func MultiplicativeOrder(a, m uint64) int {
	x, k := a%m, 1
	for x != 1 {
		x = MulMod64(x, a, m)
		k++
	}
	return k
}

// SmallestGenerator returns the smallest generator of Z_m^* for the prime m.
func SmallestGenerator(m uint64) uint64 {
	fs := PrimeFactors(m - 1)
	for g := uint64(2); ; g++ {
		ok := true
		for _, f := range fs {
			if PowMod(g, (m-1)/f, m) == 1 {
				ok = false
				break
			}
		}
		if ok {
			return g
		}
	}
}

// GeneratePrimes returns count primes with exactly bitSize bits (2..62),
// all ≡ 1 (mod step) and none in exclude (may be nil), the largest first. It
// is an error if fewer than count exist. GenerateNTTPrimes is the case
// step = 2N; prime cyclotomics (backend/bgv) use step = m or m·N.
func GeneratePrimes(bitSize int, step uint64, count int, exclude map[uint64]bool) ([]uint64, error) {
	if bitSize < 2 || bitSize > 62 {
		return nil, fmt.Errorf("generating primes: bit size %d outside [2, 62]", bitSize)
	}
	if count < 0 || step == 0 {
		return nil, fmt.Errorf("generating primes: count %d, step %d", count, step)
	}
	top := uint64(1) << uint(bitSize)
	lo := top >> 1
	if top <= step {
		return nil, fmt.Errorf("generating primes: no %d-bit primes ≡ 1 mod %d: 2^%d <= %d", bitSize, step, bitSize, step)
	}
	// Largest candidate ≡ 1 mod step below 2^bitSize.
	c := (top-1)/step*step + 1
	if c >= top {
		c -= step
	}
	primes := make([]uint64, 0, count)
	for ; len(primes) < count && c > lo; c -= step {
		if !exclude[c] && IsPrime(c) {
			primes = append(primes, c)
		}
		if c <= step {
			break
		}
	}
	if len(primes) < count {
		return primes, fmt.Errorf("generating primes: only %d %d-bit primes ≡ 1 mod %d, wanted %d",
			len(primes), bitSize, step, count)
	}
	return primes, nil
}
