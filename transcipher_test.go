package hcc

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
)

// toyAES is the toy set whose slots (GF(2^16)) contain GF(2^8): 16 slots.
var toyAES = Target{Engine: "bgv", Params: "ToyM257Deep", Insecure: true}

// testRelu is a ReLU on the 16 signed bytes of a record (AND-depth 1).
const testRelu = `
circuit relu(x: s8[16]) -> (y: s8[16]) {
	for i in 0..16 { y[i] = x[i] < 0 ? 0 : x[i]; }
}
`

// testWide takes the record as one 128-bit number (byte 0 most
// significant) and returns its top and bottom bytes and its parity.
const testWide = `
circuit wide(x: u128) -> (top: u8, bottom: u8, odd: bit) {
	top = x[127:120];
	bottom = x[7:0];
	odd = x[0];
}
`

var (
	aesKeysOnce sync.Once
	aesCK       *ClientKey
	aesSK       *ServerKey
	aesKeysErr  error
)

// transcipherKeys is one toy key pair with the transciphering keys.
func transcipherKeys(t testing.TB) (*ClientKey, *ServerKey) {
	t.Helper()
	aesKeysOnce.Do(func() { aesCK, aesSK, aesKeysErr = GenerateKeysForWith(toyAES, KeyOptions{Transcipher: true}) })
	if aesKeysErr != nil {
		t.Fatal(aesKeysErr)
	}
	return aesCK, aesSK
}

// ctr is the client's side: standard AES-128-CTR (crypto/cipher).
func ctr(t testing.TB, key, iv [16]byte, msg []byte) []byte {
	t.Helper()
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(msg))
	cipher.NewCTR(blk, iv[:]).XORKeyStream(out, msg)
	return out
}

