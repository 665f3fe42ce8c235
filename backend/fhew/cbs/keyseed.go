package cbs

import (
	"encoding/binary"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// The uniform ("a") parts of every evaluation key are expanded from one
// public 32-byte seed (EvaluationKey.seed), as fhew does, so a key file
// needs only the seed and the "b" parts (about a fifth of the key). Each key
// family has its own stream, so any part can be regenerated alone:
//
//	domainKS, 0:      LWE key switch, row by row (rows (i, d, |v|) in order),
//	                  lanes 0..n-1 of each row, four 16-bit lanes per draw,
//	                  each masked to Q_ks - 1;
//	domainBR, i:      blind-rotation keys of s_i: RGSW(s_i = 1) then
//	                  RGSW(s_i = -1), rows 0..2ℓ-1, the A polynomial of each
//	                  (NTT domain; residues mod Q0 then mod Q1, each by
//	                  rejection sampling of 32-bit draws);
//	domainTrace, k-1: trace key of X -> X^(2^k+1), rows 0..ℓ_t-1, A polys;
//	domainSS, 0:      scheme-switch key RLWE'(z²), A polys;
//	domainLift, 0:    gate mode's lift key RLWE'(Z_g), A polys.
//
// A stream's seed is the key seed with the domain XORed into bytes 0..7 and
// the index into bytes 8..15, expanded by one ring.PRNG (AES-256-CTR) draw
// of 32 bytes.
const (
	domainKS uint64 = iota + 1
	domainBR
	domainTrace
	domainSS
	domainLift
)

// deriveSeed returns the seed of the public stream (domain, index).
func deriveSeed(seed [32]byte, domain, index uint64) [32]byte {
	var mix [32]byte
	copy(mix[:], seed[:])
	binary.LittleEndian.PutUint64(mix[0:], binary.LittleEndian.Uint64(seed[0:])^domain)
	binary.LittleEndian.PutUint64(mix[8:], binary.LittleEndian.Uint64(seed[8:])^index)
	c := ring.NewPRNG(mix)
	var out [32]byte
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint64(out[8*i:], c.Uint64())
	}
	return out
}

// uniformPolyFrom fills p with uniform residues mod Q0 (all of p[0]) then
// mod Q1 (all of p[1]) from c: 32-bit draws, rejection above the largest
// multiple of Q_i (no bias).
func uniformPolyFrom(c *ring.PRNG, r *ring.RNS2, p ring.Poly2) {
	for k, q := range [2]uint32{r.Q0, r.Q1} {
		limit := uint32((uint64(1) << 32) / uint64(q) * uint64(q))
		var buf uint64
		have := 0
		for i := range p[k] {
			for {
				if have == 0 {
					buf = c.Uint64()
					have = 2
				}
				x := uint32(buf)
				buf >>= 32
				have--
				if x < limit {
					p[k][i] = x % q
					break
				}
			}
		}
	}
}

// newEvaluationKeyShape allocates an all-zero evaluation key of p (every
// slice at its final size) with the given public seed; gateN > 0 makes a
// gate-mode key for N_g = gateN (no LWE key switch, a lift key).
func newEvaluationKeyShape(p Params, seed [32]byte, gateN int) *EvaluationKey {
	r := p.ring
	n := p.lit.LWEDim
	W := ksWidth(n)
	ek := &EvaluationKey{params: p, seed: seed, ksWords: W, gateN: gateN}
	if gateN == 0 {
		ek.ks = make([]uint64, ksRows(p)*W)
	}
	ek.brk = make([][2]*RGSW, n)
	for i := range ek.brk {
		ek.brk[i] = [2]*RGSW{newRGSW(r, p.lit.BR.Digits), newRGSW(r, p.lit.BR.Digits)}
	}
	newKS := func() ksKey {
		k := ksKey{B: make([]ring.Poly2, p.lit.Trace.Digits), A: make([]ring.Poly2, p.lit.Trace.Digits)}
		for j := range k.B {
			k.B[j], k.A[j] = r.NewPoly(), r.NewPoly()
		}
		return k
	}
	ek.trace = make([]ksKey, p.lit.LogN)
	for k := range ek.trace {
		ek.trace[k] = newKS()
	}
	ek.ss = newKS()
	if gateN > 0 {
		g := p.liftGadget()
		ek.lift = ksKey{B: make([]ring.Poly2, g.Digits), A: make([]ring.Poly2, g.Digits)}
		for j := range ek.lift.B {
			ek.lift.B[j], ek.lift.A[j] = r.NewPoly(), r.NewPoly()
		}
	}
	return ek
}

// regenPublic writes every uniform part of ek from ek.seed (the streams
// above): lanes 0..n-1 of each LWE key-switching row (lane n, b, and the
// padding lanes are kept), and the A polynomial of every RGSW and ring
// key-switching row. The b parts are not touched, so a decoder can read
// them first and call regenPublic after, or the other way round.
func regenPublic(ek *EvaluationKey) {
	p := ek.params
	r := p.ring
	n := p.lit.LWEDim
	W := ek.ksWords
	mask := uint64(p.qks - 1)
	c := ring.NewPRNG(deriveSeed(ek.seed, domainKS, 0))
	for off := 0; off+W <= len(ek.ks); off += W {
		row := ek.ks[off : off+W]
		var buf uint64
		for j := 0; j < n; j++ {
			if j%4 == 0 {
				buf = c.Uint64()
			}
			a := (buf >> (16 * uint(j%4))) & mask
			sh := 16 * uint(j%4)
			row[j/4] = row[j/4]&^(0xffff<<sh) | a<<sh
		}
	}
	for i, pair := range ek.brk {
		c := ring.NewPRNG(deriveSeed(ek.seed, domainBR, uint64(i)))
		for _, g := range pair {
			for _, a := range g.A {
				uniformPolyFrom(c, r, a)
			}
		}
	}
	for k := range ek.trace {
		c := ring.NewPRNG(deriveSeed(ek.seed, domainTrace, uint64(k)))
		for _, a := range ek.trace[k].A {
			uniformPolyFrom(c, r, a)
		}
	}
	c = ring.NewPRNG(deriveSeed(ek.seed, domainSS, 0))
	for _, a := range ek.ss.A {
		uniformPolyFrom(c, r, a)
	}
	c = ring.NewPRNG(deriveSeed(ek.seed, domainLift, 0))
	for _, a := range ek.lift.A {
		uniformPolyFrom(c, r, a)
	}
}

// ksRows returns the number of rows of the LWE key-switching key
// (ksWidth(n) words each): N·d_ks·B_ks/2, one per coefficient, digit and
// digit magnitude 1..B_ks/2 (the digits are signed; a negative digit
// subtracts its magnitude's row). Serialisation should size the key with it.
func ksRows(p Params) int { return p.ringN * p.digKS * ksValues(p) }

// ksValues is the number of stored digit magnitudes, B_ks/2.
func ksValues(p Params) int { return 1 << (p.lit.LogBKS - 1) }
