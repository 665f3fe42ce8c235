package bgv

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestDeepChainM65537 measures the noise of a multiplication chain of the
// promised AND-depth at M65537, so that DepthAvailable is backed by a run and
// not only by the noise model (docs/bgv-noise.md). It takes about a minute
// and ~2 GB, so it runs only with HCC_BGV_DEEP=1:
//
//	HCC_BGV_DEEP=1 go test ./backend/bgv -run TestDeepChainM65537 -v -timeout 30m
//
// Random bits go in all slots; each level squares the ciphertext (the
// plaintext bits stay, the noise is the square of the previous noise: the
// shared-noise case the depth check is built on) with the evaluator's normal
// switch-down policy. After every level it decrypts and checks every slot
// and logs the estimate's bounds against the measured noise. After the
// promised depth it keeps going until the evaluator refuses the product, to
// show how much the estimate leaves unused.
func TestDeepChainM65537(t *testing.T) {
	if os.Getenv("HCC_BGV_DEEP") != "1" {
		t.Skip("set HCC_BGV_DEEP=1 to run the M65537 depth measurement (~1 min, ~2 GB)")
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
	want := make([]uint8, enc.Slots())
	for i := range want {
		want[i] = uint8(rng.IntN(2))
	}
	pt := NewBinaryPoly(pr.N())
	if err := enc.EncodeBits(want, pt); err != nil {
		t.Fatal(err)
	}
	x := en.Encrypt(pt)
	got := make([]uint8, enc.Slots())

	// check decrypts x, compares every slot and logs one table row.
	check := func(k int, dt time.Duration) bool {
		if err := enc.DecodeBits(de.Decrypt(x), got); err != nil {
			t.Errorf("level %d: %v", k, err)
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
			k, x.Level(), lo, hi, noise, hi-noise, logQ-1-noise, logQ, len(want)-bad, len(want), dt.Seconds())
		if bad != 0 {
			t.Errorf("level %d: %d of %d slots wrong", k, bad, len(want))
			return false
		}
		if noise > hi {
			t.Errorf("level %d: measured noise 2^%.1f above the estimate 2^%.1f", k, noise, hi)
		}
		return true
	}
	t.Log("| AND-depth | level t | bound lo | bound hi | NoiseBits | hi - measured | budget log2(Q_t/2) - noise | log2 Q_t | slots ok | mul s |")
	if !check(0, 0) {
		t.FailNow()
	}
	for k := 1; ; k++ {
		start := time.Now()
		err := ev.Mul(x, x, x, sc)
		dt := time.Since(start)
		if errors.Is(err, ErrNoiseBudget) {
			t.Logf("product %d refused by the estimate: %v", k, err)
			if k <= depth {
				t.Errorf("refused at AND-depth %d < DepthAvailable %d", k, depth)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !check(k, dt) {
			if k <= depth {
				t.Errorf("chain failed at AND-depth %d of the promised %d", k, depth)
			}
			break
		}
		if x.Level() == 0 && k > depth+40 {
			break // safety: the estimate should have refused long before
		}
	}
	t.Logf("total %.1f s", time.Since(t0).Seconds())
}
