//go:build !amd64 || purego

package ring

// Without the assembly RaderNTT's vec flag is never set (hasCyclicVec is
// false), so these are never called with work to do.

func raderGatherSubVec(src []uint64, idx []uint32, out []uint64, c, q uint64) int { return 0 }
func raderSubScalarVec(a, out []uint64, c, q uint64) int                          { return 0 }
func raderSumModVec(a []uint64, q uint64) (uint64, int)                           { return 0, 0 }
func raderReverseVec(src, dst []uint64) bool                                      { return false }
