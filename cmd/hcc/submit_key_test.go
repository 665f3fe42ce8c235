package main

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resealedNotKey is a copy of the evaluation key file data with one byte of
// the engine's key encoding flipped and the frame made valid again (key id
// and checksum recomputed): it passes every check of the header-only reader
// and fails decoding.
func resealedNotKey(t *testing.T, data []byte) []byte {
	t.Helper()
	out := append([]byte(nil), data...)
	off := 8 + 2 + 1 // magic, version, kind
	for range 2 {    // engine, parameter set
		off += 2 + int(binary.LittleEndian.Uint16(out[off:]))
	}
	idAt := off
	off += 16
	n := int(binary.LittleEndian.Uint64(out[off:]))
	body := out[off+8 : off+8+n]
	if off+8+n+sha256.Size != len(out) {
		t.Fatalf("unexpected key file layout: body %d bytes at %d of %d", n, off+8, len(out))
	}
	body[n/2] ^= 1
	id := sha256.Sum256(body)
	copy(out[idAt:], id[:16])
	sum := sha256.Sum256(out[:len(out)-sha256.Size])
	copy(out[len(out)-sha256.Size:], sum[:])
	return out
}

// TestSubmitDoesNotDecodeKey (F10): hcc submit learns the key's set from
// its header and decodes the key nowhere (it only uploads it; 877 MB peak
// on STD128_T_CMUX when it decoded it twice). Shown with a key file that
// is well framed but does not decode: eval refuses it, submit gets past the
// key, the program and the input to the connection (here: a missing token
// file, so no server is needed). A secret key and a damaged file are still
// refused before any upload.
func TestSubmitDoesNotDecodeKey(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "mx.hdl")
	if err := os.WriteFile(src, []byte(`circuit mx(a: u4, b: u4) -> (m: u4) { m = a < b ? b : a; }`), 0o644); err != nil {
		t.Fatal(err)
	}
	hcp, keys, in := filepath.Join(dir, "mx.hcp"), filepath.Join(dir, "k"), filepath.Join(dir, "in.ct")
	for _, args := range [][]string{
		{"compile", src, "--backend", "fhew", "--params", "ToySignedCMux", "--insecure", "-o", hcp},
		{"keygen", "--for", hcp, "--insecure", "-o", keys},
		{"encrypt", hcp, "--key", filepath.Join(keys, "secret.key"), "--insecure", "--in", "a=3", "--in", "b=9", "-o", in},
	} {
		if out := runHCC(t, args...); !strings.HasPrefix(out, "exit 0") {
			t.Fatalf("hcc %v:\n%s", args, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(keys, "eval.key"))
	if err != nil {
		t.Fatal(err)
	}
	notKey := filepath.Join(dir, "notkey.key")
	if err := os.WriteFile(notKey, resealedNotKey(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 1
	bad := filepath.Join(dir, "damaged.key")
	if err := os.WriteFile(bad, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-token")
	submit := func(key string) string {
		return runHCC(t, "submit", hcp, in, "--eval-key", key, "-o", filepath.Join(dir, "out.ct"), "--server", "nats://127.0.0.1:1", "--token-file", missing)
	}

	if out := runHCC(t, "eval", hcp, in, "--eval-key", notKey, "-o", filepath.Join(dir, "x.ct")); strings.HasPrefix(out, "exit 0") {
		t.Fatalf("eval decoded the resealed non-key:\n%s", out)
	}
	if out := submit(notKey); strings.HasPrefix(out, "exit 0") || !strings.Contains(out, "no-token") || strings.Contains(out, "notkey.key") {
		t.Errorf("submit with a well-framed key that does not decode: want it past the key to the token file (no decoding), got\n%s", out)
	}
	if out := submit(filepath.Join(keys, "secret.key")); strings.HasPrefix(out, "exit 0") || !strings.Contains(out, "secret (client) key") {
		t.Errorf("submit with the secret key:\n%s", out)
	}
	if out := submit(bad); strings.HasPrefix(out, "exit 0") || !strings.Contains(out, "checksum mismatch") {
		t.Errorf("submit with a damaged key:\n%s", out)
	}
}
