package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDotRows compares DotRows (fused scalar loops where they exist, the
// lazy accumulator otherwise) with a per-slot reference for each digit
// count, with and without init, on lazily reduced digits in [0, 2Q).
func TestDotRows(t *testing.T) {
	const N = 64
	m, err := NewModulus32(testQ27)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for nd := 1; nd <= 8; nd++ {
		for _, withInit := range []bool{false, true} {
			t.Run(fmt.Sprintf("digits=%d/init=%v", nd, withInit), func(t *testing.T) {
				digits := make([][]uint32, nd)
				for r := range digits {
					digits[r] = randPoly32(rng, N, 2*testQ27)
				}
				rows := randPoly32(rng, 2*nd*N, testQ27)
				var init []uint32
				if withInit {
					init = randPoly32(rng, N, testQ27)
				}
				outB, outA := make([]uint32, N), make([]uint32, N)
				accB, accA := make([]uint64, N), make([]uint64, N)
				m.DotRows(digits, rows, init, accB, accA, outB, outA)
				for i := 0; i < N; i++ {
					var wb, wa uint64
					if init != nil {
						wb = uint64(init[i])
					}
					for r := 0; r < nd; r++ {
						wb += uint64(digits[r][i]) * uint64(rows[2*r*N+i]) % testQ27
						wa += uint64(digits[r][i]) * uint64(rows[(2*r+1)*N+i]) % testQ27
					}
					if uint64(outB[i]) != wb%testQ27 || uint64(outA[i]) != wa%testQ27 {
						t.Fatalf("slot %d: got (%d, %d), want (%d, %d)", i, outB[i], outA[i], wb%testQ27, wa%testQ27)
					}
				}
				if a := testing.AllocsPerRun(10, func() { m.DotRows(digits, rows, init, accB, accA, outB, outA) }); a != 0 {
					t.Errorf("DotRows allocates %v times", a)
				}
			})
		}
	}
}
