package fhew

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Keys of the shared-select CMux gadget (cmux.go). The client holds one
// LWE secret s (shared by the gate and CBS blind rotations), the gate ring
// secret z_g and the CBS ring secret z_c. The evaluation key adds
//
//   - the CBS gate-mode key (package cbs): CBS blind-rotation keys of s,
//     trace and scheme-switch keys under z_c, and the lift key
//     RLWE'_{z_c}(Z_g) that moves a gate ciphertext into the CBS ring;
//   - the lower keys RLWE'_{z_g}(Z_{c,h}), h < N_c/N_g, in fhew's ring
//     (N_g, Q_g, gadget B_g): Z_{c,h} is part h of z_c read as an R_{N_g}
//     polynomial, Σ_j z_c[h·N_g + j]·X^j. They bring a CMux output back to
//     z_g with a ring key switch per part (O(N log N)) instead of an LWE key
//     switch of dimension N_c (O(N²), and a key of ~100 MB).

// attachCBS draws the CBS part of a secret key on sets with the gadget.
func (sk *SecretKey) attachCBS() error {
	p := sk.params
	if !p.HasCMux() {
		return nil
	}
	c, err := cbs.NewSecretKeyWithLWE(p.cmux.cp, sk.s)
	if err != nil {
		return fmt.Errorf("fhew: CMux secret key: %w", err)
	}
	sk.cbs = c
	return nil
}

// lowerKeyLen is the length of the lower keys: parts RLWE' keys of d_g
// rows (b then a, NTT domain), back to back.
func (p *params) lowerKeyLen() int { return p.cmux.parts * p.autoKeyLen() }

// genCMuxKeys adds the CMux gadget's evaluation keys to ek: the lower keys
// from (seed, noiseSeed) as the other fhew keys, the CBS gate-mode key
// from package cbs (crypto/rand).
func genCMuxKeys(sk *SecretKey, ek *EvaluationKey, seed, noiseSeed Seed) error {
	p := sk.params
	if !p.HasCMux() {
		return nil
	}
	if sk.cbs == nil {
		return fmt.Errorf("fhew: secret key for %q has no CMux part", p.lit.Name)
	}
	zc := sk.cbs.RingSecret()
	ek.lower = make([]uint32, p.lowerKeyLen())
	genLowerKeys(p.params, sk, zc, ek.lower, seed, noiseSeed)
	g, err := cbs.GenGateEvaluationKey(sk.cbs, sk.z, uint(p.logQKS))
	if err != nil {
		return fmt.Errorf("fhew: CMux evaluation key: %w", err)
	}
	ek.cbs = g
	return nil
}

// genLowerKeys fills slab with RLWE'_z(Z_{c,h}) for every part h of zc;
// the a parts come from seed (labels domainLower, h) so a key file stores
// only the b parts.
func genLowerKeys(p *params, sk *SecretKey, zc []int32, slab []uint32, seed, noiseSeed Seed) {
	N := p.N
	msg := make([]uint32, N)
	ebuf := make([]uint32, N)
	l := p.autoKeyLen()
	for h := 0; h < p.cmux.parts; h++ {
		for j := range msg {
			msg[j] = p.ntt.FromInt64(int64(zc[h*N+j]))
		}
		p.ntt.Forward(msg, msg)
		encryptRowsNTT(p, sk.zNTT, [][]uint32{msg}, slab[h*l:(h+1)*l],
			newPRNG(seed.derive(domainLower, uint64(h))), newPRNG(noiseSeed.derive(domainLower, uint64(h))), ebuf)
	}
}
