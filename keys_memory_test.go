package hcc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// keyMemorySets are the sets whose server keys the memory tests read: the
// three FHEW key layouts (plain, CMux, circuit bootstrapping) and BGV.
var keyMemorySets = []Target{
	{Engine: "fhew", Params: "ToySigned", Insecure: true},
	{Engine: "fhew", Params: "ToySignedCMux", Insecure: true},
	{Engine: "fhew", Params: "ToyCBS", Insecure: true},
	{Engine: "bgv", Params: "ToyM257", Insecure: true},
}

// serverKeyFile is a fresh server key of t's set, encoded. The first
// MarshalBinary of a new key hands over the encoding its id was computed
// from (and keeps it no longer); the second re-encodes it, to the same bytes.
func serverKeyFile(t *testing.T, tg Target) []byte {
	t.Helper()
	_, sk, err := GenerateKeysFor(tg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if sk.fresh.Load() != nil {
		t.Error("a new key keeps its encoding after MarshalBinary")
	}
	again, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("%s: a new key re-encodes differently (%d vs %d bytes)", tg.Params, len(again), len(data))
	}
	return data
}

// freedAfterGC reports whether the cleanup that closes done ran within a
// few collections (cleanups run on their own goroutine after a GC).
func freedAfterGC(done <-chan struct{}) bool {
	for range 50 {
		runtime.GC()
		select {
		case <-done:
			return true
		case <-time.After(10 * time.Millisecond):
		}
	}
	return false
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestServerKeyDoesNotRetainEncoding (F9): a decoded server key keeps no
// part of the data it was decoded from (on STD128_T_CMUX the 96 MB file
// stayed alive beside the 252 MB key), and MarshalBinary, which re-encodes
// the key, gives back the very bytes read (the encodings are canonical).
func TestServerKeyDoesNotRetainEncoding(t *testing.T) {
	for _, tg := range keyMemorySets {
		t.Run(tg.Params, func(t *testing.T) {
			data := serverKeyFile(t, tg)
			// Decode from a buffer of our own and watch it: any slice of it
			// kept by the key (a field, a lazily decoded blob, a cache)
			// keeps the whole allocation, and its cleanup never runs.
			buf := bytes.Clone(data)
			done := make(chan struct{})
			runtime.AddCleanup(&buf[0], func(ch chan struct{}) { close(ch) }, done)
			sk, err := UnmarshalServerKey(buf)
			if err != nil {
				t.Fatal(err)
			}
			buf = nil
			if !freedAfterGC(done) {
				t.Errorf("the %d-byte buffer the key was decoded from is still reachable from the key", len(data))
			}
			again, err := sk.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("MarshalBinary of the decoded key differs from the data read (%d vs %d bytes)", len(again), len(data))
			}
			runtime.KeepAlive(sk)
		})
	}
}

// TestReadServerKeyFileHeap (F9, the file path): the heap a key read by
// ReadServerKeyFile retains is the decoded key's, not the key's plus the
// file's. The reference is the same key decoded from a buffer the test
// keeps alive: it retains one file size more.
func TestReadServerKeyFileHeap(t *testing.T) {
	for _, tg := range keyMemorySets {
		t.Run(tg.Params, func(t *testing.T) {
			data := serverKeyFile(t, tg)
			path := filepath.Join(t.TempDir(), ServerKeyFile)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			size := uint64(len(data))
			data = nil

			base := liveHeap()
			sk, err := ReadServerKeyFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fromFile := liveHeap() - base
			runtime.KeepAlive(sk)
			sk = nil

			base = liveHeap()
			kept, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sk2, err := UnmarshalServerKey(kept)
			if err != nil {
				t.Fatal(err)
			}
			withFile := liveHeap() - base
			runtime.KeepAlive(sk2)
			runtime.KeepAlive(kept)

			t.Logf("%s: file %d B; retained by the key read from the file %d B, by a key and its buffer %d B", tg.Params, size, fromFile, withFile)
			if fromFile+size/2 > withFile {
				t.Errorf("the key read from its file retains %d B, a key with its %d-byte buffer %d B: the key keeps (most of) its file", fromFile, size, withFile)
			}
		})
	}
}

