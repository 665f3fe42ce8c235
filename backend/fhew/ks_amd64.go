//go:build amd64 && !purego

package fhew

import "golang.org/x/sys/cpu"

// hasKSVec selects the AVX-512BW key-switching kernel at run time; the SWAR
// loop in keySwitch stays the fallback and the reference in tests.
var hasKSVec = cpu.X86.HasAVX512BW

// ksAccAVX512 adds (offs[i] >= 0) or subtracts (offs[i] < 0, row at ^offs[i])
// the rows base[off : off+32·vecs] to acc[0 : 32·vecs], lane-wise mod 2^16,
// for i < count.
//
//go:noescape
func ksAccAVX512(acc, base *uint16, offs *int32, count, vecs int)
