package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc"
)

const (
	tcKey    = "000102030405060708090a0b0c0d0e0f"
	tcIV     = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
	tcSensor = "../../examples/transcipher/sensor.hdl"
)

// ctrFile writes msg AES-128-CTR-encrypted (crypto/cipher, as openssl enc
// -aes-128-ctr -nosalt does) and returns its path.
func ctrFile(t *testing.T, path, keyHex, ivHex string, msg []byte) string {
	t.Helper()
	key, _ := hex.DecodeString(keyHex)
	iv, _ := hex.DecodeString(ivHex)
	blk, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(msg))
	cipher.NewCTR(blk, iv).XORKeyStream(out, msg)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTranscipherWorkflow pins keygen --transcipher -> transcipher
// encrypt-key -> transcipher eval -> decrypt -o (byte-identical to the
// plaintext, a partial last record trimmed by --length) -> eval of the
// sensor circuit on every record -> decrypt (equal to the plaintext
// simulator per record), at ToyM257Deep (insecure, tests only), and the
// errors of each step.
func TestTranscipherWorkflow(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	msg := make([]byte, 16*20+5)
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	ctrFile(t, filepath.Join(dir, "records.aes"), tcKey, tcIV, msg)
	if err := os.WriteFile(filepath.Join(dir, "whole.bin"), msg[:16*20], 0o644); err != nil {
		t.Fatal(err)
	}
	ctrFile(t, filepath.Join(dir, "whole.aes"), tcKey, tcIV, msg[:16*20])

	var flow strings.Builder
	step := func(ok bool, args ...string) string {
		t.Helper()
		line := "$ hcc " + strings.Join(args, " ") + "\n" // before runWorkflow replaces TMP
		got := runWorkflow(t, dir, args...)
		if ok != strings.HasPrefix(got, "exit 0") {
			t.Fatalf("hcc %v: unexpected status:\n%s", args, got)
		}
		flow.WriteString(line + got + "\n")
		return got
	}
	step(true, "keygen", "--backend", "bgv", "--params", "ToyM257Deep", "--insecure", "--transcipher", "-o", "TMP/keys")
	step(true, "keygen", "--backend", "bgv", "--params", "ToyM257Deep", "--insecure", "-o", "TMP/plain")
	step(true, "transcipher", "encrypt-key", "--key", "TMP/keys/secret.key", "--aes-key", tcKey, tcSensor, "-o", "TMP/aeskey.ct")
	step(true, "transcipher", "eval", "--eval-key", "TMP/keys/eval.key", "--aes-key", "TMP/aeskey.ct", "--iv", tcIV, "TMP/records.aes", "-o", "TMP/records.ct")
	step(true, "decrypt", "--key", "TMP/keys/secret.key", "TMP/records.ct", "-o", "TMP/records.out", "--length", "325")
	if got, _ := os.ReadFile(filepath.Join(dir, "records.out")); !bytes.Equal(got, msg) {
		t.Fatalf("decrypted records differ from the plaintext")
	}
	step(true, "transcipher", "eval", "--eval-key", "TMP/keys/eval.key", "--aes-key", "TMP/aeskey.ct", "--iv", tcIV, tcSensor, "TMP/whole.aes", "-o", "TMP/sensor.ct")
	step(true, "decrypt", "--key", "TMP/keys/secret.key", tcSensor, "TMP/sensor.ct", "-o", "TMP/sensor.out")
	if got, _ := os.ReadFile(filepath.Join(dir, "sensor.out")); !bytes.Equal(got, msg[:16*20]) {
		t.Fatalf("decrypted records differ from the plaintext")
	}
	step(true, "eval", "--eval-key", "TMP/keys/eval.key", tcSensor, "TMP/sensor.ct", "-o", "TMP/result.ct")
	got := stdoutOf(step(true, "decrypt", "--key", "TMP/keys/secret.key", tcSensor, "TMP/result.ct"))

	// the plaintext simulator on every record
	p, err := hcc.Compile(hcc.File(tcSensor), hcc.Target{})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for r := range 20 {
		x := make([]*big.Int, 16)
		for i := range x {
			x[i] = big.NewInt(int64(int8(msg[16*r+i])))
		}
		out, err := p.EvalPlain(hcc.Values{"r": x})
		if err != nil {
			t.Fatal(err)
		}
		want.WriteString("# instance " + big.NewInt(int64(r+1)).String() + "\n" + hcc.FormatOutputs(p.Circuit(), out))
	}
	if got != want.String() {
		t.Fatalf("decrypted results differ from the plaintext simulator:\n%s\nwant\n%s", got, want.String())
	}

	// errors
	step(true, "transcipher", "encrypt-key", "--key", "TMP/plain/secret.key", "--aes-key", tcKey, "-o", "TMP/plainaes.ct")
	step(false, "transcipher", "eval", "--eval-key", "TMP/plain/eval.key", "--aes-key", "TMP/plainaes.ct", "--iv", tcIV, "TMP/records.aes", "-o", "TMP/x.ct")
	step(false, "transcipher", "eval", "--eval-key", "TMP/plain/eval.key", "--aes-key", "TMP/aeskey.ct", "--iv", tcIV, "TMP/records.aes", "-o", "TMP/x.ct")
	step(false, "transcipher", "encrypt-key", "--key", "TMP/keys/secret.key", "--aes-key", "0011", "-o", "TMP/x.ct")
	step(false, "transcipher", "eval", "--eval-key", "TMP/keys/eval.key", "--aes-key", "TMP/aeskey.ct", "TMP/records.aes", "-o", "TMP/x.ct")
	step(false, "transcipher", "eval", "--eval-key", "TMP/keys/eval.key", "--aes-key", "TMP/records.ct", "--iv", tcIV, "TMP/records.aes", "-o", "TMP/x.ct")
	step(false, "transcipher", "eval", "--eval-key", "TMP/keys/eval.key", "--aes-key", "TMP/aeskey.ct", "--iv", tcIV, "../../examples/tour.hdl", "TMP/records.aes", "-o", "TMP/x.ct")
	step(false, "transcipher", "decrypt")
	step(false, "decrypt", "--key", "TMP/keys/secret.key", "TMP/records.ct", "-o", "TMP/x.out", "--length", "100")
	step(false, "eval", "--eval-key", "TMP/keys/eval.key", tcSensor, "TMP/records.ct", "-o", "TMP/x.ct")
	checkGolden(t, "transcipher_workflow", flow.String())
}
