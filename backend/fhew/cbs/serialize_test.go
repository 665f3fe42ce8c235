package cbs

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// toyKeys is one ToyCBS key pair shared by the serialization tests and
// fuzz seeds (key generation is the slow part).
var toyKeys = sync.OnceValues(func() (*SecretKey, *EvaluationKey) {
	p, err := NewParamsInsecure(ToyCBS)
	if err != nil {
		panic(err)
	}
	sk, err := NewSecretKey(p)
	if err != nil {
		panic(err)
	}
	ek, err := GenEvaluationKey(sk)
	if err != nil {
		panic(err)
	}
	return sk, ek
})

func TestSerializeSecretKey(t *testing.T) {
	sk, _ := toyKeys()
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalSecretKey(sk.params, data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.z, sk.z) || !slices.Equal(got.s, sk.s) || !slices.Equal(got.zNTT[0][:sk.params.ringN], sk.zNTT[0][:sk.params.ringN]) {
		t.Fatal("secret key changed in the round trip")
	}
	// A bit encrypted under the original decrypts under the decoded key.
	enc, err := NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	for _, bit := range []bool{false, true} {
		w := NewWideBit(sk.params)
		if err := enc.Encrypt(bit, w); err != nil {
			t.Fatal(err)
		}
		if b, err := got.Decrypt(w); err != nil || b != bit {
			t.Fatalf("decoded key decrypts %v as %v (%v)", bit, b, err)
		}
	}
	checkRejects(t, data, func(d []byte) error { _, err := UnmarshalSecretKey(sk.params, d); return err })
	bad := slices.Clone(data)
	bad[len(header(sk.params, kindSecret, 0))] = 2
	if _, err := UnmarshalSecretKey(sk.params, reseal(bad)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "ternary") {
		t.Errorf("coefficient 2: err = %v", err)
	}
}

