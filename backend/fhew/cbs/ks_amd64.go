//go:build amd64 && !purego

package cbs

import "golang.org/x/sys/cpu"

// hasKSVec selects the AVX-512 kernel of the LWE key switch's row additions
// (ks_amd64.s): VPADDW/VPSUBW on 512-bit vectors need AVX-512BW. ksAddRowsGo
// remains the fallback and the reference in tests; -tags purego leaves the
// assembly out.
var hasKSVec = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// ksAheadVec is how many entries of offs ahead the kernel prefetches a row.
var ksAheadVec = 4

// ksRowsAVX is ksAddRowsGo's loop (without its sink) on AVX-512: per entry
// e of offs[:cnt], PREFETCHT0 of every cache line of the row ahead entries
// later, then the row at ks + (e>>8) words added (e&1 == 0) or subtracted
// into accs[e>>1&127] in 16-bit lanes, w words (8 per vector, masked tail).
//
//go:noescape
func ksRowsAVX(ks *uint64, offs *uint64, cnt int, accs *[MaxBatch]*uint64, w, ahead int)

// ksAddRowsVec is ksAddRowsGo on the AVX-512 kernel (bit-identical: both
// add and subtract 16-bit lanes mod 2^16). It checks every row and sample
// of offs against ks and accs first, since the assembly does not.
func ksAddRowsVec(ks []uint64, W int, offs []uint64, accs [][]uint64) {
	if len(offs) == 0 || W <= 0 {
		return
	}
	var ptrs [MaxBatch]*uint64
	if len(accs) > MaxBatch {
		panic("cbs: internal error: key-switch batch above MaxBatch")
	}
	for c, a := range accs {
		_ = a[W-1]
		ptrs[c] = &a[0]
	}
	if len(ks) < W {
		panic("cbs: internal error: key-switch key shorter than a row")
	}
	lim := uint64(len(ks) - W)
	nacc := uint64(len(accs))
	for _, e := range offs {
		if e>>8 > lim || e>>1&(1<<7-1) >= nacc {
			panic("cbs: internal error: key-switch row or sample out of range")
		}
	}
	ksRowsAVX(&ks[0], &offs[0], len(offs), &ptrs, W, ksAheadVec)
}

// setKSAhead sets the kernel's prefetch distance (tests and benchmarks).
func setKSAhead(a int) { ksAheadVec = a }
