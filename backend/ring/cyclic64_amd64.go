//go:build amd64 && !purego

package ring

import "golang.org/x/sys/cpu"

// hasCyclicVec selects CyclicNTT64's AVX-512 kernels (cyclic64_amd64.s):
// they need AVX-512F and AVX-512DQ (VPMULLQ). The pure-Go kernels remain the
// fallback and the reference in tests; -tags purego leaves the assembly out.
var hasCyclicVec = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

//go:noescape
func cycFwdStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)

//go:noescape
func cycInvStageAVX(a *uint64, n, h int, tw, twS *uint64, q uint64)

//go:noescape
func cycReduce4AVX(a *uint64, n int, q uint64)

//go:noescape
func cycMiddleAVX(a *uint64, n int, k, ks *uint64, c *[18]uint64, q uint64)

// convolveVec is Convolve on the vector kernels: forward stages h = N/2..8,
// cycMiddleAVX (stages 4, 2, 1, the kernel product and back), inverse stages
// h = 8..N/2 and the final reduction. buf in [0, Q) (natural order), out in
// [0, Q); k, ks in the transposed layout of kernelLayoutVec. (Pairs of
// stages per pass were measured slower: four streams at power-of-two
// distances plus three twiddle streams conflict in the caches.)
func (t *CyclicNTT64) convolveVec(buf, k, ks []uint64) {
	n, q := t.n, t.q
	_, _, _ = buf[n-1], k[n-1], ks[n-1]
	a := &buf[0]
	for h := n / 2; h >= 8; h >>= 1 {
		cycFwdStageAVX(a, n, h, &t.tw[h], &t.twShoup[h], q)
	}
	cycMiddleAVX(a, n, &k[0], &ks[0], &t.vconst, q)
	for h := 8; h < n; h <<= 1 {
		cycInvStageAVX(a, n, h, &t.itw[h], &t.itwShoup[h], q)
	}
	cycReduce4AVX(a, n, q)
}
