//go:build amd64 && !purego

package ring

import "golang.org/x/sys/cpu"

// hasAVX512 selects the AVX-512F NTT32 kernels at run time; the pure-Go
// kernels remain the fallback (and the reference in tests). Build with
// -tags purego to exclude the assembly altogether.
var hasAVX512 = cpu.X86.HasAVX512F

//go:noescape
func fwdStage32AVX512(dst, src *uint32, m, t int, psi, psiS *uint32, q uint32)

//go:noescape
func invStage32AVX512(a *uint32, m, t int, psi, psiS *uint32, q uint32)

//go:noescape
func invLast32AVX512(a *uint32, n int, c *[4]uint32, q uint32, full bool)

//go:noescape
func invLastRaw32AVX512(a *uint32, n int, c *[4]uint32, q uint32)

//go:noescape
func fwdTail32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)

//go:noescape
func fwdStageNR32AVX512(dst, src *uint32, m, t int, psi, psiS *uint32, q uint32)

//go:noescape
func fwdTailNR32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)

//go:noescape
func fwdTailNR4Q32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q, c uint32)

//go:noescape
func invHead32AVX512(dst, src *uint32, n int, psi, psiS, tab, tw *uint32, q uint32, do64 int)

// avxMinN is the smallest N the vector path handles: the in-register stages
// take blocks of 128 entries.
const avxMinN = 128

// forwardAVX512 is NTT32.forward on the vector kernels: stages with t >= 128
// one at a time over whole registers, then the last seven stages per block
// of 128 entries in registers. Fully reduced outputs of a small enough
// modulus (noXRed) take the kernels without Harvey's reduction of X; they
// are unique, so equal to the Harvey kernels' (fwdStageNR32AVX512,
// fwdTailNR32AVX512 in ntt32_amd64.s).
func (r *NTT32) forwardAVX512(in, out []uint32, full bool) {
	N := r.N
	_, _ = in[N-1], out[N-1]
	a := &out[0]
	psi, psiS := &r.psiRev[0], &r.psiRevShoup[0]
	if full && r.noXRed {
		r.forwardNRAVX512(in, out, false)
		return
	}
	// The first stage reads in, so no copy is needed.
	src := &in[0]
	for m, t := 1, N/2; t >= 128; m, t = 2*m, t/2 {
		fwdStage32AVX512(a, src, m, t, psi, psiS, r.Q)
		src = a
	}
	c := ^uint32(0) // lazy: min(x, x - c) keeps x
	if full {
		c = r.Q
	}
	fwdTail32AVX512(a, src, N, psi, psiS, &avxTables[0], &r.tailTw[0], r.Q, c)
}

// forwardNRAVX512 is forwardAVX512 on the noXRed kernels (r.noXRed), the
// outputs fully reduced, or in [0, 4Q) if lazy4Q (Forward4Q: the block
// kernel skips its final reduction).
func (r *NTT32) forwardNRAVX512(in, out []uint32, lazy4Q bool) {
	N := r.N
	_, _ = in[N-1], out[N-1]
	a := &out[0]
	psi, psiS := &r.psiRev[0], &r.psiRevShoup[0]
	src := &in[0] // the first stage reads in, so no copy is needed
	for m, t := 1, N/2; t >= 128; m, t = 2*m, t/2 {
		fwdStageNR32AVX512(a, src, m, t, psi, psiS, r.Q)
		src = a
	}
	if lazy4Q {
		fwdTailNR4Q32AVX512(a, src, N, psi, psiS, &avxTables[0], &r.tailTw[0], r.Q, r.br)
		return
	}
	fwdTailNR32AVX512(a, src, N, psi, psiS, &avxTables[0], &r.tailTw[0], r.Q, r.br)
}

// inverseAVX512 is NTT32.inverse on the vector kernels: the stages
// t = 1 ... 64 (t = 1 ... 32 for N = 128, whose t = 64 is the last) per
// block of 128 entries in registers, then the remaining stages one at a
// time, the last with N^-1 folded in.
func (r *NTT32) inverseAVX512(in, out []uint32, full bool) {
	N := r.N
	_, _ = in[N-1], out[N-1]
	a := &out[0]
	psi, psiS := &r.psiInvRev[0], &r.psiInvRevShoup[0]
	t0, do64 := 64, 0
	if N > 128 {
		t0, do64 = 128, 1
	}
	invHead32AVX512(a, &in[0], N, psi, psiS, &avxTables[0], &r.tailTwInv[0], r.Q, do64)
	for m, t := N/(2*t0), t0; t < N/2; m, t = m/2, 2*t {
		invStage32AVX512(a, m, t, psi, psiS, r.Q)
	}
	c := [4]uint32{r.nInv, r.nInvShoup, r.nInvPsi, r.nInvPsiShoup}
	invLast32AVX512(a, N, &c, r.Q, full)
}

// inverseUnscaledAVX512 is inverseAVX512 (full) without N^-1: the last
// stage multiplies only the differences, by ψ_rev^-1[1].
func (r *NTT32) inverseUnscaledAVX512(in, out []uint32) {
	N := r.N
	_, _ = in[N-1], out[N-1]
	a := &out[0]
	psi, psiS := &r.psiInvRev[0], &r.psiInvRevShoup[0]
	invHead32AVX512(a, &in[0], N, psi, psiS, &avxTables[0], &r.tailTwInv[0], r.Q, 1)
	for m, t := N/256, 128; t < N/2; m, t = m/2, 2*t {
		invStage32AVX512(a, m, t, psi, psiS, r.Q)
	}
	c := [4]uint32{0, 0, r.psiInvRev[1], r.psiInvRevShoup[1]}
	invLastRaw32AVX512(a, N, &c, r.Q)
}

//go:noescape
func reduceLazyAVX512(acc *uint64, out *uint32, n int, c *[6]uint64)

//go:noescape
func mulCoeffsAVX512(a, b, out *uint32, n int, c *[6]uint64, add bool)

//go:noescape
func mulCoeffsAddLazyAVX512(a, b *uint32, acc *uint64, n int)

// The wrappers below run the vector kernel on the largest multiple of 8
// entries and return how many they covered; the caller finishes in Go.

func (m *Modulus32) reduceLazyVec(acc []uint64, out []uint32) int {
	n := len(out) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	_ = acc[n-1]
	reduceLazyAVX512(&acc[0], &out[0], n, &m.vecConst)
	return n
}

func (m *Modulus32) mulCoeffsVec(a, b, out []uint32, add bool) int {
	n := len(out) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	_, _ = a[n-1], b[n-1]
	mulCoeffsAVX512(&a[0], &b[0], &out[0], n, &m.vecConst, add)
	return n
}

func mulCoeffsAddLazyVec(a, b []uint32, acc []uint64) int {
	n := len(acc) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	_, _ = a[n-1], b[n-1]
	mulCoeffsAddLazyAVX512(&a[0], &b[0], &acc[0], n)
	return n
}

//go:noescape
func decomposeAVX512(in *uint32, n int, outs *[MaxDigits]*uint32, dg int, c *[8]uint32)

// decomposeVec runs the vector DecomposeSigned kernel on the largest multiple
// of 16 coefficients and returns how many it covered.
func decomposeVec(in []uint32, out [][]uint32, c *[8]uint32) int {
	n := len(in) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	var ptrs [MaxDigits]*uint32
	for r, o := range out {
		ptrs[r] = &o[:n][0]
	}
	decomposeAVX512(&in[0], n, &ptrs, len(out), c)
	return n
}
