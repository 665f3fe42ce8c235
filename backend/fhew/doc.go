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
// spacing Q_ks/4. A gate forms Σ w_i·x_i exactly, key-switches N -> n once,
// rounds to the blind-rotation modulus M (to odd residues mod 2q for the
// automorphism methods), blind-rotates a test polynomial, extracts the
// constant coefficient, adds Q/8 and switches Q -> Q_ks. These are the
// usual steps (blind rotation, extraction, mod switch, key switch, mod
// switch) rotated so that key-switching and rounding noise are paid once per
// gate, not once per input; see Ciphertext.
//
// # Gates and LUTs
//
// NOT is free. AND, OR, NAND, NOR, ANDNY, XOR, XNOR, MAJORITY and every
// k-input function of the form h(Σ w_i x_i mod 4) with h(v+2) = ¬h(v)
// (including 3-input XOR) take one bootstrap; MUX takes two. Params.CanEvalLUT
// and Params.LUTCapability answer which functions one bootstrap evaluates
// and with which failure probability (Params.GateFailureLog2, NoiseModel;
// MeasureNoise measures it).
package fhew
