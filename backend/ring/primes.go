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
	if bitSize < 2 || bitSize > 62 {
		return nil, fmt.Errorf("generating NTT primes: bit size %d outside [2, 62]", bitSize)
	}
	if count < 0 {
		return nil, fmt.Errorf("generating NTT primes: negative count %d", count)
	}
	m := uint64(2 * N)
	lo := uint64(1) << uint(bitSize-1)
	// Largest candidate ≡ 1 mod 2N below 2^bitSize.
	top := uint64(1) << uint(bitSize)
	if top <= m {
		return nil, fmt.Errorf("generating NTT primes: 2^%d too small for 2N = %d", bitSize, m)
	}
	c := (top-1)/m*m + 1
	if c >= top {
		c -= m
	}
	primes := make([]uint64, 0, count)
	for ; len(primes) < count && c > lo; c -= m {
		if IsPrime(c) {
			primes = append(primes, c)
		}
		if c < m {
			break
		}
	}
	if len(primes) < count {
		return primes, fmt.Errorf("generating NTT primes: only %d %d-bit primes ≡ 1 mod %d, wanted %d",
			len(primes), bitSize, m, count)
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