func TestSerializeEvaluationKey(t *testing.T) {
	sk, ek := toyKeys()
	data, err := ek.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalEvaluationKey(ek.params, data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.ks, ek.ks) {
		t.Fatal("LWE key switch changed in the round trip")
	}
	if got.seed != ek.seed {
		t.Fatal("seed changed in the round trip")
	}
	var a, b [][]uint32
	ek.allPolys(func(x ring.Poly2) { a = append(a, x[0][:ek.params.ringN], x[1][:ek.params.ringN]) })
	got.allPolys(func(x ring.Poly2) { b = append(b, x[0][:ek.params.ringN], x[1][:ek.params.ringN]) })
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d polynomials, decoded %d", len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("polynomial %d changed in the round trip", i/2)
		}
	}
	if again, err := got.MarshalBinary(); err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	// The decoded key bootstraps: a table through it decrypts right.
	ev, err := NewEvaluator(got)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScratch(ek.params)
	for _, bit := range []bool{false, true} {
		w := NewWideBit(ek.params)
		if err := enc.Encrypt(bit, w); err != nil {
			t.Fatal(err)
		}
		g := ev.NewRGSW()
		if err := ev.CBS(w, g, sc); err != nil {
			t.Fatal(err)
		}
		out := []*WideBit{NewWideBit(ek.params)}
		if err := ev.EvalTable([]*RGSW{g}, [][]uint64{{0b01}}, out, sc); err != nil { // NOT
			t.Fatal(err)
		}
		if b, err := sk.Decrypt(out[0]); err != nil || b == bit {
			t.Fatalf("NOT %v through the decoded key gives %v (%v)", bit, b, err)
		}
	}
	if testing.Short() {
		return
	}
	checkRejects(t, data, func(d []byte) error { _, err := UnmarshalEvaluationKey(ek.params, d); return err })
	// Out-of-range values under a valid checksum: a b lane >= Q_ks, a
	// residue >= its prime.
	hdr := len(header(ek.params, kindEvalKey, 0))
	rows, _ := evalKeyShape(ek.params)
	for name, at := range map[string]int{"Q_ks": hdr + 32, "not below 1341": hdr + 32 + 2*rows} {
		bad := slices.Clone(data)
		for i := 0; i < 4; i++ {
			bad[at+i] = 0xff
		}
		if _, err := UnmarshalEvaluationKey(ek.params, reseal(bad)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// reseal replaces the trailing checksum of an encoding.
func reseal(d []byte) []byte {
	body := d[:len(d)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(slices.Clone(body), sum[:]...)
}

func TestSerializeWideBit(t *testing.T) {
	sk, _ := toyKeys()
	p := sk.params
	enc, err := NewEncryptor(sk)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWideBit(p)
	if err := enc.Encrypt(true, w); err != nil {
		t.Fatal(err)
	}
	data := AppendWideBit(nil, w)
	if len(data) != WideBitSize(p) {
		t.Fatalf("encoding of %d bytes, WideBitSize %d", len(data), WideBitSize(p))
	}
	got, err := DecodeWideBit(p, data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.A, w.A) || got.B != w.B {
		t.Fatal("wide bit changed in the round trip")
	}
	for _, bad := range [][]byte{nil, data[:len(data)-1], append(slices.Clone(data), 0)} {
		if _, err := DecodeWideBit(p, bad); !errors.Is(err, ErrFormat) {
			t.Errorf("%d bytes: err = %v, want ErrFormat", len(bad), err)
		}
	}
	big := slices.Clone(data)
	for i := 0; i < 8; i++ {
		big[i] = 0xff // A[0] = 2^64-1 >= Q
	}
	if _, err := DecodeWideBit(p, big); !errors.Is(err, ErrFormat) {
		t.Errorf("coefficient >= Q: err = %v, want ErrFormat", err)
	}
	if _, err := DecodeWideBit(Params{}, data); err == nil {
		t.Error("zero Params accepted")
	}
}

// checkRejects checks that truncations, a flipped byte in the header and
// in the body, and a key of another set are refused with ErrFormat.
func checkRejects(t *testing.T, data []byte, decode func([]byte) error) {
	t.Helper()
	cases := map[string][]byte{
		"empty":     nil,
		"truncated": data[:len(data)-1],
		"padded":    append(slices.Clone(data), 0),
		"magic":     flip(data, 0),
		"version":   flip(data, len(fileMagic)),
		"kind":      flip(data, len(fileMagic)+2),
		"set name":  flip(data, len(fileMagic)+5),
		"body":      flip(data, len(data)-40),
		"checksum":  flip(data, len(data)-1),
	}
	for name, d := range cases {
		if err := decode(d); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
	p3, err := NewParamsInsecure(ToyCBS3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalSecretKey(p3, data); !errors.Is(err, ErrFormat) {
		t.Errorf("another set's secret key decoder: err = %v", err)
	}
	if _, err := UnmarshalEvaluationKey(p3, data); !errors.Is(err, ErrFormat) {
		t.Errorf("another set's evaluation key decoder: err = %v", err)
	}
}

// allPolys calls f on every polynomial of ek, A parts included.
func (ek *EvaluationKey) allPolys(f func(ring.Poly2)) {
	for i := range ek.brk {
		for _, g := range ek.brk[i] {
			for j := range g.B {
				f(g.B[j])
				f(g.A[j])
			}
		}
	}
	for _, k := range append(append([]ksKey(nil), ek.trace...), ek.ss) {
		for j := range k.B {
			f(k.B[j])
			f(k.A[j])
		}
	}
}

func flip(data []byte, i int) []byte {
	d := slices.Clone(data)
	d[i] ^= 0x40
	return d
}

// FuzzUnmarshalSecretKey: any input is a key or an error, never a panic.
func FuzzUnmarshalSecretKey(f *testing.F) {
	sk, _ := toyKeys()
	data, err := sk.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:40])
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, d []byte) {
		if k, err := UnmarshalSecretKey(sk.params, d); err == nil {
			again, err := k.MarshalBinary()
			if err != nil || !bytes.Equal(again, d) {
				t.Fatalf("accepted key re-encodes differently (%v)", err)
			}
		}
	})
}

// FuzzUnmarshalEvaluationKey: any input is a key or an error, never a
// panic (the seed is the header: a whole toy key is too large for the
// fuzzer's corpus, and the checksum makes mutated bodies fail early).
func FuzzUnmarshalEvaluationKey(f *testing.F) {
	_, ek := toyKeys()
	data, err := ek.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:len(header(ek.params, kindEvalKey, 0))+16])
	f.Add([]byte(fileMagic + "\x01\x00\x01"))
	f.Fuzz(func(t *testing.T, d []byte) {
		if _, err := UnmarshalEvaluationKey(ek.params, d); err == nil {
			t.Fatalf("accepted %d bytes, a key is %d", len(d), len(data))
		}
	})
}

// FuzzDecodeWideBit: any input is a wide bit or an error, never a panic.
func FuzzDecodeWideBit(f *testing.F) {
	sk, _ := toyKeys()
	w := NewWideBit(sk.params)
	f.Add(AppendWideBit(nil, w))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, d []byte) {
		if got, err := DecodeWideBit(sk.params, d); err == nil && !bytes.Equal(AppendWideBit(nil, got), d) {
			t.Fatal("accepted wide bit re-encodes differently")
		}
	})
}
