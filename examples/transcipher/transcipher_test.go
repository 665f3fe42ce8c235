package transcipher

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hcc-fhe/hcc"
)

// TestSensorRecords is run.sh in Go at the toy ring ToyM257Deep (insecure,
// 16 slots): 40 records (3 AES evaluations) encrypted with crypto/cipher's
// AES-128-CTR, transciphered, the sensor circuit run on every record, the
// records and results decrypted and checked against the plaintext and the
// circuit's plaintext evaluation.
func TestSensorRecords(t *testing.T) {
	target := hcc.Target{Engine: "bgv", Params: "ToyM257Deep", Insecure: true}
	prog, err := hcc.Compile(hcc.File("sensor.hdl"), target)
	if err != nil {
		t.Fatal(err)
	}
	// client: keys with the transciphering keys, the AES key under BGV
	ck, sk, err := hcc.GenerateKeysWith(prog, hcc.KeyOptions{Transcipher: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2026, 12))
	var key, iv [16]byte
	for i := range key {
		key[i], iv[i] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	aesKey, err := ck.EncryptAESKeyFor(key, prog)
	if err != nil {
		t.Fatal(err)
	}
	const records = 40
	readings := make([]byte, 16*records)
	for i := range readings {
		readings[i] = byte(int8(rng.IntN(120) - 40)) // -40..79 degrees
	}
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		t.Fatal(err)
	}
	upload := make([]byte, len(readings))
	cipher.NewCTR(blk, iv[:]).XORKeyStream(upload, readings)

	// server: transcipher, then the circuit on every record
	ctx := context.Background()
	in, st, err := hcc.Transcipher(ctx, sk, aesKey, iv, upload, prog, hcc.TranscipherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != records || st.Evaluations != 3 {
		t.Fatalf("%+v", st)
	}
	out, _, err := hcc.Eval(ctx, prog, sk, in, hcc.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// client: the records themselves, then the results
	got, err := ck.DecryptRecords(prog, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readings) {
		t.Fatal("transciphered records differ from the readings")
	}
	res, err := ck.Decrypt(prog, out)
	if err != nil {
		t.Fatal(err)
	}
	alarms := 0
	for r := range records {
		x := make([]*big.Int, 16)
		for i := range x {
			x[i] = big.NewInt(int64(int8(readings[16*r+i])))
		}
		want, err := prog.EvalPlain(hcc.Values{"r": x})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 16 {
			v := int64(int8(readings[16*r+i]))
			relu, alarm := max(v, 0), int64(0)
			if v > 40 {
				alarm = 1
			}
			if want["clipped"][i].Int64() != relu || want["alarm"][i].Int64() != alarm {
				t.Fatalf("plaintext model: reading %d gives %v, %v", v, want["clipped"][i], want["alarm"][i])
			}
			if res[r]["clipped"][i].Int64() != relu || res[r]["alarm"][i].Int64() != alarm {
				t.Fatalf("record %d reading %d (%d): clipped %v alarm %v, want %d %d", r, i, v, res[r]["clipped"][i], res[r]["alarm"][i], relu, alarm)
			}
			alarms += int(alarm)
		}
	}
	t.Logf("%d records, %d alarms, transciphered in %v", records, alarms, st.Wall)
}
