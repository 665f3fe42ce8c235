package bgvaes

import (
	"bytes"
	"crypto/aes"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// peakRSS returns the process's peak resident set (VmHWM) as reported by
// Linux, or "" elsewhere.
func peakRSS() string { return rss("VmHWM:") }

// rss returns a memory line of /proc/self/status ("" if unavailable).
func rss(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field) {
			return strings.TrimSpace(strings.TrimPrefix(line, field))
		}
	}
	return ""
}

// m65537Run encrypts 2048 random blocks under a random key at M65537 with
// the key expansion homomorphic and checks every block against crypto/aes.
func m65537Run(t testing.TB, workers int) {
	t0 := time.Now()
	k := newKit(t, bgv.M65537Literal, 9)
	t.Logf("params, encoder, AES constants and keys (relin + %d Frobenius): %v", len(k.a.GaloisElements()), time.Since(t0).Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(11, 12))
	blocks := randomBlocks(rng, k.a.Blocks())
	var key [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	lvl, plan, err := k.a.InputLevel(Encrypt, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan: %v", plan)
	t1 := time.Now()
	pts, err := k.a.EncodeBlocks(blocks)
	if err != nil {
		t.Fatal(err)
	}
	data := k.encrypt16(t, pts, lvl)
	kp, err := k.a.EncodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	kc := k.encrypt16(t, kp, lvl)
	pts, kp = [16]bgv.BinaryPoly{}, [16]bgv.BinaryPoly{}
	k.en = nil // the client's encryption buffers are not part of the server's run
	t.Logf("encode + encrypt data and key at level %d: %v", lvl, time.Since(t1).Round(time.Millisecond))
	ev, err := k.a.NewEvaluator(k.ev, workers)
	if err != nil {
		t.Fatal(err)
	}
	ev.SetConsumeInputs(true)
	if err := k.a.Prepare(Encrypt); err != nil {
		t.Fatal(err)
	}
	debug.FreeOSMemory()
	t.Logf("before the run: RSS %s, peak so far %s", rss("VmRSS:"), rss("VmHWM:"))
	t2 := time.Now()
	out, b, err := ev.Encrypt(data, kc)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(t2)
	t.Logf("AES-128 with key expansion, %d blocks, %d workers: %v (%.1f ms per block); %v", k.a.Blocks(), workers, el.Round(time.Millisecond),
		float64(el.Milliseconds())/float64(k.a.Blocks()), b)
	t.Logf("after the run: RSS %s, peak %s", rss("VmRSS:"), rss("VmHWM:"))
	ev.ReleaseWorkingSet()
	data, kc = [16]*bgv.Ciphertext{}, [16]*bgv.Ciphertext{}
	debug.FreeOSMemory()
	t3 := time.Now()
	sc := k.pr.NewScratch()
	for i, ct := range out {
		pts[i] = bgv.NewBinaryPoly(k.pr.N())
		k.de.DecryptTo(ct, pts[i], sc)
	}
	for _, i := range []int{0, 15} { // the big-integer noise measurement is slow: two bytes
		if measured, _ := k.de.NoiseBits(out[i]); measured > k.pr.NoiseBound(out[i]) {
			t.Errorf("byte %d: measured noise 2^%.1f above the estimate 2^%.1f", i, measured, k.pr.NoiseBound(out[i]))
		}
	}
	got, err := k.a.DecodeBlocks(pts, len(blocks))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := aes.NewCipher(key[:])
	for i, pb := range blocks {
		var want [16]byte
		blk.Encrypt(want[:], pb[:])
		if got[i] != want {
			t.Fatalf("block %d = %x, want %x", i, got[i], want)
		}
	}
	t.Logf("decrypt + check %d blocks against crypto/aes: %v; total %v; peak RSS %s", len(blocks), time.Since(t3).Round(time.Millisecond),
		time.Since(t0).Round(time.Millisecond), peakRSS())
}

// TestAESM65537 is the opt-in full-size run (HCC_BGVAES_M65537=1): 2048
// blocks at M65537 with homomorphic key expansion, every block checked
// against crypto/aes. About a minute or two on 2 cores, ~2 GB.
func TestAESM65537(t *testing.T) {
	if os.Getenv("HCC_BGVAES_M65537") == "" {
		t.Skip("set HCC_BGVAES_M65537=1 for the M65537 run (2048 blocks, minutes, ~2 GB)")
	}
	m65537Run(t, 2)
}

// BenchmarkAESM65537 times the whole run above (keys, encryption of the
// inputs, AES with key expansion, decryption and check); the AES part is
// in the log. Run with -benchtime=1x.
func BenchmarkAESM65537(b *testing.B) {
	for range b.N {
		m65537Run(b, 2)
	}
}

// BenchmarkSboxM65537 times one S-box (inv254 and the fused linear maps of
// a middle round) on one ciphertext at level 11 of M65537.
func BenchmarkSboxM65537(b *testing.B) {
	k := newKit(b, bgv.M65537Literal, 10)
	pts, err := k.a.EncodeBlocks(randomBlocks(rand.New(rand.NewPCG(1, 1)), 8))
	if err != nil {
		b.Fatal(err)
	}
	x, err := k.en.EncryptAtLevel(pts[0], 11)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := k.a.NewEvaluator(k.ev, 1)
	if err != nil {
		b.Fatal(err)
	}
	ar := ev.e.ars[0]
	b.ResetTimer()
	for range b.N {
		v, err := inv254(ar, x, false)
		if err != nil {
			b.Fatal(err)
		}
		outs, err := ar.lin(v, k.a.p.enc)
		if err != nil {
			b.Fatal(err)
		}
		ar.free(v)
		freeAll(ar, outs)
	}
}

// TestDecryptTranscipherM65537 is the opt-in full-size run of the other
// two programs (HCC_BGVAES_M65537=all): decryption of 2048 blocks with the
// key schedule run backwards from the encrypted last round key, and
// AES-128-CTR transciphering of 2048 records (one evaluation, the last
// record 7 bytes) to slot bits with the key at the top level; every block
// and byte checked against crypto/aes and crypto/cipher.
func TestDecryptTranscipherM65537(t *testing.T) {
	if os.Getenv("HCC_BGVAES_M65537") != "all" {
		t.Skip("set HCC_BGVAES_M65537=all for the M65537 decryption and transciphering runs (minutes each)")
	}
	k := newKit(t, bgv.M65537Literal, 13)
	rng := rand.New(rand.NewPCG(13, 14))
	var key, iv [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	copy(iv[:], randomBlocks(rng, 1)[0][:])
	ev, err := k.a.NewEvaluator(k.ev, 2)
	if err != nil {
		t.Fatal(err)
	}
	ev.SetConsumeInputs(true)
	sc := k.pr.NewScratch()
	decryptAll := func(cts []*bgv.Ciphertext) []bgv.BinaryPoly {
		pts := make([]bgv.BinaryPoly, len(cts))
		for i, ct := range cts {
			pts[i] = bgv.NewBinaryPoly(k.pr.N())
			k.de.DecryptTo(ct, pts[i], sc)
		}
		return pts
	}

	blocks := randomBlocks(rng, k.a.Blocks())
	lvl, _, err := k.a.InputLevel(Decrypt, true)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := k.a.EncodeBlocks(blocks)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := k.a.EncodeKey(ExpandKey(key)[10])
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	out, b, err := ev.Decrypt(k.encrypt16(t, pts, lvl), k.encrypt16(t, kp, lvl))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("decryption, backwards key schedule, %d blocks: %v; %v", len(blocks), time.Since(t0).Round(time.Millisecond), b)
	got, err := k.a.DecodeRecords(decryptAll(out[:]), len(blocks))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := aes.NewCipher(key[:])
	for i, pb := range blocks {
		var want [16]byte
		blk.Decrypt(want[:], pb[:])
		if got[i] != want {
			t.Fatalf("decryption: block %d = %x, want %x", i, got[i], want)
		}
	}
	out = [16]*bgv.Ciphertext{}
	ev.ReleaseWorkingSet()
	debug.FreeOSMemory()

	msg := make([]byte, 16*(k.a.Blocks()-1)+7)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	kp, err = k.a.EncodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	batches, err := ev.TranscipherCTR(k.encrypt16(t, kp, k.pr.MaxLevel()), iv, ctrEncrypt(t, key, iv, msg), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("transciphering %d bytes (%d records) to bits: %v; %v; bits at level %d; peak RSS %s", len(msg), batches[0].Records,
		time.Since(t1).Round(time.Millisecond), batches[0].Budget, batches[0].Bits[0].Level(), peakRSS())
	recs, err := k.a.DecodeRecords(decryptAll(batches[0].Bits), batches[0].Records)
	if err != nil {
		t.Fatal(err)
	}
	var flat []byte
	for _, r := range recs {
		flat = append(flat, r[:]...)
	}
	if !bytes.Equal(flat[:len(msg)], msg) {
		t.Fatal("transciphered bits differ from the message")
	}
}
