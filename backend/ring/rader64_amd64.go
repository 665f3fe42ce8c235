//go:build amd64 && !purego

package ring

// The AVX-512 kernels of RaderNTT's permutations and scalar passes
// (rader64_amd64.s; the convolution itself is CyclicNTT64's). Each wrapper
// covers the largest multiple of 8 entries and returns how many it did; the
// caller finishes in Go. RaderNTT calls them only when its vec flag is set
// (hasCyclicVec at construction).

//go:noescape
func raderGatherSubAVX(src *uint64, idx *uint32, out *uint64, n int, c, q uint64)

//go:noescape
func raderSubScalarAVX(a, out *uint64, n int, c, q uint64)

//go:noescape
func raderSumModAVX(a *uint64, n int, q uint64) [8]uint64

//go:noescape
func raderReverseAVX(src, dst *uint64, n int, idx *[8]uint64)

// raderGatherSubVec sets out[k] = src[idx[k]] - c mod q on the largest
// multiple of 8 entries of out and returns how many it covered.
func raderGatherSubVec(src []uint64, idx []uint32, out []uint64, c, q uint64) int {
	n := len(out) &^ 7
	if n == 0 {
		return 0
	}
	_ = idx[n-1]
	raderGatherSubAVX(&src[0], &idx[0], &out[0], n, c, q)
	return n
}

// raderSubScalarVec sets out = a - c mod q on the largest multiple of 8
// entries.
func raderSubScalarVec(a, out []uint64, c, q uint64) int {
	n := len(out) &^ 7
	if n == 0 {
		return 0
	}
	_ = a[n-1]
	raderSubScalarAVX(&a[0], &out[0], n, c, q)
	return n
}

// raderSumModVec returns Σ a mod q over the largest multiple of 8 entries
// and how many it covered.
func raderSumModVec(a []uint64, q uint64) (uint64, int) {
	n := len(a) &^ 7
	if n == 0 {
		return 0, 0
	}
	lanes := raderSumModAVX(&a[0], n, q)
	var s uint64
	for _, x := range lanes {
		s = AddMod64(s, x, q)
	}
	return s, n
}

var raderReverseIdx = [8]uint64{7, 6, 5, 4, 3, 2, 1, 0}

// raderReverseVec sets dst[l] = src[-l mod n] for l in [0, n), n =
// len(dst); false when the vector kernel does not apply (the caller loops
// in Go).
func raderReverseVec(src, dst []uint64) bool {
	n := len(dst)
	if n%8 != 0 || n < 16 {
		return false
	}
	_ = src[n-1]
	dst[0] = src[0]
	for l := 1; l < 8; l++ {
		dst[l] = src[n-l]
	}
	raderReverseAVX(&src[0], &dst[0], n, &raderReverseIdx)
	return true
}