// TestTranscipherRecords: AES-CTR data of 37 records (3 packs of 16
// slots, a partial last record, a counter that carries into the high 64
// bits) transciphers to inputs of the record program, which decrypt to
// the plaintext; through a file (the AES key too) and back; the ReLU
// program then runs on every record and matches its plaintext evaluation.
func TestTranscipherRecords(t *testing.T) {
	ck, sk := transcipherKeys(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var key, iv [16]byte
	for i := range key {
		key[i] = byte(rng.Uint32())
		iv[i] = 0xff // iv + 1 wraps the low 64 bits
	}
	msg := make([]byte, 16*36+7)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	upload := ctr(t, key, iv, msg)
	rec, err := RecordProgram(toyAES)
	if err != nil {
		t.Fatal(err)
	}
	relu := mustCompile(t, HDL(testRelu, ""), toyAES)
	ak, err := ck.EncryptAESKeyFor(key, relu) // serves the record program too (shallower)
	if err != nil {
		t.Fatal(err)
	}
	data, err := ak.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if ak, err = UnmarshalAESKey(data); err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalCiphertexts(data); err == nil || !strings.Contains(err.Error(), "encrypted AES key") {
		t.Fatalf("an AES key read as ciphertexts: %v", err)
	}
	cts, st, err := Transcipher(context.Background(), sk, ak, iv, upload, rec, TranscipherOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 37 || st.Evaluations != 3 || cts.Instances() != 37 || cts.Packs() != 3 || st.Level <= st.NeedLevel {
		t.Fatalf("stats %+v, %d instances in %d packs", st, cts.Instances(), cts.Packs())
	}
	enc, err := cts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if cts, err = UnmarshalCiphertexts(enc); err != nil {
		t.Fatal(err)
	}
	got, err := ck.DecryptRecords(rec, cts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 16*37 || !bytes.Equal(got[:len(msg)], msg) {
		t.Fatalf("transciphered records differ from the plaintext")
	}
	// the bytes past the data: keystream of the last counter
	blk, _ := aes.NewCipher(key[:])
	var ks [16]byte
	last := counterAt(iv, 36)
	blk.Encrypt(ks[:], last[:])
	if !bytes.Equal(got[len(msg):], ks[7:]) {
		t.Fatalf("tail %x, want keystream %x", got[len(msg):], ks[7:])
	}

	// a circuit on every record (whole records only)
	in, _, err := Transcipher(context.Background(), sk, ak, iv, upload[:16*20], relu, TranscipherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), relu, sk, in, EvalOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ck.Decrypt(relu, out)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := ck.DecryptRecords(relu, out)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 20 {
		x := make([]*big.Int, 16)
		for i := range x {
			x[i] = big.NewInt(int64(int8(msg[16*r+i])))
		}
		want, err := relu.EvalPlain(Values{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 16 {
			if res[r]["y"][i].Cmp(want["y"][i]) != 0 {
				t.Fatalf("record %d byte %d: relu %v, want %v", r, i, res[r]["y"][i], want["y"][i])
			}
			if w := byte(max(int8(msg[16*r+i]), 0)); ys[16*r+i] != w {
				t.Fatalf("record %d byte %d: DecryptRecords %d, want %d", r, i, ys[16*r+i], w)
			}
		}
	}
}

// TestTranscipherWideInput: a 128-bit input reads the record big-endian
// (byte 0 most significant), like --in x=0x0011...
func TestTranscipherWideInput(t *testing.T) {
	ck, sk := transcipherKeys(t)
	key := [16]byte{0: 1, 15: 2}
	iv := [16]byte{0: 9}
	msg := make([]byte, 32)
	for i := range msg {
		msg[i] = byte(3*i + 1)
	}
	p := mustCompile(t, HDL(testWide, ""), toyAES)
	ak, err := ck.EncryptAESKeyFor(key, p)
	if err != nil {
		t.Fatal(err)
	}
	in, _, err := Transcipher(context.Background(), sk, ak, iv, ctr(t, key, iv, msg), p, TranscipherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p, sk, in, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		x := new(big.Int).SetBytes(msg[16*r : 16*r+16])
		want, err := p.EvalPlain(Values{"x": {x}})
		if err != nil {
			t.Fatal(err)
		}
		if res[r]["top"][0].Int64() != int64(msg[16*r]) || res[r]["bottom"][0].Int64() != int64(msg[16*r+15]) ||
			res[r]["odd"][0].Cmp(want["odd"][0]) != 0 {
			t.Fatalf("record %d: %v, want top %d bottom %d (%v)", r, res[r], msg[16*r], msg[16*r+15], want)
		}
	}
}

// TestTranscipherRefusals: every misuse is a clear error before work.
func TestTranscipherRefusals(t *testing.T) {
	ck, sk := transcipherKeys(t)
	ak, err := ck.EncryptAESKey([16]byte{}) // the top level: never used for a run here
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	iv := [16]byte{}
	check := func(err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one containing %q", err, want)
		}
	}
	// a program whose input is not a record
	add := mustCompile(t, HDL(testAdder, ""), toyAES)
	_, _, err = Transcipher(ctx, sk, ak, iv, make([]byte, 16), add, TranscipherOptions{})
	check(err, "records need exactly one input of 16 bytes")
	// keys without the Galois keys
	rec, err := RecordProgram(toyAES)
	if err != nil {
		t.Fatal(err)
	}
	ck2, sk2 := keysFor(t, rec)
	ak2, err := ck2.EncryptAESKey([16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Transcipher(ctx, sk2, ak2, iv, make([]byte, 16), rec, TranscipherOptions{})
	check(err, "--transcipher")
	// an AES key of another key pair
	_, _, err = Transcipher(ctx, sk, ak2, iv, make([]byte, 16), rec, TranscipherOptions{})
	check(err, "wrong key")
	// no data
	_, _, err = Transcipher(ctx, sk, ak, iv, nil, rec, TranscipherOptions{})
	check(err, "no data")
	// a set without GF(2^8) in its slots
	_, _, err = GenerateKeysForWith(Target{Engine: "bgv", Params: "M8191"}, KeyOptions{Transcipher: true})
	check(err, "does not contain AES's GF(2^8)")
	// damaged AES key file
	data, _ := ak.MarshalBinary()
	data[len(data)/2] ^= 1
	_, err = UnmarshalAESKey(data)
	check(err, "checksum")
}

// TestTranscipherFHEW: on FHEW the AES circuit runs per record with the
// counter and data as constants. The run (about 15000 bootstraps per
// record at ToySigned, ~20 s on 2 cores) is opt-in: HCC_FHEW_TRANSCIPHER=1;
// the key file and the refusals always run.
func TestTranscipherFHEW(t *testing.T) {
	ck, sk, err := GenerateKeysForWith(toyFHEW, KeyOptions{Transcipher: true})
	if err != nil {
		t.Fatal(err)
	}
	key := [16]byte{0: 0x2b, 1: 0x7e, 15: 0x3c}
	iv := [16]byte{15: 0xff}
	ak, err := ck.EncryptAESKey(key)
	if err != nil {
		t.Fatal(err)
	}
	data, err := ak.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if ak, err = UnmarshalAESKey(data); err != nil {
		t.Fatal(err)
	}
	relu := mustCompile(t, HDL(testRelu, ""), toyFHEW)
	add := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	if _, _, err := Transcipher(context.Background(), sk, ak, iv, make([]byte, 16), add, TranscipherOptions{}); err == nil ||
		!strings.Contains(err.Error(), "records need exactly one input") {
		t.Fatalf("adder inputs accepted: %v", err)
	}
	if os.Getenv("HCC_FHEW_TRANSCIPHER") == "" {
		t.Skip("the FHEW transcipher run takes ~20 s per record: HCC_FHEW_TRANSCIPHER=1 runs it")
	}
	msg := []byte{0x80, 5, 0xff, 100, 0, 0x7f, 1, 0xfe, 0x90} // one partial record
	in, st, err := Transcipher(context.Background(), sk, ak, iv, ctr(t, key, iv, msg), relu, TranscipherOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 record in %v", st.Wall)
	got, err := ck.DecryptRecords(relu, in)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := aes.NewCipher(key[:])
	var ks [16]byte
	blk.Encrypt(ks[:], iv[:])
	if !bytes.Equal(got[:len(msg)], msg) || !bytes.Equal(got[len(msg):], ks[len(msg):]) {
		t.Fatalf("record %x, want %x then keystream %x", got, msg, ks[len(msg):])
	}
	out, _, err := Eval(context.Background(), relu, sk, in, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ys, err := ck.DecryptRecords(relu, out)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range got {
		if want := byte(max(int8(b), 0)); ys[i] != want {
			t.Fatalf("byte %d: relu(%d) = %d, want %d", i, int8(b), int8(ys[i]), int8(want))
		}
	}
}

func TestCounterAt(t *testing.T) {
	iv := [16]byte{7: 1, 8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xfe}
	if got := counterAt(iv, 3); got != [16]byte{7: 2, 15: 1} {
		t.Fatalf("counterAt = %x", got)
	}
	var all [16]byte
	for i := range all {
		all[i] = 0xff
	}
	if got := counterAt(all, 1); got != [16]byte{} {
		t.Fatalf("wrap: %x", got)
	}
}

// FuzzUnmarshalAESKey: nothing panics, and whatever is accepted re-encodes
// to the same bytes (seeds: a BGV and an FHEW toy AES key).
func FuzzUnmarshalAESKey(f *testing.F) {
	ck, _ := transcipherKeys(f)
	fk, _, err := GenerateKeysForWith(toyFHEW, KeyOptions{Transcipher: true})
	if err != nil {
		f.Fatal(err)
	}
	var seeds [][]byte
	for _, k := range []*ClientKey{ck, fk} {
		ak, err := k.EncryptAESKey([16]byte{1, 2, 3})
		if err != nil {
			f.Fatal(err)
		}
		data, err := ak.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	addAll(f, seeds)
	f.Fuzz(func(t *testing.T, data []byte) {
		both(data, func(data []byte) {
			if a, err := UnmarshalAESKey(data); err == nil {
				reencodes(t, data, a)
			}
		})
	})
}
