//go:build amd64 && !purego

package fhew

// prefetchLines asks the CPU to load lines 64-byte cache lines starting at
// p into the cache (PREFETCHT0); it never faults and changes no state that
// code can observe.
//
//go:noescape
func prefetchLines(p *uint32, lines int)

// prefetchKey starts loading key (a blind-rotation key, 16-32 KB read once
// per bootstrap from main memory) so that the loads overlap the inverse
// NTTs, decomposition and digit NTTs that precede its first use.
func prefetchKey(key []uint32) {
	if len(key) > 0 {
		prefetchLines(&key[0], len(key)*4/64)
	}
}
