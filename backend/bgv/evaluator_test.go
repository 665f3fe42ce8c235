package bgv

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// testKit bundles keys and helpers for one parameter set.
type testKit struct {
	pr  *Params
	enc *Encoder
	sk  *SecretKey
	en  *Encryptor
	de  *Decryptor
	ev  *Evaluator
	sc  *Scratch
}

var testKitCache = map[string]*testKit{}

// newTestKit builds keys with rotation keys for ±1, 3 and the Frobenius maps.
func newTestKit(t testing.TB, lit ParamsLiteral) *testKit {
	t.Helper()
	if k, ok := testKitCache[lit.Name]; ok {
		return k
	}
	pr, enc := testEncoder(t, lit)
	smp := NewSamplerFromSeed([32]byte{7})
	kg := NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	pk := kg.GenPublicKey(sk)
	ek, err := kg.GenEvaluationKeys(sk, []int{1, -1, 3}, true)
	if err != nil {
		t.Fatal(err)
	}
	k := &testKit{pr: pr, enc: enc, sk: sk, en: NewPublicEncryptor(pr, pk, smp), de: NewDecryptor(pr, sk),
		ev: NewEvaluator(pr, ek), sc: pr.NewScratch()}
	testKitCache[lit.Name] = k
	return k
}

func (k *testKit) encrypt(t testing.TB, v []uint64) *Ciphertext {
	t.Helper()
	pt := NewBinaryPoly(k.pr.N())
	if err := k.enc.Encode(v, pt); err != nil {
		t.Fatal(err)
	}
	return k.en.Encrypt(pt)
}

func (k *testKit) decrypt(ct *Ciphertext) []uint64 {
	out := make([]uint64, k.enc.Slots())
	k.enc.Decode(k.de.Decrypt(ct), out)
	return out
}

// checkNoise compares the ciphertext's estimate with the measured noise:
// the estimate must bound it and exceed it by at most maxGap bits.
func (k *testKit) checkNoise(t *testing.T, what string, ct *Ciphertext) {
	t.Helper()
	k.checkNoiseGap(t, what, ct, 6)
}

// checkNoiseGap is checkNoise with the allowed gap (negative: not checked).
func (k *testKit) checkNoiseGap(t *testing.T, what string, ct *Ciphertext, maxGap float64) {
	t.Helper()
	measured, logQ := k.de.NoiseBits(ct)
	est := k.pr.NoiseBound(ct)
	t.Logf("%-14s level %d: noise measured 2^%.1f, estimated 2^%.1f (+%.1f), Q = 2^%.1f", what, ct.Level(), measured, est, est-measured, logQ)
	// At m = 17 (16 coefficients, sums of 16 terms) the maximum is far from
	// its Gaussian value; only the bound itself is checked there.
	if measured > est || (k.pr.N() >= 256 && maxGap >= 0 && est > measured+maxGap) {
		t.Errorf("%s: estimate 2^%.1f vs measured 2^%.1f (want measured <= estimate <= measured + %.0f bits)", what, est, measured, maxGap)
	}
}

var evalSets = []ParamsLiteral{ToyM17Literal, ToyM257Literal, toyM257TwoAux}

// TestMulRelin: products are relinearized to degree 1 and decrypt to the
// slot-wise GF(2^d) product; a chain of products exercises the noise
// policy's modulus switching; the estimate tracks the measured noise.
func TestMulRelin(t *testing.T) {
	for _, lit := range evalSets {
		k := newTestKit(t, lit)
		t.Run(fmt.Sprintf("m=%d", k.pr.M()), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(k.pr.M())))
			f := k.enc.Field()
			x := randomSlots(rng, k.enc)
			want := append([]uint64(nil), x...)
			acc := k.encrypt(t, x)
			k.checkNoise(t, "fresh", acc)
			for step := 1; ; step++ {
				y := randomSlots(rng, k.enc)
				cy := k.encrypt(t, y)
				prod := k.pr.NewCiphertext()
				err := k.ev.Mul(acc, cy, prod, k.sc)
				if errors.Is(err, ErrNoiseBudget) {
					if step < 3 {
						t.Fatalf("noise budget exhausted after %d products", step-1)
					}
					t.Logf("budget exhausted after %d products", step-1)
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if prod.Degree() != 1 {
					t.Fatalf("product has degree %d", prod.Degree())
				}
				for j := range want {
					want[j] = f.Mul(want[j], y[j])
				}
				equalSlots(t, fmt.Sprintf("product %d", step), k.decrypt(prod), want)
				k.checkNoise(t, fmt.Sprintf("product %d", step), prod)
				acc = prod
			}
			// Squaring (a == b) takes the square's noise rule.
			sq := k.pr.NewCiphertext()
			cx := k.encrypt(t, x)
			if err := k.ev.Mul(cx, cx, sq, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range x {
				want[j] = f.Mul(x[j], x[j])
			}
			equalSlots(t, "square", k.decrypt(sq), want)
			k.checkNoise(t, "square", sq)
			// Out aliasing an operand.
			cy := k.encrypt(t, x)
			if err := k.ev.Mul(cx, cy, cx, k.sc); err != nil {
				t.Fatal(err)
			}
			equalSlots(t, "aliased", k.decrypt(cx), want)
		})
	}
}