// TestInspectServerKey (F10): the header-only reader says what the decoded
// key says (engine, set, id, slots) and refuses what UnmarshalServerKey
// refuses before decoding: another kind of file, damaged data, a key id that
// is not the material's hash. A body that passes those checks but is not a
// key passes it too (the cluster's workers decode the key): that is the
// difference from UnmarshalServerKey.
func TestInspectServerKey(t *testing.T) {
	for _, tg := range keyMemorySets {
		t.Run(tg.Params, func(t *testing.T) {
			ck, sk, err := GenerateKeysFor(tg)
			if err != nil {
				t.Fatal(err)
			}
			data, err := sk.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			info, err := InspectServerKey(data)
			if err != nil {
				t.Fatal(err)
			}
			if info.Engine() != sk.Engine() || info.Params() != sk.Params() || info.KeyID() != sk.KeyID() ||
				info.Slots() != sk.Slots() || info.Insecure() != sk.Insecure() || info.SecurityWarning() != sk.SecurityWarning() {
				t.Errorf("header says %s/%s %v slots %d, the key %s/%s %v slots %d",
					info.Engine(), info.Params(), info.KeyID(), info.Slots(), sk.Engine(), sk.Params(), sk.KeyID(), sk.Slots())
			}
			secret, err := ck.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := InspectServerKey(secret); err == nil || !strings.Contains(err.Error(), "holds a secret key, not an evaluation key") {
				t.Errorf("secret key: %v", err)
			}
			bad := bytes.Clone(data)
			bad[len(bad)/2] ^= 1
			if _, err := InspectServerKey(bad); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
				t.Errorf("damaged key: %v", err)
			}
			if _, err := InspectServerKey(data[:len(data)-1]); err == nil {
				t.Error("truncated key accepted")
			}

			h, _, _, body, err := readKeyBody("key", data, kindEvalKey)
			if err != nil {
				t.Fatal(err)
			}
			body = bytes.Clone(body)
			body[len(body)/2] ^= 1
			if _, err := InspectServerKey(marshalKey(h, body)); err == nil || !strings.Contains(err.Error(), "does not match its key material") {
				t.Errorf("key id of other material: %v", err)
			}
			h.key = keyIDOf(body)
			notKey := marshalKey(h, body)
			if _, err := InspectServerKey(notKey); err != nil {
				t.Errorf("a well-framed file whose body is not a key: %v, want accepted by the header-only reader", err)
			}
			if _, err := UnmarshalServerKey(notKey); err == nil {
				t.Error("a well-framed file whose body is not a key decoded")
			}
		})
	}
}

// TestEvalDropsFreshEncoding: a new key that evaluates lets go of the
// encoding it was made with (hcc run never writes its key), and writes the
// same file afterwards.
func TestEvalDropsFreshEncoding(t *testing.T) {
	p := mustCompile(t, HDL(`circuit x(a: u2, b: u2) -> (c: u2) { c = a ^ b; }`, ""), Target{Engine: "fhew", Params: "ToySigned", Insecure: true})
	ck, sk, err := GenerateKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	want := sk.fresh.Load()
	if want == nil {
		t.Fatal("a new key has no encoding to hand over")
	}
	in, err := p.ParseInputs("a=1", "b=3")
	if err != nil {
		t.Fatal(err)
	}
	cts, err := ck.Encrypt(p, in)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Decrypt(p, out)
	if err != nil {
		t.Fatal(err)
	}
	if c := got[0]["c"][0].Int64(); c != 2 {
		t.Errorf("1 ^ 3 = %d", c)
	}
	if sk.fresh.Load() != nil {
		t.Error("the key keeps its encoding after Eval")
	}
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	h, _, _, body, err := readKeyBody("key", data, kindEvalKey)
	if err != nil || !bytes.Equal(body, *want) || h.key != sk.KeyID() {
		t.Errorf("the key written after Eval differs from the one it was made with (%v)", err)
	}
}
