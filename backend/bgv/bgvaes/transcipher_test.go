package bgvaes

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// ctrEncrypt is the client's side: crypto/cipher's standard CTR mode.
func ctrEncrypt(t testing.TB, key, iv [16]byte, msg []byte) []byte {
	t.Helper()
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(msg))
	cipher.NewCTR(blk, iv[:]).XORKeyStream(out, msg)
	return out
}

// TestCTRBlocks: the counter blocks wrap mod 2^128 like crypto/cipher's
// (the keystream of an all-zero message is AES of the counters).
func TestCTRBlocks(t *testing.T) {
	var key, iv [16]byte
	for i := range iv {
		iv[i] = 0xff
	}
	iv[15] = 0xfe // two blocks before the wrap
	ks := ctrEncrypt(t, key, iv, make([]byte, 16*5))
	blk, _ := aes.NewCipher(key[:])
	for i, c := range ctrBlocks(iv, 0, 5) {
		var want [16]byte
		blk.Encrypt(want[:], c[:])
		if !bytes.Equal(ks[16*i:16*i+16], want[:]) {
			t.Fatalf("block %d: counter %x gives a keystream other than crypto/cipher's", i, c)
		}
	}
	if c := ctrBlocks(iv, 3, 1)[0]; c != [16]byte{0: 0, 15: 1} {
		t.Fatalf("iv+3 = %x", c)
	}
}

// TestPlainTranscipher: the program on plaintext K-vectors recovers the
// data bytes and bits of an AES-CTR message (several evaluations, a
// partial last block, a counter that wraps).
func TestPlainTranscipher(t *testing.T) {
	k := slotFields(t)[1] // GF(2^16): 16 slots at m = 257
	f, _ := NewField(k)
	p, err := newProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	a := &AES{f: f, p: p}
	rng := rand.New(rand.NewPCG(3, 4))
	var key, iv [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	for i := range iv {
		iv[i] = 0xff
	}
	msg := make([]byte, 16*20+9)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	ct := ctrEncrypt(t, key, iv, msg)
	const slots = 8
	e := &engine[[]uint64]{ars: []arith[[]uint64]{&plainArith{f: f, k: k}}}
	kv := make([][16]byte, slots)
	for i := range kv {
		kv[i] = key
	}
	var got []byte
	for first := 0; first*16 < len(ct); first += slots {
		n := min(slots, (len(ct)+15)/16-first)
		data := make([][16]byte, slots)
		for b := 0; b < n; b++ {
			copy(data[b][:], ct[16*(first+b):min(len(ct), 16*(first+b+1))])
		}
		ctr := ctrBlocks(iv, first, n)
		ctr = append(ctr, make([][16]byte, slots-n)...)
		cs, _ := a.slotConstsN(ctr, slots)
		ds, _ := a.slotConstsN(data, slots)
		bits, err := transcipher(e, p, cs, ds, expandingKeys(e, p, sliceBlocks(f, kv)), true)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < n; b++ {
			var rec [16]byte
			for i := range 128 {
				v := bits[i][b]
				if v > 1 {
					t.Fatalf("record %d bit %d: slot value %#x is not a bit", first+b, i, v)
				}
				rec[i/8] |= byte(v) << uint(i%8)
			}
			got = append(got, rec[:]...)
		}
	}
	if !bytes.Equal(got[:len(msg)], msg) {
		t.Fatalf("transciphered bytes differ from the message")
	}
}

// TestTranscipherToy: encrypted transciphering on ToyM257Deep: an AES-CTR
// message of 41 records (3 evaluations of 16 slots, 5 bytes in the last
// record) becomes BGV bit ciphertexts that decrypt to the message; the
// byte form too, for one batch.
func TestTranscipherToy(t *testing.T) {
	k := newKit(t, bgv.ToyM257DeepLiteral, 5)
	rng := rand.New(rand.NewPCG(5, 6))
	var key, iv [16]byte
	copy(key[:], randomBlocks(rng, 1)[0][:])
	copy(iv[:], randomBlocks(rng, 1)[0][:])
	msg := make([]byte, 16*40+5)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	ct := ctrEncrypt(t, key, iv, msg)
	kp, err := k.a.EncodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	kc := k.encrypt16(t, kp, 24) // low enough to keep the test fast, with levels left
	ev, err := k.a.NewEvaluator(k.ev, 2)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := ev.TranscipherCTR(kc, iv, ct, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) != 3 {
		t.Fatalf("%d batches, want 3", len(batches))
	}
	var got []byte
	for _, bt := range batches {
		t.Logf("records %d-%d: %v; bits at level %d", bt.First, bt.First+bt.Records-1, bt.Budget, bt.Bits[0].Level())
		pts := make([]bgv.BinaryPoly, len(bt.Bits))
		for i, c := range bt.Bits {
			pts[i] = k.de.Decrypt(c)
		}
		recs, err := k.a.DecodeRecords(pts, bt.Records)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got = append(got, r[:]...)
		}
	}
	if !bytes.Equal(got[:len(msg)], msg) {
		t.Fatal("transciphered bits differ from the message")
	}
	bytesOut, err := ev.TranscipherCTR(kc, iv, ct[:100], false)
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]bgv.BinaryPoly, 16)
	for i, c := range bytesOut[0].Bytes {
		pts[i] = k.de.Decrypt(c)
	}
	recs, err := k.a.DecodeRecords(pts, bytesOut[0].Records)
	if err != nil {
		t.Fatal(err)
	}
	var flat []byte
	for _, r := range recs {
		flat = append(flat, r[:]...)
	}
	if !bytes.Equal(flat[:100], msg[:100]) {
		t.Fatal("transciphered bytes differ from the message")
	}
	lvl, err := k.a.TranscipherLevel(k.pr.MaxLevel(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("key at the top level: bits come out at level %d", lvl.OutputLevel)
}