// TestAddLevels: Add switches the higher operand down; AddOne complements bits.
func TestAddLevels(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := randomSlots(rng, k.enc), randomSlots(rng, k.enc)
	cx, cy := k.encrypt(t, x), k.encrypt(t, y)
	if err := k.ev.SwitchToLevel(cy, 2, k.sc); err != nil {
		t.Fatal(err)
	}
	equalSlots(t, "switched", k.decrypt(cy), y)
	k.checkNoise(t, "switched", cy)
	sum := k.pr.NewCiphertext()
	if err := k.ev.Add(cx, cy, sum, k.sc); err != nil {
		t.Fatal(err)
	}
	if sum.Level() != 2 || cx.Level() != k.pr.MaxLevel() {
		t.Fatalf("sum at level %d, operand at %d", sum.Level(), cx.Level())
	}
	want := make([]uint64, len(x))
	for j := range want {
		want[j] = x[j] ^ y[j]
	}
	equalSlots(t, "add", k.decrypt(sum), want)
	k.checkNoise(t, "sum", sum)
	k.ev.AddOne(sum, sum)
	for j := range want {
		want[j] ^= 1
	}
	equalSlots(t, "add one", k.decrypt(sum), want)
	// Decryption at every level, down to 0.
	for sum.Level() > 0 {
		if err := k.ev.DropLevel(sum, k.sc); err != nil {
			t.Fatal(err)
		}
		equalSlots(t, fmt.Sprintf("level %d", sum.Level()), k.decrypt(sum), want)
		k.checkNoise(t, fmt.Sprintf("dropped to %d", sum.Level()), sum)
	}
	if err := k.ev.DropLevel(sum, k.sc); err == nil {
		t.Error("DropLevel below 0 succeeded")
	}
}

// TestRotateFrobenius: rotations move bits exactly (slot j receives slot
// j+k) and GF(2^d) values up to the documented Frobenius twist on the
// wrapped slots; Frobenius raises every slot to 2^j.
func TestRotateFrobenius(t *testing.T) {
	for _, lit := range evalSets {
		k := newTestKit(t, lit)
		t.Run(fmt.Sprintf("m=%d", k.pr.M()), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(k.pr.M())))
			l := k.enc.Slots()
			f := k.enc.Field()
			bits := make([]uint64, l)
			for j := range bits {
				bits[j] = rng.Uint64() & 1
			}
			cb := k.encrypt(t, bits)
			vals := randomSlots(rng, k.enc)
			cv := k.encrypt(t, vals)
			out := k.pr.NewCiphertext()
			for _, rot := range []int{1, -1, 3} {
				if err := k.ev.Rotate(cb, rot, out, k.sc); err != nil {
					t.Fatal(err)
				}
				want := make([]uint64, l)
				for j := range want {
					want[j] = bits[((j+rot)%l+l)%l]
				}
				equalSlots(t, fmt.Sprintf("rotate bits by %d", rot), k.decrypt(out), want)
				k.checkNoise(t, fmt.Sprintf("rotate %d", rot), out)
			}
			// GF(2^d) values, rotation by one: slot j <- slot j+1, the
			// wrapped slot raised to 2^r.
			if err := k.ev.Rotate(cv, 1, out, k.sc); err != nil {
				t.Fatal(err)
			}
			want := make([]uint64, l)
			for j := range want {
				want[j] = vals[(j+1)%l]
			}
			want[l-1] = f.Frobenius(vals[0], k.enc.RotationFrobenius())
			equalSlots(t, "rotate values", k.decrypt(out), want)
			for _, fj := range []int{1, 3} {
				if err := k.ev.Frobenius(cv, fj, out, k.sc); err != nil {
					t.Fatal(err)
				}
				for j := range want {
					want[j] = f.Frobenius(vals[j], fj)
				}
				equalSlots(t, fmt.Sprintf("frobenius %d", fj), k.decrypt(out), want)
			}
			// In place, after a product (lower level).
			prod := k.pr.NewCiphertext()
			if err := k.ev.Mul(cv, cv, prod, k.sc); err != nil {
				t.Fatal(err)
			}
			if err := k.ev.Frobenius(prod, 1, prod, k.sc); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] = f.Frobenius(vals[j], 2) // (v^2)^2
			}
			equalSlots(t, "frobenius of square", k.decrypt(prod), want)
			bare := NewEvaluator(k.pr, NewEvaluationKeySet(k.ev.keys.Relin))
			if err := bare.Rotate(cv, 1, out, k.sc); err == nil || !strings.Contains(err.Error(), "no key") {
				t.Errorf("rotation without a key: err = %v", err)
			}
		})
	}
}

