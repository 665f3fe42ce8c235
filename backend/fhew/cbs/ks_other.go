//go:build !amd64 || purego

package cbs

// hasKSVec is false where the assembly kernel is not built.
const hasKSVec = false

// ksAheadVec is unused without the assembly kernel.
const ksAheadVec = 0

func ksAddRowsVec(ks []uint64, W int, offs []uint64, accs [][]uint64) {
	panic("cbs: internal error: key-switch vector kernel not built")
}

func setKSAhead(int) {}
