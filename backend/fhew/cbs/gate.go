package cbs

import (
	"fmt"
)

// CBSFromLWE circuit-bootstraps an LWE sample under the small key s into
// out = RGSW(bit) under z_c: a = n entries, b + <a, s> = bit·2^logQ/2 + e
// (mod 2^logQ; entries are read mod 2^logQ). It rounds the sample to 2N
// and runs CBS's blind rotation, trace and scheme switch; the caller has
// done the key switch to s (fhew's gate engine, whose s the keys share:
// NewSecretKeyWithLWE). It fails (a wrong bit) when |e| reaches about
// WindowHalfWidth()·2^logQ/2N (SelectFailureLog2). logQ must lie in
// [log2 2N, 16]. out (from NewRGSW) is written in the NTT domain.
func (ev *Evaluator) CBSFromLWE(b uint16, a []uint16, logQ uint, out *RGSW, sc *Scratch) error {
	p := ev.p
	if len(a) != p.lit.LWEDim {
		return fmt.Errorf("cbs: CBSFromLWE: LWE sample of dimension %d, want n = %d", len(a), p.lit.LWEDim)
	}
	if logQ < uint(p.lit.LogN+1) || logQ > 16 {
		return fmt.Errorf("cbs: CBSFromLWE: log q = %d outside [log 2N = %d, 16]", logQ, p.lit.LogN+1)
	}
	if err := ev.checkScratch(sc); err != nil {
		return err
	}
	if err := ev.checkRGSW(out); err != nil {
		return err
	}
	shift := logQ - uint(p.lit.LogN+1)
	mask := uint32(1)<<logQ - 1
	M := uint32(p.ringM)
	round := func(x uint16) int32 {
		// round(x·2N/2^logQ) mod 2N, ties up (as toSmallLWE rounds).
		v := uint32(x) & mask
		if shift > 0 {
			v = (v + 1<<(shift-1)) >> shift
		}
		return int32(v % M)
	}
	for i, x := range a {
		sc.alpha[i] = round(x)
	}
	sc.alpha[len(a)] = round(b)
	ev.rotateToRGSW(out, sc)
	return nil
}
