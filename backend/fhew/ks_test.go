package fhew

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestKeySwitchSumPaths checks the key-switching row sums of the portable
// loop's two variants (mod 2^15 with guard bits for Q_ks <= 2^15, mod 2^16
// otherwise) against a lane-by-lane reference, and the vector kernel where
// it is built, on random rows with added and subtracted offsets.
func TestKeySwitchSumPaths(t *testing.T) {
	p, err := NewParams(ToySigned)
	if err != nil {
		t.Fatal(err)
	}
	k := newKeySwitchKey(p.params)
	rng := rand.New(rand.NewPCG(1, 2))
	mask := uint16(p.qks - 1)
	for i := range k.data {
		if i%k.width <= p.n {
			k.data[i] = uint16(rng.Uint32()) & mask
		}
	}
	rows := len(k.data) / k.width
	offs := make([]int32, 300)
	for i := range offs {
		o := int32(rng.IntN(rows) * k.width)
		if rng.IntN(2) == 0 {
			o = ^o
		}
		offs[i] = o
	}
	want := make([]uint16, k.width)
	want[0] = 1234 & mask
	for _, o := range offs {
		neg := o < 0
		if neg {
			o = ^o
		}
		for t := range want {
			if neg {
				want[t] -= k.data[int(o)+t]
			} else {
				want[t] += k.data[int(o)+t]
			}
		}
	}
	check := func(name string, acc []uint64) {
		t.Helper()
		for lane := range want {
			got := uint16(acc[lane/4]>>(16*uint(lane%4))) & mask
			if got != want[lane]&mask {
				t.Fatalf("%s: lane %d = %d, want %d", name, lane, got, want[lane]&mask)
			}
		}
	}
	for _, narrow := range []bool{false, true} {
		acc := make([]uint64, k.width/4)
		acc[0] = 1234 & uint64(mask)
		ksAccSWAR(k, acc, offs, narrow)
		if narrow {
			check("SWAR mod 2^15", acc)
		} else {
			check("SWAR mod 2^16", acc)
		}
	}
	if hasKSVec {
		acc := make([]uint64, k.width/4)
		acc[0] = 1234 & uint64(mask)
		ksAccAVX512((*uint16)(unsafe.Pointer(&acc[0])), &k.data[0], &offs[0], len(offs), k.width/32)
		check("AVX-512", acc)
	}
}
