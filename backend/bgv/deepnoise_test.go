package bgv

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestDeepChainM65537 measures the noise of multiplication chains of the
// promised AND-depth at M65537, so that DepthAvailable is backed by a run and
// not only by the noise model (docs/bgv-noise.md). It takes about two
// minutes and ~1.5 GB, so it runs only with HCC_BGV_DEEP=1:
//
//	HCC_BGV_DEEP=1 go test ./backend/bgv -run TestDeepChainM65537 -v -timeout 30m
//
// Random bits go in all slots. Two chain shapes, both with the evaluator's
// normal switch-down policy:
//
//   - square: x ← x·x (the bits stay; the noise is squared, the shared-noise
//     case the depth check is built on);
//   - carry: p ← a·b, then a ← p ⊕ r, b ← p ⊕ r' with fresh encryptions r, r'
//     of random bits at p's level (distinct operands sharing p's noise, as in
//     a ripple carry; the bits stay random).
//
// After every level it decrypts and checks every slot and logs the
// estimate's bounds against the measured noise. After the promised depth it
// keeps going until the evaluator refuses the product, to show whether the
// estimate leaves depth unused.
func TestDeepChainM65537(t *testing.T) {
	if os.Getenv("HCC_BGV_DEEP") != "1" {
		t.Skip("set HCC_BGV_DEEP=1 to run the M65537 depth measurement (~2 min, ~1.5 GB)")
	}
	pr := testParams(t, M65537Literal)
	depth := pr.DepthAvailable()
	t0 := time.Now()
	smp := NewSamplerFromSeed([32]byte{41})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	ek, err := kg.GenEvaluationKeys(sk, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keygen %.1f s; DepthAvailable %d, top level %d", time.Since(t0).Seconds(), depth, pr.MaxLevel())
	enc, err := NewEncoder(pr)
	if err != nil {
		t.Fatal(err)
	}
	en := NewPublicEncryptor(pr, pk, smp)
	de := NewDecryptor(pr, sk)
	ev := NewEvaluator(pr, ek)
	sc := pr.NewScratch()
	rng := rand.New(rand.NewPCG(41, 65537))
	slots := enc.Slots()
	pt := NewBinaryPoly(pr.N())
	got := make([]uint8, slots)

	randomBits := func() []uint8 {
		b := make([]uint8, slots)
		for i := range b {
			b[i] = uint8(rng.IntN(2))
		}
		return b
	}
	// encrypt returns an encryption of bits at level lv.
	encrypt := func(t *testing.T, bits []uint8, lv int) *Ciphertext {
		if err := enc.EncodeBits(bits, pt); err != nil {
			t.Fatal(err)
		}
		ct, err := en.EncryptAtLevel(pt, lv)
		if err != nil {
			t.Fatal(err)
		}
		return ct
	}
	// check decrypts x, compares every slot with want and logs one table row.
	check := func(t *testing.T, k int, x *Ciphertext, want []uint8, dt time.Duration) bool {
		if err := enc.DecodeBits(de.Decrypt(x), got); err != nil {
			t.Errorf("AND-depth %d: %v", k, err)
			return false
		}
		bad := 0
		for i := range want {
			if got[i] != want[i] {
				bad++
			}
		}
		noise, logQ := de.NoiseBits(x)
		hi := pr.NoiseBound(x)
		lo := pr.boundOf(NoiseEstimate{hi: x.Noise.lo, set: true})
		t.Logf("| %2d | %2d | %6.1f | %6.1f | %6.1f | %+5.1f | %6.1f | %7.1f | %d/%d | %5.2f |",
			k, x.Level(), lo, hi, noise, hi-noise, logQ-1-noise, logQ, slots-bad, slots, dt.Seconds())
		if bad != 0 {
			t.Errorf("AND-depth %d: %d of %d slots wrong", k, bad, slots)
			return false
		}
		if noise > hi {
			t.Errorf("AND-depth %d: measured noise 2^%.1f above the estimate 2^%.1f", k, noise, hi)
		}
		return true
	}
	header := "| AND-depth | level t | bound lo | bound hi | NoiseBits | hi - measured | budget log2(Q_t/2) - noise | log2 Q_t | slots ok | mul s |"

	// run drives one chain: step performs product k and returns the
	// ciphertext to check, its expected bits and the product's time.
	run := func(t *testing.T, step func(k int) (*Ciphertext, []uint8, time.Duration, error)) {
		for k := 1; k <= depth+40; k++ {
			x, want, dt, err := step(k)
			if errors.Is(err, ErrNoiseBudget) {
				t.Logf("product %d refused by the estimate: %v", k, err)
				if k <= depth {
					t.Errorf("refused at AND-depth %d < DepthAvailable %d", k, depth)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !check(t, k, x, want, dt) {
				if k <= depth {
					t.Errorf("chain failed at AND-depth %d of the promised %d", k, depth)
				}
				return
			}
		}
		t.Errorf("the estimate allowed more than %d products at level 0", depth+40)
	}

	t.Run("square", func(t *testing.T) {
		t1 := time.Now()
		want := randomBits()
		x := encrypt(t, want, pr.MaxLevel())
		t.Log(header)
		if !check(t, 0, x, want, 0) {
			t.FailNow()
		}
		run(t, func(int) (*Ciphertext, []uint8, time.Duration, error) {
			start := time.Now()
			err := ev.Mul(x, x, x, sc)
			return x, want, time.Since(start), err
		})
		t.Logf("square chain %.1f s", time.Since(t1).Seconds())
	})
	t.Run("carry", func(t *testing.T) {
		t1 := time.Now()
		wa, wb := randomBits(), randomBits()
		a, b := encrypt(t, wa, pr.MaxLevel()), encrypt(t, wb, pr.MaxLevel())
		p := pr.NewCiphertext()
		wp := make([]uint8, slots)
		t.Log(header + " (rows: the product p before the fresh XORs)")
		run(t, func(int) (*Ciphertext, []uint8, time.Duration, error) {
			start := time.Now()
			if err := ev.Mul(a, b, p, sc); err != nil {
				return nil, nil, 0, err
			}
			dt := time.Since(start)
			for i := range wp {
				wp[i] = wa[i] & wb[i]
			}
			ra, rb := randomBits(), randomBits()
			if err := ev.Add(p, encrypt(t, ra, p.Level()), a, sc); err != nil {
				t.Fatal(err)
			}
			if err := ev.Add(p, encrypt(t, rb, p.Level()), b, sc); err != nil {
				t.Fatal(err)
			}
			for i := range wp {
				wa[i], wb[i] = wp[i]^ra[i], wp[i]^rb[i]
			}
			return p, wp, dt, nil
		})
		t.Logf("carry chain %.1f s", time.Since(t1).Seconds())
	})
}
