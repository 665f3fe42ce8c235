package bgv

import (
	"fmt"
	"math/big"
	"math/bits"
)

// isPrime reports whether q is prime; ProbablyPrime(0) is Baillie–PSW, exact
// below 2^64.
func isPrime(q uint64) bool { return new(big.Int).SetUint64(q).ProbablyPrime(0) }

// isPrimeInt reports whether the small integer m is prime.
func isPrimeInt(m int) bool { return m > 1 && isPrime(uint64(m)) }

// generatePrimes returns count primes with exactly bitSize bits, all ≡ 1
// (mod step) and none in exclude, the largest first. backend/ring's
// GenerateNTTPrimes covers only step = 2N (a power of two); here step is m or
// m·N with m an odd prime.
func generatePrimes(bitSize int, step uint64, count int, exclude map[uint64]bool) ([]uint64, error) {
	if bitSize < 2 || bitSize > maxModulusBits {
		return nil, fmt.Errorf("prime size %d bits outside [2, %d]", bitSize, maxModulusBits)
	}
	top := uint64(1) << uint(bitSize)
	lo := top >> 1
	if top <= step {
		return nil, fmt.Errorf("no %d-bit primes ≡ 1 mod %d: 2^%d <= %d", bitSize, step, bitSize, step)
	}
	var out []uint64
	for c := (top-1)/step*step + 1; len(out) < count && c > lo; c -= step {
		if c < top && !exclude[c] && isPrime(c) {
			out = append(out, c)
		}
		if c <= step {
			break
		}
	}
	if len(out) < count {
		return out, fmt.Errorf("only %d %d-bit primes ≡ 1 mod %d are available, need %d", len(out), bitSize, step, count)
	}
	return out, nil
}

// multiplicativeOrder returns the order of a in Z_m^* (m prime, gcd(a, m) = 1).
func multiplicativeOrder(a, m uint64) int {
	x, k := a%m, 1
	for x != 1 {
		x = x * a % m
		k++
	}
	return k
}

// smallestGenerator returns the smallest generator of Z_m^* for the prime m.
func smallestGenerator(m uint64) uint64 {
	fs := primeFactors(m - 1)
	for g := uint64(2); ; g++ {
		ok := true
		for _, f := range fs {
			if powMod(g, (m-1)/f, m) == 1 {
				ok = false
				break
			}
		}
		if ok {
			return g
		}
	}
}

// leadingZeros is bits.LeadingZeros64, named for the tests' bit-size checks.
func leadingZeros(x uint64) int { return bits.LeadingZeros64(x) }

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
