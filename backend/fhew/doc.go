// Package fhew is hcc's bootstrapped Boolean engine: FHEW-style gate
// bootstrapping with three blind rotations, selectable per parameter set:
//
//   - MethodSigned (default): the signed-key automorphism blind rotation of
//     "LMKCDEY Revisited" (Algorithm 2, Equation 2): keys RGSW(X^{±s_i}) and
//     ak_{g^u}, u in [1, w]; at most M/4 - 1 automorphisms.
//   - MethodLMKCDEY: Lee et al., eprint 2022/198 (Algorithm 1 of the seed
//     paper): keys RGSW(X^{s_i}), ak_{g^u} and ak_{-g}.
//   - MethodGINX: ternary GINX/CGGI, the baseline.
//
// # Objects
//
// Params (from a ParamsLiteral via NewParams, or ParamsByName) is immutable.
// SecretKey holds s (LWE, dimension n) and z (RLWE, degree N).
// GenEvaluationKey builds the EvaluationKey (blind-rotation keys,
// automorphism keys, LWE key-switching key; public uniform parts derived
// from EvaluationKey.Seed). An Evaluator (immutable, shared by goroutines)
// evaluates gates; each goroutine passes its own Scratch.
//
// # Ciphertexts and the bootstrap pipeline
//
// A gate-level Ciphertext is LWE under z at (N, Q_ks), encoding a bit at
// spacing Q_ks/P (P = Params.Slots: 4, or 8 for STD128_LOWFAIL3_T). A gate
// forms Σ w_i·x_i exactly, key-switches N -> n once, rounds to the
// blind-rotation modulus M (to odd residues mod 2q for the automorphism
// methods), blind-rotates a test polynomial, extracts the constant
// coefficient, adds Q/2P and switches Q -> Q_ks. These are the
// usual steps (blind rotation, extraction, mod switch, key switch, mod
// switch) rotated so that key-switching and rounding noise are paid once per
// gate, not once per input; see Ciphertext.
//
// # Gates and LUTs
//
// NOT is free. AND, OR, NAND, NOR, ANDNY, XOR, XNOR, MAJORITY and every
// k-input function of the form h(Σ w_i x_i mod P) with h(v + P/2) = ¬h(v)
// (at P = 4 including 3-input XOR) take one bootstrap; at P = 4 MUX, AND3
// and OR3 take two, at P = 8 one. When every weight is a multiple of d the
// phase is shifted by (d - 1)/2 slots and the margin is d times wider: XOR
// on 2,2 at P = 4 has margin 1/4, not 1/8, and so has EvalParity, the XOR of
// any number of inputs in one bootstrap (parity.go). The Evaluator's gates,
// EvalLUT and the Backend all evaluate through these plans.
// Params.CanEvalLUT and Params.LUTCapability answer which functions one
// bootstrap evaluates and with which failure probability
// (Params.SumFailureLog2, NoiseModel; MeasureNoise measures it),
// Params.CircuitFailure that of a whole circuit.
//
// # Shared-select CMux
//
// Sets with a CMux part (ParamsLiteral.CMux, e.g. STD128_T_CMUX) add a
// circuit-bootstrapping ring (package cbs) on the same LWE secret s:
// Evaluator.Select turns a bit into an RGSW Selector once (about three
// gate bootstraps), and every Evaluator.CMux on it (sel ? a : b) is one
// external product plus format conversions, no bootstrap (cmux.go,
// docs/fhew-cmux.md). The Backend evaluates ir.OpSel and ir.OpCMux with
// them; LUTTarget.SelectBootstraps prices a Select for the mapper.
//
// # Serialization and measurement
//
// EvaluationKey.MarshalBinary / ReadEvaluationKey and the SecretKey
// counterparts use a checksummed format bound to the parameter set; the
// public uniform parts are regenerated from the seed. Package fhewbench
// measures the paper's Table 3 and Figure 2 on this machine, through the
// hooks in measure.go (SumNoise, Params.FailureLog2AtStd,
// Evaluator.BlindRotationKernels).
package fhew
