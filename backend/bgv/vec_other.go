//go:build !amd64 || purego

package bgv

// hasVec is false where the assembly kernels are not built.
const hasVec = false

func mulModVec(a, b, out []uint64, c *[4]uint64, add bool) int              { return 0 }
func mulMod2Vec(x, b0, b1, out0, out1 []uint64, c *[4]uint64, add bool) int { return 0 }
func shoupPairVec(x, d, out []uint64, c *[7]uint64) int                     { return 0 }
func bconvPrepVec(x, y []uint64, v []float64, c *[5]uint64) int             { return 0 }
func bconvRowVec(rows [][]uint64, hat, hatS []uint64, v []float64, out []uint64, c *[4]uint64) int {
	return 0
}

func tensorVec(a0, a1, b0, b1, d0, d1, d2 []uint64, c *[4]uint64) int { return 0 }
