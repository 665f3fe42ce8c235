package cbs

import (
	crand "crypto/rand"
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// newSeed draws a 32-byte seed from crypto/rand.
func newSeed() ([32]byte, error) {
	var s [32]byte
	if _, err := crand.Read(s[:]); err != nil {
		return s, fmt.Errorf("cbs: reading crypto/rand: %w", err)
	}
	return s, nil
}

// sampler draws secrets, errors and uniform values from a ring.PRNG
// (AES-256-CTR) seeded from crypto/rand. Not safe for concurrent use.
type sampler struct {
	c   *ring.PRNG
	cdf []uint64 // cdf[k] = P(|X| <= k)·2^63 of the rounded Gaussian
}

func newSampler(seed [32]byte, sigma float64) *sampler {
	bound := int(math.Ceil(12 * sigma)) // mass beyond 12σ is below 2^-100
	w := make([]float64, bound+1)
	total := 0.0
	for k := 0; k <= bound; k++ {
		v := math.Exp(-float64(k*k) / (2 * sigma * sigma))
		if k > 0 {
			v *= 2
		}
		w[k] = v
		total += v
	}
	cdf := make([]uint64, bound+1)
	acc := 0.0
	for k := range w {
		acc += w[k] / total
		cdf[k] = uint64(math.Min(acc, 1) * (1 << 63))
	}
	cdf[bound] = 1 << 63
	return &sampler{c: ring.NewPRNG(seed), cdf: cdf}
}

// newCryptoSampler seeds a sampler from crypto/rand.
func newCryptoSampler(sigma float64) (*sampler, error) {
	seed, err := newSeed()
	if err != nil {
		return nil, err
	}
	return newSampler(seed, sigma), nil
}

// gaussian draws one rounded-Gaussian integer.
func (s *sampler) gaussian() int64 {
	x := s.c.Uint64()
	u := x >> 1
	k := 0
	for k < len(s.cdf)-1 && u >= s.cdf[k] {
		k++
	}
	if k != 0 && x&1 == 1 {
		return -int64(k)
	}
	return int64(k)
}

// ternary draws uniformly from {-1, 0, 1} (rejection on 2 bits).
func (s *sampler) ternary() int64 {
	for {
		x := s.c.Uint64()
		for i := 0; i < 32; i++ {
			if v := x & 3; v != 3 {
				return int64(v) - 1
			}
			x >>= 2
		}
	}
}

// uniformMod returns a uniform residue mod q (rejection sampling, no bias).
func (s *sampler) uniformMod(q uint64) uint64 {
	limit := (^uint64(0) / q) * q
	for {
		if x := s.c.Uint64(); x < limit {
			return x % q
		}
	}
}

// uniformPoly fills p with independent uniform residues mod Q0 and mod Q1,
// i.e. (CRT) uniform mod Q, in either domain.
func (s *sampler) uniformPoly(r *ring.RNS2, p ring.Poly2) {
	qs := [2]uint64{uint64(r.Q0), uint64(r.Q1)}
	for k := 0; k < 2; k++ {
		for i := range p[k] {
			p[k][i] = uint32(s.uniformMod(qs[k]))
		}
	}
}

// gaussianPoly fills v with rounded-Gaussian integers.
func (s *sampler) gaussianVec(v []int64) {
	for i := range v {
		v[i] = s.gaussian()
	}
}
