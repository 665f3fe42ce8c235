//go:build !amd64 || purego

package ring

// hasCyclicVec is false where the assembly kernels are not built.
const hasCyclicVec = false

func (t *CyclicNTT64) convolveVec(buf, k, ks []uint64) {
	panic("ring: internal error: cyclic NTT vector kernels not built")
}
