package cbs

import (
	"errors"
	"fmt"
)

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
