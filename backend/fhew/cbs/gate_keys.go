package cbs

import (
	"errors"
	"fmt"
)

// MaxGateLogQ bounds the gate ciphertexts' modulus 2^logQg (uint16 entries).
const MaxGateLogQ = 16

// Gate mode: the circuit bootstrap serves fhew's gate engine as a
// shared-select CMux (design: a select bit is circuit-bootstrapped once
// into RGSW under the ring key z_c, every MUX on it is one external
// product on gate ciphertexts lifted into RLWE under z_c). The gate engine
// and this package share the small LWE key s, so the CBS keys are made for
// the gate engine's s (NewSecretKeyWithLWE) and the gate engine's own key
// switch replaces the LWE key switch z_c -> s (GenGateEvaluationKey leaves
// it out).

// NewSecretKeyWithLWE returns a secret key of p whose small LWE key is s
// (n = p.LWEDim() entries in {-1, 0, 1}, copied) and whose ring key z_c is
// fresh from crypto/rand, as NewSecretKey draws it.
func NewSecretKeyWithLWE(p Params, s []int32) (*SecretKey, error) {
	if !p.valid() {
		return nil, errors.New("cbs: NewSecretKeyWithLWE: zero Params (use NewParams)")
	}
	if len(s) != p.lit.LWEDim {
		return nil, fmt.Errorf("cbs: NewSecretKeyWithLWE: LWE key of %d entries, want n = %d for %s", len(s), p.lit.LWEDim, p.lit.Name)
	}
	for i, v := range s {
		if v < -1 || v > 1 {
			return nil, fmt.Errorf("cbs: NewSecretKeyWithLWE: s[%d] = %d is not ternary", i, v)
		}
	}
	sk, err := NewSecretKey(p) // fresh z (and a throw-away s, replaced below)
	if err != nil {
		return nil, err
	}
	for i, v := range s {
		sk.s[i] = int64(v)
	}
	return sk, nil
}

// RingSecret returns a copy of the ring key z_c's coefficients (the client
// needs it for companion keys that switch from z_c to another key).
func (sk *SecretKey) RingSecret() []int32 {
	out := make([]int32, len(sk.z))
	for i, v := range sk.z {
		out[i] = int32(v)
	}
	return out
}

// LWESecret returns a copy of the small LWE key s.
func (sk *SecretKey) LWESecret() []int32 {
	out := make([]int32, len(sk.s))
	for i, v := range sk.s {
		out[i] = int32(v)
	}
	return out
}

// liftGadget is the gadget of the lift key RLWE'_z(Z_g). It is the blind
// rotation's (two digits of 2^17, 21 low bits dropped): the lift's ring key
// switch then adds a few 2^24 (Q units) to a value whose own noise, a
// gate ciphertext's raised by Q/2^15, is near 2^42 (LiftVar; docs/fhew-cbs.md),
// at two digits' cost instead of the trace gadget's five. Deriving it from
// the set keeps ParamsLiteral (and so every key file's header) unchanged.
func (p Params) liftGadget() Gadget { return p.lit.BR }

// GenGateEvaluationKey generates the gate-mode evaluation key of sk for
// gate ciphertexts of dimension N_g = len(zg) under the gate ring key zg
// (ternary, N_g dividing N) modulo 2^logQg (2 <= logQg <= 16): the
// blind-rotation, trace and scheme-switch keys as GenEvaluationKey makes
// them (same seeding), plus the lift key RLWE'_z(Z_g), Z_g(X) = Σ_{i<N_g}
// zg[i]·X^i in the CBS ring, for Lift. It leaves out the LWE key switch
// z -> s (about 100 MB at N = 2048): the gate engine switches its own
// ciphertexts to s before CBSFromLWE, and CBS on this key is an error.
func GenGateEvaluationKey(sk *SecretKey, zg []int32, logQg uint) (*EvaluationKey, error) {
	if sk == nil || !sk.params.valid() {
		return nil, errors.New("cbs: GenGateEvaluationKey: nil or invalid secret key")
	}
	p := sk.params
	if err := checkGateShape(p, len(zg), logQg); err != nil {
		return nil, err
	}
	for i, v := range zg {
		if v < -1 || v > 1 {
			return nil, fmt.Errorf("cbs: GenGateEvaluationKey: gate ring key entry %d is %d, not ternary", i, v)
		}
	}
	smp, err := newCryptoSampler(p.lit.Sigma)
	if err != nil {
		return nil, err
	}
	seed, err := newSeed()
	if err != nil {
		return nil, err
	}
	ek := newEvaluationKeyShape(p, seed, len(zg))
	ek.gateLogQ = logQg
	regenPublic(ek)
	fillRingKeys(sk, smp, ek)
	r := p.ring
	v := make([]int64, p.ringN)
	for i, x := range zg {
		v[i] = int64(x)
	}
	w := r.NewPoly()
	r.SetCentered(v, w)
	r.Forward(w, w)
	fillKSKey(sk, smp, w, p.liftGadget(), make([]int64, p.ringN), &ek.lift)
	return ek, nil
}

// checkGateShape validates a gate ring degree N_g and modulus 2^logQg for p.
func checkGateShape(p Params, ng int, logQg uint) error {
	if ng < 1 || ng > p.ringN || p.ringN%ng != 0 {
		return fmt.Errorf("cbs: gate ring degree %d does not divide N = %d", ng, p.ringN)
	}
	if logQg < 2 || logQg > MaxGateLogQ {
		return fmt.Errorf("cbs: gate modulus 2^%d outside [2^2, 2^%d]", logQg, MaxGateLogQ)
	}
	return nil
}

// GateMode reports whether ek is a gate-mode key (GenGateEvaluationKey),
// and if so its gate ring degree N_g and log2 of the gate modulus.
func (ek *EvaluationKey) GateMode() (ok bool, ng int, logQg uint) {
	return ek.gateN > 0, ek.gateN, ek.gateLogQ
}