// TestDepthCheck: the depth check agrees with running the policy.
func TestDepthCheck(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	avail := k.pr.DepthAvailable()
	if avail < 2 {
		t.Fatalf("DepthAvailable = %d", avail)
	}
	if err := k.pr.CheckDepth(avail); err != nil {
		t.Errorf("CheckDepth(%d): %v", avail, err)
	}
	err := k.pr.CheckDepth(avail + 1)
	want := fmt.Sprintf("AND-depth %d needed, %d available", avail+1, avail)
	if !errors.Is(err, ErrDepth) || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckDepth(%d) = %v, want %q", avail+1, err, want)
	}
	// A balanced product tree of depth avail over 2^avail fresh encryptions
	// must succeed (every level multiplies two ciphertexts of equal depth).
	rng := rand.New(rand.NewPCG(9, 9))
	f := k.enc.Field()
	type node struct {
		ct   *Ciphertext
		want []uint64
	}
	var layer []node
	for range 1 << avail {
		v := randomSlots(rng, k.enc)
		layer = append(layer, node{k.encrypt(t, v), v})
	}
	for d := 1; len(layer) > 1; d++ {
		var next []node
		for i := 0; i < len(layer); i += 2 {
			out := k.pr.NewCiphertext()
			if err := k.ev.Mul(layer[i].ct, layer[i+1].ct, out, k.sc); err != nil {
				t.Fatalf("depth %d of %d: %v", d, avail, err)
			}
			w := make([]uint64, len(layer[i].want))
			for j := range w {
				w[j] = f.Mul(layer[i].want[j], layer[i+1].want[j])
			}
			next = append(next, node{out, w})
		}
		layer = next
		for i, n := range layer {
			k.checkNoise(t, fmt.Sprintf("tree depth %d/%d", d, i), n.ct)
		}
		equalSlots(t, fmt.Sprintf("tree depth %d", d), k.decrypt(layer[0].ct), layer[0].want)
	}
	t.Logf("m=%d: depth available %d, final level %d", k.pr.M(), avail, layer[0].ct.Level())
}

// TestCarryChain: a ripple carry c' = (a+c)(b+c) + c over 63 bits (adder64's
// shape) at m = 257, where both operands of every product share the carry:
// the worst case of the noise estimate (see noise.go). Every step must
// decrypt and the estimate must stay within the gap.
func TestCarryChain(t *testing.T) {
	k := newTestKit(t, ToyM257DeepLiteral)
	rng := rand.New(rand.NewPCG(31, 32))
	cv := rng.Uint64() & 0xffff
	c := k.encryptBits(t, cv)
	x, y, p := k.pr.NewCiphertext(), k.pr.NewCiphertext(), k.pr.NewCiphertext()
	for i := range 63 {
		av, bv := rng.Uint64()&0xffff, rng.Uint64()&0xffff
		a, b := k.encryptBits(t, av), k.encryptBits(t, bv)
		if err := errors.Join(k.ev.Add(a, c, x, k.sc), k.ev.Add(b, c, y, k.sc), k.ev.Mul(x, y, p, k.sc), k.ev.Add(p, c, c, k.sc)); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		cv = (av^cv)&(bv^cv) ^ cv
		if got := k.decryptBits(t, c); got != cv {
			t.Fatalf("step %d: carry %016b, want %016b", i, got, cv)
		}
		if i%8 == 7 || i == 62 {
			k.checkNoise(t, fmt.Sprintf("carry %d", i), c)
		}
	}
}

// TestToyDeepDepth: the deep Toy set holds the executor tests' circuits.
func TestToyDeepDepth(t *testing.T) {
	pr := testParams(t, ToyM257DeepLiteral)
	if d := pr.DepthAvailable(); d < 64 {
		t.Errorf("ToyM257Deep: depth available %d, want >= 64", d)
	}
}

// TestSquares: repeated squaring (x, x², x⁴, ...) has heavy-tailed noise
// (E|x|^(2k) = k!·(E|x|²)^k); the estimate must still bound it.
func TestSquares(t *testing.T) {
	k := newTestKit(t, ToyM257Literal)
	rng := rand.New(rand.NewPCG(10, 10))
	x := randomSlots(rng, k.enc)
	ct := k.encrypt(t, x)
	f := k.enc.Field()
	for i := 1; i <= 4; i++ {
		if err := k.ev.Mul(ct, ct, ct, k.sc); err != nil {
			t.Fatalf("square %d: %v", i, err)
		}
		for j := range x {
			x[j] = f.Mul(x[j], x[j])
		}
		equalSlots(t, fmt.Sprintf("square %d", i), k.decrypt(ct), x)
		k.checkNoise(t, fmt.Sprintf("square %d", i), ct)
	}
}
