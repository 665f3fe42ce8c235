// Package fhewbench measures hcc's FHEW engine the way the seed paper
// ("LMKCDEY Revisited") reports it: Table 3 (NAND time, key sizes, key
// generation time, measured against predicted noise and failure
// probability, automorphisms per bootstrap) and Figure 2 (NAND time against
// the window w for LMKCDEY and Signed), plus an interleaved head-to-head of
// the two methods at their best windows. `hcc bench fhew` is a thin
// command-line front end to it.
//
// It uses only fhew's exported API; the few measurement hooks it needs
// (fhew.SumNoise and fhew.NoiseSums for noise measured by several
// goroutines, Params.FailureLog2AtStd, Evaluator.BlindRotationKernels) are
// documented there. Every measurement generates fresh keys from
// crypto/rand.
//
// On a shared machine the load drifts during a sweep, so sets that are
// compared are timed interleaved: a round of a few gates on each set in
// turn, repeated, so that a change in load hits every set alike.
//
// Plan (with ParseWindows and ParseMethod) turns set and method names into
// the rows of Table 3, refusing insecure sets unless asked; WriteTable3CSV,
// WriteFigure2CSV and WriteCompareCSV write the results.
package fhewbench
