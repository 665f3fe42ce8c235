package fhew

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Seed is a 32-byte seed of the AES-256-CTR generator ring.PRNG. Public uniform parts of keys
// are derived from a stored Seed, so key files need not hold them.
type Seed [32]byte

// NewSeed draws a fresh seed from crypto/rand.
func NewSeed() (Seed, error) {
	var s Seed
	if _, err := crand.Read(s[:]); err != nil {
		return s, fmt.Errorf("fhew: reading crypto/rand: %w", err)
	}
	return s, nil
}

// derive returns the seed of an independent stream labelled (domain, index):
// the parent seed with the label mixed in, expanded by one ring.PRNG draw, so streams of
// different keys never overlap.
func (s Seed) derive(domain uint64, index uint64) Seed {
	var mix [32]byte
	copy(mix[:], s[:])
	binary.LittleEndian.PutUint64(mix[0:], binary.LittleEndian.Uint64(s[0:])^domain)
	binary.LittleEndian.PutUint64(mix[8:], binary.LittleEndian.Uint64(s[8:])^index)
	c := ring.NewPRNG(mix)
	var out Seed
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint64(out[8*i:], c.Uint64())
	}
	return out
}

// Stream domains for derive.
const (
	domainRGSW uint64 = iota + 1
	domainAuto
	domainKSK
	domainSecret
	domainNoise
	domainLower // the CMux gadget's lower keys RLWE'_z(Z_{c,h}) (cmux_keys.go)
)

// prng is a ring.PRNG stream (AES-256-CTR) with the samplers FHEW needs. Not safe
// for concurrent use; each key-generation task owns one.
type prng struct {
	c *ring.PRNG
}

func newPRNG(s Seed) *prng { return &prng{c: ring.NewPRNG(s)} }

// uniformMod fills out with uniform residues mod q (rejection sampling on
// 32-bit draws, so there is no modulo bias).
func (r *prng) uniformMod(q uint32, out []uint32) {
	// Accept x < limit, the largest multiple of q below 2^32.
	limit := uint32((uint64(1) << 32) / uint64(q) * uint64(q))
	var buf uint64
	have := 0
	for i := range out {
		for {
			if have == 0 {
				buf = r.c.Uint64()
				have = 2
			}
			x := uint32(buf)
			buf >>= 32
			have--
			if x < limit {
				out[i] = x % q
				break
			}
		}
	}
}

// uniform16 fills out with uniform 16-bit values (used modulo a power of two
// dividing 2^16).
func (r *prng) uniform16(out []uint16) {
	i := 0
	for ; i+4 <= len(out); i += 4 {
		x := r.c.Uint64()
		out[i], out[i+1], out[i+2], out[i+3] = uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48)
	}
	if i < len(out) {
		x := r.c.Uint64()
		for ; i < len(out); i++ {
			out[i] = uint16(x)
			x >>= 16
		}
	}
}

// gaussianTable is the cumulative distribution of |x| for the rounded
// Gaussian of standard deviation sigma, scaled to 2^63, cut at 12σ (the
// mass beyond is below 2^-100).
type gaussianTable struct {
	sigma float64
	cdf   []uint64 // cdf[k] = P(|X| <= k) · 2^63
}

func newGaussianTable(sigma float64) *gaussianTable {
	bound := int(math.Ceil(12 * sigma))
	w := make([]float64, bound+1)
	total := 0.0
	for k := 0; k <= bound; k++ {
		v := math.Exp(-float64(k*k) / (2 * sigma * sigma))
		if k > 0 {
			v *= 2 // ±k
		}
		w[k] = v
		total += v
	}
	t := &gaussianTable{sigma: sigma, cdf: make([]uint64, bound+1)}
	acc := 0.0
	for k := 0; k <= bound; k++ {
		acc += w[k] / total
		t.cdf[k] = uint64(math.Min(acc, 1) * (1 << 63))
	}
	t.cdf[bound] = 1 << 63
	return t
}

// gaussian draws one sample of the discrete Gaussian (CDT sampling: a
// uniform 63-bit value located in the cumulative table, then a random sign).
func (r *prng) gaussian(t *gaussianTable) int64 {
	x := r.c.Uint64()
	u := x >> 1
	k := 0
	for k < len(t.cdf)-1 && u >= t.cdf[k] {
		k++
	}
	if x&1 == 1 {
		return -int64(k)
	}
	return int64(k)
}

// secret draws one coefficient of the distribution d.
func (r *prng) secret(d SecretDist, t *gaussianTable) int64 {
	switch d {
	case SecretGaussian:
		return r.gaussian(t)
	case SecretTernary:
		for {
			x := r.c.Uint64() & 3
			if x < 3 {
				return int64(x) - 1
			}
		}
	default:
		return int64(r.c.Uint64() & 1)
	}
}
