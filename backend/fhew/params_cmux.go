package fhew

import (
	"fmt"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Parameter sets with the shared-select CMux gadget (cmux.go,
// docs/fhew-cmux.md): a gate set plus a circuit-bootstrapping ring
// (package cbs) whose LWE part is the gate set's, so one LWE secret s is
// shared by the gate blind rotation and the circuit bootstrap.

var (
	// STD128_T_CMUX is STD128_T (gates: N_g = 1024, Q_g = 134215681,
	// ternary n = 581, Q_ks = 2^15) with the CBS ring of STD128_CBS
	// (N_c = 2048, Q_c = 134176769·134111233 < 2^54, ternary z_c) and
	// STD128_T's LWE part (cbs.STD128_CBS_T). The lift key RLWE'_{z_c}(Z_g)
	// and the lower keys RLWE'_{z_g}(Z_{c,h}) encrypt each ring secret under
	// the other (the circular assumption the two rings' key switches add,
	// of the kind the automorphism and scheme-switch keys already make).
	STD128_T_CMUX = ParamsLiteral{
		Name: "STD128_T_CMUX", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 581, LWEModulus: 1024, LogN: 10, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 15, LogBKS: 5, Window: 10,
		CMux: &cbs.STD128_CBS_T,
		Security: "128 bits: gates as STD128_T = OpenFHE v1.5.1 STD128_LMKCDEY (LWE n = 581, Q_ks = 2^15, ternary; " +
			"ring log Q = 27 at N = 1024 = the HE standard's 128-bit bound); CBS ring as STD128_CBS " +
			"(N = 2048, log Q = 54 = the HE standard's 128-bit bound, ternary); the ring key switches between " +
			"the two ring secrets assume circular security, as the automorphism keys do",
	}
	// ToySignedCMux is ToySigned with the CBS ring of cbs.ToyCBS (N_c =
	// N_g = 512, n = 64, Q_ks = 2^14). Insecure, for tests.
	ToySignedCMux = ParamsLiteral{
		Name: "ToySignedCMux", Method: MethodSigned,
		LWESecret: SecretTernary, RLWESecret: SecretTernary, Sigma: 3.19,
		LWEDim: 64, LWEModulus: 512, LogN: 9, Q: 134215681,
		LogBg: 9, DropLowestDigit: true, QKS: 1 << 14, LogBKS: 5, Window: 4, Insecure: true,
		CMux:     &cbs.ToyCBS,
		Security: "none: toy set for tests (and --insecure) only",
	}
)

func init() {
	namedSets[STD128_T_CMUX.Name] = STD128_T_CMUX
	namedSets[ToySignedCMux.Name] = ToySignedCMux
	// A CMux set's gate bootstrap is its gate set's: same ring, same n.
	measuredCost[STD128_T_CMUX.Name] = measuredCost[STD128_T.Name]
}

// cmuxParams is the validated CMux part of a set.
type cmuxParams struct {
	cp cbs.Params
	// parts is N_c/N_g: the lower path splits the CBS ring's LWE vector
	// into this many R_{N_g} polynomials.
	parts int
}

// newCMuxParams validates lit.CMux against the gate part of lit.
func newCMuxParams(lit ParamsLiteral) (*cmuxParams, error) {
	c := *lit.CMux
	if c.Insecure && !lit.Insecure {
		return nil, fmt.Errorf("CBS part %q is insecure in a set not marked Insecure", c.Name)
	}
	var cp cbs.Params
	var err error
	if c.Insecure {
		cp, err = cbs.NewParamsInsecure(c)
	} else {
		cp, err = cbs.NewParams(c)
	}
	if err != nil {
		return nil, err
	}
	N := 1 << lit.LogN
	switch {
	case lit.LWESecret != SecretTernary:
		return nil, fmt.Errorf("the CMux gadget needs a ternary LWE secret (the CBS blind rotation is GINX), not %v", lit.LWESecret)
	case lit.RLWESecret != SecretTernary:
		return nil, fmt.Errorf("the CMux gadget needs a ternary RLWE secret, not %v", lit.RLWESecret)
	case c.LWEDim != lit.LWEDim:
		return nil, fmt.Errorf("CBS part %q has LWE dimension %d, the gate set %d", c.Name, c.LWEDim, lit.LWEDim)
	case c.LogQKS < 1 || c.LogQKS > 16 || 1<<c.LogQKS != lit.QKS:
		return nil, fmt.Errorf("CBS part %q has Q_ks = 2^%d, the gate set %d", c.Name, c.LogQKS, lit.QKS)
	case cp.N() < N || cp.N()%N != 0:
		return nil, fmt.Errorf("CBS ring degree %d is not a multiple of the gate ring degree %d", cp.N(), N)
	}
	return &cmuxParams{cp: cp, parts: cp.N() / N}, nil
}

// HasCMux reports whether the set has the shared-select CMux gadget
// (Evaluator.Select and Evaluator.CMux, ir.OpSel and ir.OpCMux).
func (p Params) HasCMux() bool { return p.params != nil && p.cmux != nil }

// CMuxParams returns the set's circuit-bootstrapping part; ok is false
// when the set has no CMux gadget.
func (p Params) CMuxParams() (cp cbs.Params, ok bool) {
	if !p.HasCMux() {
		return cbs.Params{}, false
	}
	return p.cmux.cp, true
}

// sameScheme reports whether l and m describe the same scheme: equal up
// to the descriptive labels, with the CMux parts compared by value.
func (l ParamsLiteral) sameScheme(m ParamsLiteral) bool {
	a, b := l.withoutLabels(), m.withoutLabels()
	ca, cb := a.CMux, b.CMux
	a.CMux, b.CMux = nil, nil
	if a != b || (ca == nil) != (cb == nil) {
		return false
	}
	return ca == nil || *ca == *cb
}
