//go:build !amd64 || purego

package ring

// hasAVX512 is false where the assembly kernels are not built.
const hasAVX512 = false

const avxMinN = 1 << 30 // never reached: hasAVX512 is false

func (r *NTT32) forwardAVX512(in, out []uint32, full bool) {
	panic("ring: internal error: AVX-512 kernels not built")
}

func (r *NTT32) forwardNRAVX512(in, out []uint32, lazy4Q bool) {
	panic("ring: internal error: AVX-512 kernels not built")
}

func (r *NTT32) inverseAVX512(in, out []uint32, full bool) {
	panic("ring: internal error: AVX-512 kernels not built")
}

func (r *NTT32) inverseUnscaledAVX512(in, out []uint32) {
	panic("ring: internal error: AVX-512 kernels not built")
}

func (m *Modulus32) reduceLazyVec(acc []uint64, out []uint32) int  { return 0 }
func (m *Modulus32) mulCoeffsVec(a, b, out []uint32, add bool) int { return 0 }
func mulCoeffsAddLazyVec(a, b []uint32, acc []uint64) int          { return 0 }

func decomposeVec(in []uint32, out [][]uint32, c *[8]uint32) int { return 0 }
