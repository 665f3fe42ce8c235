package ring

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigMod returns (x mod q) for a big expression, as uint64.
func bigMod(x *big.Int, q uint64) uint64 {
	return new(big.Int).Mod(x, new(big.Int).SetUint64(q)).Uint64()
}

func TestModulus32Pointwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 4096 + 5 // not a multiple of 8: exercises the vector kernels and the Go tail
	for _, q := range []uint32{3, 12289, testQ27, testQ30, 1<<30 - 35} {
		t.Run(fmt.Sprintf("Q=%d", q), func(t *testing.T) {
			m, err := NewModulus32(q)
			if err != nil {
				t.Fatal(err)
			}
			Q := uint64(q)
			a, b, c := randPoly32(rng, n, q), randPoly32(rng, n, q), randPoly32(rng, n, q)
			// Edge values.
			a[0], b[0], a[1], b[1], a[2], b[2] = 0, 0, q-1, q-1, 0, q-1
			// Lazy inputs for the operations that accept them.
			aw, bw := randPoly32(rng, n, 2*q), randPoly32(rng, n, 2*q)
			aw[0], bw[0] = 2*q-1, 2*q-1
			out := make([]uint32, n)
			check := func(op string, want func(i int) uint64) {
				t.Helper()
				for i := range out {
					if uint64(out[i]) != want(i) {
						t.Fatalf("%s slot %d = %d, want %d", op, i, out[i], want(i))
					}
				}
			}
			B := func(v uint32) *big.Int { return new(big.Int).SetUint64(uint64(v)) }
			m.Add(a, b, out)
			check("Add", func(i int) uint64 { return (uint64(a[i]) + uint64(b[i])) % Q })
			m.Sub(a, b, out)
			check("Sub", func(i int) uint64 { return bigMod(new(big.Int).Sub(B(a[i]), B(b[i])), Q) })
			m.Neg(a, out)
			check("Neg", func(i int) uint64 { return bigMod(new(big.Int).Neg(B(a[i])), Q) })
			m.MulCoeffs(aw, bw, out)
			check("MulCoeffs", func(i int) uint64 { return bigMod(new(big.Int).Mul(B(aw[i]), B(bw[i])), Q) })
			copy(out, c)
			m.MulCoeffsAdd(aw, bw, out)
			check("MulCoeffsAdd", func(i int) uint64 {
				return bigMod(new(big.Int).Add(B(c[i]), new(big.Int).Mul(B(aw[i]), B(bw[i]))), Q)
			})
			s := q - 2
			m.MulScalar(aw, s, out)
			check("MulScalar", func(i int) uint64 { return bigMod(new(big.Int).Mul(B(aw[i]), B(s)), Q) })
			copy(out, c)
			m.MulScalarAdd(a, s, out)
			check("MulScalarAdd", func(i int) uint64 {
				return bigMod(new(big.Int).Add(B(c[i]), new(big.Int).Mul(B(a[i]), B(s))), Q)
			})
			m.Reduce32(aw, out)
			check("Reduce32", func(i int) uint64 { return uint64(aw[i]) % Q })

			// Lazy accumulation of the maximum number of terms.
			terms := min(m.MaxLazyTerms(), 40)
			acc := make([]uint64, n)
			sum := make([]*big.Int, n)
			for i := range sum {
				sum[i] = new(big.Int)
			}
			for k := 0; k < terms; k++ {
				x, y := randPoly32(rng, n, q), randPoly32(rng, n, q)
				x[0], y[0] = q-1, q-1
				m.MulCoeffsAddLazy(x, y, acc)
				for i := range sum {
					sum[i].Add(sum[i], new(big.Int).Mul(B(x[i]), B(y[i])))
				}
			}
			m.ReduceLazy(acc, out)
			check("MulCoeffsAddLazy+ReduceLazy", func(i int) uint64 { return bigMod(sum[i], Q) })

			// Scalar helpers.
			for _, x := range []uint32{0, 1, q / 2, q/2 + 1, q - 1} {
				c := m.Centered(x)
				if m.FromInt64(c) != x || 2*c > int64(q) || 2*c < -int64(q) {
					t.Errorf("Centered(%d) = %d", x, c)
				}
				w := q - 3
				if got, want := m.MulShoup(x+q, w, m.ShoupConst(w)), uint64(x+q)*uint64(w)%Q; uint64(got) != want {
					t.Errorf("MulShoup(%d, %d) = %d, want %d", x+q, w, got, want)
				}
				if got := m.Reduce(^uint64(0) - uint64(x)); uint64(got) != (^uint64(0)-uint64(x))%Q {
					t.Errorf("Reduce(2^64-1-%d) = %d", x, got)
				}
			}
			if m.FromInt64(-1) != q-1 || m.FromInt64(-int64(q)) != 0 {
				t.Error("FromInt64 wrong on negative inputs")
			}
		})
	}
	for _, q := range []uint32{0, 1, 2, 1 << 30, 1<<30 + 1} {
		if _, err := NewModulus32(q); err == nil {
			t.Errorf("NewModulus32(%d) accepted", q)
		}
	}
}

func TestModulus32MaxLazyTerms(t *testing.T) {
	for _, q := range []uint32{testQ27, testQ30} {
		m, _ := NewModulus32(q)
		k := uint64(m.MaxLazyTerms())
		s := uint64(q - 1)
		sq := new(big.Int).SetUint64(s * s)
		fits := new(big.Int).Mul(new(big.Int).SetUint64(k), sq).BitLen() <= 64
		next := new(big.Int).Mul(new(big.Int).SetUint64(k+1), sq).BitLen() <= 64
		if !fits || next {
			t.Errorf("MaxLazyTerms(%d) = %d is not the largest safe count", q, k)
		}
	}
	m, _ := NewModulus32(testQ27)
	if m.MaxLazyTerms() < 1024 {
		t.Errorf("27-bit Q allows %d lazy terms, want >= 1024", m.MaxLazyTerms())
	}
}
