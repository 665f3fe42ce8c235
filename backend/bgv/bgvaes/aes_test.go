package bgvaes

import (
	"crypto/aes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// kit is a key set for AES on one parameter set: secret key, symmetric
// encryptor, decryptor, and an evaluator with the relinearization key and
// the seven Frobenius keys.
type kit struct {
	pr  *bgv.Params
	enc *bgv.Encoder
	a   *AES
	sk  *bgv.SecretKey
	en  *bgv.Encryptor
	de  *bgv.Decryptor
	ev  *bgv.Evaluator
}

func newKit(t testing.TB, lit bgv.ParamsLiteral, seed byte) *kit {
	t.Helper()
	lit.AllowInsecure = true // Toy sets: tests only
	pr, err := bgv.NewParams(lit)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := bgv.NewEncoder(pr)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(pr, enc)
	if err != nil {
		t.Fatal(err)
	}
	smp := bgv.NewSamplerFromSeed([32]byte{seed})
	kg := bgv.NewKeyGenerator(pr, smp)
	sk := kg.GenSecretKey()
	ek := bgv.NewEvaluationKeySet(kg.GenRelinKey(sk))
	if err := kg.AddAutoKeys(sk, ek, a.GaloisElements()); err != nil {
		t.Fatal(err)
	}
	return &kit{pr: pr, enc: enc, a: a, sk: sk, en: bgv.NewSymmetricEncryptor(pr, sk, smp),
		de: bgv.NewDecryptor(pr, sk), ev: bgv.NewEvaluator(pr, ek)}
}

// encrypt16 encrypts 16 plaintexts at level t.
func (k *kit) encrypt16(t testing.TB, pts [16]bgv.BinaryPoly, lvl int) [16]*bgv.Ciphertext {
	t.Helper()
	var out [16]*bgv.Ciphertext
	for i, pt := range pts {
		ct, err := k.en.EncryptAtLevel(pt, lvl)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ct
	}
	return out
}

// decode decrypts a state and returns its first n blocks; it also checks
// that the estimate bounds the measured noise of every byte.
func (k *kit) decode(t testing.TB, cts [16]*bgv.Ciphertext, n int) [][16]byte {
	t.Helper()
	var pts [16]bgv.BinaryPoly
	for i, ct := range cts {
		pts[i] = k.de.Decrypt(ct)
		if measured, _ := k.de.NoiseBits(ct); measured > k.pr.NoiseBound(ct) {
			t.Errorf("byte %d: measured noise 2^%.1f above the estimate 2^%.1f", i, measured, k.pr.NoiseBound(ct))
		}
	}
	out, err := k.a.DecodeBlocks(pts, n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randomBlocks(rng *rand.Rand, n int) [][16]byte {
	out := make([][16]byte, n)
	for i := range out {
		for j := range out[i] {
			out[i][j] = byte(rng.Uint32())
		}
	}
	return out
}

// TestEncryptedAES: byte-sliced AES-128 on ToyM257Deep (16 slots of
// GF(2^16), 65 primes): encryption with homomorphic key expansion and with
// supplied round keys, decryption with the backwards key schedule and with
// supplied round keys, every block against crypto/aes, with and without
// recycling the inputs during the run; inputs at the
// levels InputLevel picks; the run's output levels are the plan's.
func TestEncryptedAES(t *testing.T) {
	k := newKit(t, bgv.ToyM257DeepLiteral, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	var key [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	blk, _ := aes.NewCipher(key[:])
	n := k.a.Blocks() - 3 // a partly filled evaluation
	blocks := randomBlocks(rng, n)
	ev, err := k.a.NewEvaluator(k.ev, 2)
	if err != nil {
		t.Fatal(err)
	}
	rkPts, err := k.a.EncodeRoundKeys(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, consume := range []bool{false, true} {
		// With consume, the inputs are recycled during the run: a freed value
		// still in use would corrupt the results.
		ev.SetConsumeInputs(consume)
		for _, dir := range []Direction{Encrypt, Decrypt} {
			for _, expand := range []bool{true, false} {
				lvl, plan, err := k.a.InputLevel(dir, expand)
				if err != nil {
					t.Fatal(err)
				}
				pts, err := k.a.EncodeBlocks(blocks)
				if err != nil {
					t.Fatal(err)
				}
				data := k.encrypt16(t, pts, lvl)
				var out [16]*bgv.Ciphertext
				var b *Budget
				switch {
				case expand:
					kk := key
					if dir == Decrypt {
						kk = ExpandKey(key)[10]
					}
					kp, err := k.a.EncodeKey(kk)
					if err != nil {
						t.Fatal(err)
					}
					kc := k.encrypt16(t, kp, lvl)
					if dir == Encrypt {
						out, b, err = ev.Encrypt(data, kc)
					} else {
						out, b, err = ev.Decrypt(data, kc)
					}
					if err != nil {
						t.Fatal(err)
					}
				default:
					var rk [11][16]*bgv.Ciphertext
					for r := range rk {
						rk[r] = k.encrypt16(t, rkPts[r], lvl)
					}
					if dir == Encrypt {
						out, b, err = ev.EncryptRoundKeys(data, rk)
					} else {
						out, b, err = ev.DecryptRoundKeys(data, rk)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				t.Logf("%v", b)
				if b.Rounds != plan.Rounds || b.OutputLevel != plan.OutputLevel {
					t.Errorf("%v expand=%v: run budget %v, InputLevel's %v", dir, expand, b, plan)
				}
				for i, ct := range out {
					if ct.Level() < b.OutputLevel {
						t.Errorf("byte %d at level %d, plan says >= %d", i, ct.Level(), b.OutputLevel)
					}
				}
				got := k.decode(t, out, n)
				for i, pb := range blocks {
					var want [16]byte
					if dir == Encrypt {
						blk.Encrypt(want[:], pb[:])
					} else {
						blk.Decrypt(want[:], pb[:])
					}
					if got[i] != want {
						t.Fatalf("%v expand=%v consume=%v: block %d = %x, want %x", dir, expand, consume, i, got[i], want)
					}
				}
			}
		}
	}
}

// TestRefuseShortChain: on ToyM257 (7 primes) the plan refuses before any
// ciphertext work, with the round and ErrNoiseBudget in the error.
func TestRefuseShortChain(t *testing.T) {
	k := newKit(t, bgv.ToyM257Literal, 4)
	_, _, err := k.a.InputLevel(Encrypt, true)
	if err == nil || !errors.Is(err, bgv.ErrNoiseBudget) || !strings.Contains(err.Error(), "ToyM257") {
		t.Fatalf("InputLevel on ToyM257: %v", err)
	}
	pts, _ := k.a.EncodeBlocks(nil)
	data := k.encrypt16(t, pts, k.pr.MaxLevel())
	ev, err := k.a.NewEvaluator(k.ev, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ev.Encrypt(data, data)
	if err == nil || !errors.Is(err, bgv.ErrNoiseBudget) || !strings.Contains(err.Error(), "round") {
		t.Fatalf("Encrypt on ToyM257: %v", err)
	}
	t.Log(err)
	if _, err := k.a.NewEvaluator(bgv.NewEvaluator(k.pr, bgv.NewEvaluationKeySet(nil)), 1); err == nil || !strings.Contains(err.Error(), "relinearization") {
		t.Fatalf("NewEvaluator without keys: %v", err)
	}
	kg := bgv.NewKeyGenerator(k.pr, bgv.NewSamplerFromSeed([32]byte{1}))
	if _, err := k.a.NewEvaluator(bgv.NewEvaluator(k.pr, bgv.NewEvaluationKeySet(kg.GenRelinKey(k.sk))), 1); err == nil || !strings.Contains(err.Error(), "κ_2") {
		t.Fatalf("NewEvaluator without Frobenius keys: %v", err)
	}
	data[3] = nil
	if _, _, err := ev.Encrypt(data, data); err == nil {
		t.Fatal("no error for a missing ciphertext")
	}
	if _, err := k.a.EncodeBlocks(make([][16]byte, k.a.Blocks()+1)); err == nil {
		t.Fatal("no error for too many blocks")
	}
}

// BenchmarkAESToy times byte-sliced AES-128 with key expansion on
// ToyM257Deep (16 blocks, 2 workers): a quick regression figure for the
// program and the hoisted maps (the M65537 figures are in m65537_test.go).
func BenchmarkAESToy(b *testing.B) {
	k := newKit(b, bgv.ToyM257DeepLiteral, 8)
	rng := rand.New(rand.NewPCG(9, 9))
	lvl, _, err := k.a.InputLevel(Encrypt, true)
	if err != nil {
		b.Fatal(err)
	}
	pts, err := k.a.EncodeBlocks(randomBlocks(rng, k.a.Blocks()))
	if err != nil {
		b.Fatal(err)
	}
	data, key := k.encrypt16(b, pts, lvl), k.encrypt16(b, pts, lvl)
	ev, err := k.a.NewEvaluator(k.ev, 2)
	if err != nil {
		b.Fatal(err)
	}
	if err := k.a.Prepare(Encrypt); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := ev.Encrypt(data, key); err != nil {
			b.Fatal(err)
		}
	}
}
