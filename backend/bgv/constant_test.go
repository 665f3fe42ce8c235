package bgv

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestCanonicalSize: the Bluestein DFT agrees with direct evaluation of
// |a(ζ)|² at the primitive m-th roots.
func TestCanonicalSize(t *testing.T) {
	for _, m := range []int{17, 257} {
		rng := rand.New(rand.NewPCG(uint64(m), 1))
		a := NewBinaryPoly(m - 1)
		for i := 0; i < m-1; i++ {
			if rng.IntN(2) == 1 {
				a.flip(i)
			}
		}
		maxV, sum := 0.0, 0.0
		for j := 1; j < m; j++ {
			var v complex128
			for i := 0; i < m-1; i++ {
				if a.Bit(i) == 1 {
					v += cmplx.Rect(1, 2*math.Pi*float64(i*j%m)/float64(m))
				}
			}
			s := real(v)*real(v) + imag(v)*imag(v)
			maxV, sum = max(maxV, s), sum+s
		}
		gotMax, gotMean := canonicalSize(a, m)
		if math.Abs(gotMax-math.Log2(maxV)) > 1e-6 || math.Abs(gotMean-math.Log2(sum/float64(m-1))) > 1e-6 {
			t.Errorf("m=%d: max 2^%.6f mean 2^%.6f, want 2^%.6f and 2^%.6f", m, gotMax, gotMean, math.Log2(maxV), math.Log2(sum/float64(m-1)))
		}
		if gotMax < math.Log2(maxV) {
			t.Errorf("m=%d: max below the direct value", m)
		}
		if lm, _ := canonicalSize(NewBinaryPoly(m-1), m); !math.IsInf(lm, -1) {
			t.Errorf("m=%d: zero polynomial has size 2^%f", m, lm)
		}
	}
}

// TestMulConst: slot-wise products with random GF(2^d) constants and bit
// masks agree with the plaintext model, also after a product (lower
// level), in place, and in a chain of constant products run until the
// budget is refused; the estimate bounds the measured noise throughout.
func TestMulConst(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToyM17Literal, ToyM257Literal} {
		k := newTestKit(t, lit)
		t.Run(fmt.Sprintf("m=%d", k.pr.M()), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(k.pr.M())))
			f := k.enc.Field()
			l := k.enc.Slots()
			x := randomSlots(rng, k.enc)
			cx := k.encrypt(t, x)
			cv := randomSlots(rng, k.enc)
			c, err := k.enc.EncodeConst(cv)
			if err != nil {
				t.Fatal(err)
			}
			bits := make([]uint8, l)
			for j := range bits {
				bits[j] = uint8(rng.IntN(2))
			}
			bits[0], bits[l-1] = 1, 0
			mask, err := k.enc.EncodeConstBits(bits)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("constant norm 2^%.1f, mask norm 2^%.1f", c.LogNorm(), mask.LogNorm())
			want := make([]uint64, l)
			out := k.pr.NewCiphertext()
			if err := k.ev.MulConst(cx, c, out, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] = f.Mul(x[j], cv[j])
			}
			equalSlots(t, "constant", k.decrypt(out), want)
			k.checkNoise(t, "constant", out)
			if err := k.ev.MulConst(cx, mask, out, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] = x[j] * uint64(bits[j])
			}
			equalSlots(t, "mask", k.decrypt(out), want)
			k.checkNoise(t, "mask", out)
			if err := k.ev.AddConst(out, c, out); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] ^= cv[j]
			}
			equalSlots(t, "add constant", k.decrypt(out), want)
			k.checkNoise(t, "add constant", out)

			// After a product (noise near the top of its level) and in place.
			y := randomSlots(rng, k.enc)
			prod := k.pr.NewCiphertext()
			if err := k.ev.Mul(cx, k.encrypt(t, y), prod, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] = f.Mul(f.Mul(x[j], y[j]), cv[j])
			}
			if err := k.ev.MulConst(prod, c, prod, k.sc); err != nil {
				t.Fatal(err)
			}
			equalSlots(t, "product times constant", k.decrypt(prod), want)
			k.checkNoise(t, "product·const", prod)

			// A chain of constant products until the budget is refused.
			acc := k.encrypt(t, x)
			copy(want, x)
			steps := 0
			for ; ; steps++ {
				cv := randomSlots(rng, k.enc)
				c, err := k.enc.EncodeConst(cv)
				if err != nil {
					t.Fatal(err)
				}
				err = k.ev.MulConst(acc, c, acc, k.sc)
				if errors.Is(err, ErrNoiseBudget) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for j := range want {
					want[j] = f.Mul(want[j], cv[j])
				}
				equalSlots(t, fmt.Sprintf("chain %d", steps), k.decrypt(acc), want)
				k.checkNoiseGap(t, fmt.Sprintf("chain %d", steps), acc, -1)
			}
			if steps < 3 {
				t.Errorf("budget refused after %d constant products", steps)
			}
			t.Logf("%d constant products before the budget ran out (level %d)", steps, acc.Level())
		})
	}
}

// TestConstZero: the zero constant gives a noiseless encryption of zero.
func TestConstZero(t *testing.T) {
	k := newTestKit(t, ToyM17Literal)
	z, err := k.enc.EncodeConst(make([]uint64, k.enc.Slots()))
	if err != nil {
		t.Fatal(err)
	}
	out, err := k.ev.MulConstNew(k.encrypt(t, []uint64{3, 5}), z)
	if err != nil {
		t.Fatal(err)
	}
	equalSlots(t, "zero", k.decrypt(out), []uint64{0, 0})
	if !math.IsInf(out.Noise.LogEnergy(), -1) {
		t.Errorf("zero product has noise estimate 2^%.1f", out.Noise.LogEnergy())
	}
	if _, err := k.enc.EncodeConstBits([]uint8{1, 2}); err == nil {
		t.Error("EncodeConstBits accepted a 2")
	}
}

// TestConstAllocs: MulConst and AddConst allocate nothing.
func TestConstAllocs(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(22, 23))
	x := k.encrypt(t, randomSlots(rng, k.enc))
	c, err := k.enc.EncodeConst(randomSlots(rng, k.enc))
	if err != nil {
		t.Fatal(err)
	}
	out := k.pr.NewCiphertext()
	if a := testing.AllocsPerRun(5, func() {
		if err := k.ev.MulConst(x, c, out, k.sc); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.AddConst(out, c, out); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("MulConst+AddConst: %.1f allocations per run, want 0", a)
	}
}
