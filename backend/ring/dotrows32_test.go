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

// TestDotRowsN1024 checks the N = 1024 loops for contiguous digits (four
// without init, two with) against the per-slot reference, with digits
// anywhere below 2^32 as ForwardUnreduced leaves them.
func TestDotRowsN1024(t *testing.T) {
	const N = dotN
	m, err := NewModulus32(testQ27)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nd := range []int{2, 4, 6} {
		slab := make([]uint32, nd*N)
		for i := range slab {
			slab[i] = rng.Uint32()
		}
		digits := make([][]uint32, nd)
		for r := range digits {
			digits[r] = slab[r*N : (r+1)*N]
		}
		if !contiguous(digits) {
			t.Fatal("slab digits not seen as contiguous")
		}
		rows := randPoly32(rng, 2*nd*N, testQ27)
		var init []uint32
		if nd == 2 {
			init = randPoly32(rng, N, testQ27)
		}
		outB, outA := make([]uint32, N), make([]uint32, N)
		m.DotRows(digits, rows, init, make([]uint64, N), make([]uint64, N), outB, outA)
		for i := 0; i < N; i++ {
			var wb, wa uint64
			if init != nil {
				wb = uint64(init[i])
			}
			for r := 0; r < nd; r++ {
				wb += uint64(digits[r][i]) % testQ27 * uint64(rows[2*r*N+i]) % testQ27
				wa += uint64(digits[r][i]) % testQ27 * uint64(rows[(2*r+1)*N+i]) % testQ27
			}
			if uint64(outB[i]) != wb%testQ27 || uint64(outA[i]) != wa%testQ27 {
				t.Fatalf("digits=%d slot %d: got (%d, %d), want (%d, %d)", nd, i, outB[i], outA[i], wb%testQ27, wa%testQ27)
			}
		}
	}
}

// TestMulCoeffsAdd2 checks out + a1·b1 + a2·b2 mod Q slot by slot.
func TestMulCoeffsAdd2(t *testing.T) {
	const N = 100
	m, err := NewModulus32(testQ27)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	a1, b1, a2, b2 := randPoly32(rng, N, 2*testQ27), randPoly32(rng, N, 2*testQ27), randPoly32(rng, N, 2*testQ27), randPoly32(rng, N, 2*testQ27)
	out := randPoly32(rng, N, testQ27)
	want := make([]uint64, N)
	for i := range want {
		want[i] = (uint64(out[i]) + uint64(a1[i])*uint64(b1[i])%testQ27 + uint64(a2[i])*uint64(b2[i])%testQ27) % testQ27
	}
	m.MulCoeffsAdd2(a1, b1, a2, b2, out)
	for i := range out {
		if uint64(out[i]) != want[i] {
			t.Fatalf("slot %d: %d, want %d", i, out[i], want[i])
		}
	}
}
