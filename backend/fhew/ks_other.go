//go:build !amd64 || purego

package fhew

// hasKSVec is false where the assembly kernel is not built.
var hasKSVec = false

func ksAccAVX512(acc, base *uint16, offs *int32, count, vecs int) {
	panic("fhew: internal error: AVX-512 key-switching kernel not built")
}
