//go:build amd64 && !purego

package bgv

import "golang.org/x/sys/cpu"

// hasVec selects the AVX-512 kernels (rns_amd64.s) at run
// time: they need AVX-512F and AVX-512DQ (VPMULLQ). The pure-Go kernels
// remain the fallback and the reference in tests; -tags purego leaves the
// assembly out.
var hasVec = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

//go:noescape
func mulModAVX(a, b, out *uint64, n int, c *[4]uint64, add bool)

//go:noescape
func mulMod2AVX(x, b0, b1, out0, out1 *uint64, n int, c *[4]uint64, add bool)

//go:noescape
func shoupPairAVX(x, d, out *uint64, n int, c *[7]uint64)

//go:noescape
func bconvPrepAVX(x, y *uint64, v *float64, n int, c *[5]uint64)

//go:noescape
func bconvRowAVX(rows **uint64, alpha int, hat, hatS *uint64, v *float64, out *uint64, n int, c *[4]uint64)

// The wrappers below run a vector kernel on the largest multiple of 8
// entries and return how many they covered; the caller finishes in Go.

func mulModVec(a, b, out []uint64, c *[4]uint64, add bool) int {
	n := len(out) &^ 7
	if !hasVec || n == 0 {
		return 0
	}
	_, _ = a[n-1], b[n-1]
	mulModAVX(&a[0], &b[0], &out[0], n, c, add)
	return n
}

func mulMod2Vec(x, b0, b1, out0, out1 []uint64, c *[4]uint64, add bool) int {
	n := len(x) &^ 7
	if !hasVec || n == 0 {
		return 0
	}
	_, _, _, _ = b0[n-1], b1[n-1], out0[n-1], out1[n-1]
	mulMod2AVX(&x[0], &b0[0], &b1[0], &out0[0], &out1[0], n, c, add)
	return n
}

func shoupPairVec(x, d, out []uint64, c *[7]uint64) int {
	n := len(out) &^ 7
	if !hasVec || n == 0 {
		return 0
	}
	_, _ = x[n-1], d[n-1]
	shoupPairAVX(&x[0], &d[0], &out[0], n, c)
	return n
}

func bconvPrepVec(x, y []uint64, v []float64, c *[5]uint64) int {
	n := len(v) &^ 7
	if !hasVec || n == 0 {
		return 0
	}
	_, _ = x[n-1], y[n-1]
	bconvPrepAVX(&x[0], &y[0], &v[0], n, c)
	return n
}

func bconvRowVec(rows [][]uint64, hat, hatS []uint64, v []float64, out []uint64, c *[4]uint64) int {
	n := len(v) &^ 31
	alpha := len(hat)
	if !hasVec || n == 0 || alpha > maxConvSources || alpha == 0 {
		return 0
	}
	var ptrs [maxConvSources]*uint64
	for i := range alpha {
		ptrs[i] = &rows[i][:n][0]
	}
	_, _ = hatS[alpha-1], out[n-1]
	bconvRowAVX(&ptrs[0], alpha, &hat[0], &hatS[0], &v[0], &out[0], n, c)
	return n
}

//go:noescape
func tensorAVX(a0, a1, b0, b1, d0, d1, d2 *uint64, n int, c *[4]uint64)

// tensorVec runs tensorAVX on the largest multiple of 8 entries of d1 and
// returns how many it covered.
func tensorVec(a0, a1, b0, b1, d0, d1, d2 []uint64, c *[4]uint64) int {
	n := len(d1) &^ 7
	if !hasVec || n == 0 {
		return 0
	}
	_, _, _, _, _, _ = a0[n-1], a1[n-1], b0[n-1], b1[n-1], d0[n-1], d2[n-1]
	tensorAVX(&a0[0], &a1[0], &b0[0], &b1[0], &d0[0], &d1[0], &d2[0], n, c)
	return n
}
