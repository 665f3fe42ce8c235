package cbs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/hcc-fhe/hcc/backend/ring"
)

func TestSerializeGateKey(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 256, 15)
	data, err := k.ek.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if want := len(header(k.p, kindGateKey, 0)) + gateKeyBody(k.p) + 32; len(data) != want {
		t.Fatalf("%d bytes, want %d", len(data), want)
	}
	got, err := UnmarshalEvaluationKey(k.p, data)
	if err != nil {
		t.Fatal(err)
	}
	if ok, ng, lq := got.GateMode(); !ok || ng != 256 || lq != 15 || got.ks != nil {
		t.Fatalf("decoded key: gate mode %v, N_g %d, log q %d, ks %d words", ok, ng, lq, len(got.ks))
	}
	var a, b [][]uint32
	all := func(ek *EvaluationKey, out *[][]uint32) {
		ek.allPolys(func(x ring.Poly2) { *out = append(*out, x[0][:k.p.ringN], x[1][:k.p.ringN]) })
		for j := range ek.lift.B {
			*out = append(*out, ek.lift.B[j][0], ek.lift.B[j][1], ek.lift.A[j][0], ek.lift.A[j][1])
		}
	}
	all(k.ek, &a)
	all(got, &b)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d residue slices, decoded %d", len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("residue slice %d changed in the round trip", i)
		}
	}
	if again, err := got.MarshalBinary(); err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	// The decoded key selects: Lift, CMux through it decode right.
	ev, err := NewEvaluator(got)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScratch(k.p)
	sel, x, y := ev.NewRGSW(), ev.NewRLWE(), ev.NewRLWE()
	w := NewWideBit(k.p)
	for s := 0; s < 2; s++ {
		sb, sa, _ := encryptLWE(k.sk, k.smp, s, 15, 16)
		b1, a1, _ := k.encryptGate(1, 8)
		b0, a0, _ := k.encryptGate(0, 8)
		if err := errors.Join(ev.CBSFromLWE(sb, sa, 15, sel, sc), ev.Lift(b1, a1, 15, x, sc), ev.Lift(b0, a0, 15, y, sc),
			ev.CMux(sel, x, y, y, sc), ev.ExtractConst(y, w)); err != nil {
			t.Fatal(err)
		}
		ph, _ := k.sk.Phase(w)
		if got := int(math.Round(4*float64(ph)/float64(k.p.q))) & 3; got != s {
			t.Fatalf("select %d through the decoded key gives %d", s, got)
		}
	}
	checkRejects(t, data, func(d []byte) error { _, err := UnmarshalEvaluationKey(k.p, d); return err })
	// Bad fields under a valid checksum.
	hdr := len(header(k.p, kindGateKey, 0))
	for name, c := range map[string]struct{ at, v int }{
		"N_g 3": {hdr + 32, 3}, "N_g 2N": {hdr + 32, 2 * k.p.ringN}, "N_g 0": {hdr + 32, 0},
		"log q 17": {hdr + 36, 17}, "log q 1": {hdr + 36, 1}, "residue": {hdr + 40, 0xffffffff},
	} {
		bad := slices.Clone(data)
		binary.LittleEndian.PutUint32(bad[c.at:], uint32(c.v))
		if _, err := UnmarshalEvaluationKey(k.p, reseal(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
	// A gate-mode file is no full key and the other way round: the kinds
	// differ, so a decoder never mistakes one for the other's layout.
	_, full := toyKeys()
	fd, err := full.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if fd[len(fileMagic)+2] != kindEvalKey || data[len(fileMagic)+2] != kindGateKey {
		t.Fatal("kind bytes")
	}
}

// TestSerializeSecretKeyWithLWE: the key of NewSecretKeyWithLWE round-trips
// through the ordinary secret-key encoding, s included.
func TestSerializeSecretKeyWithLWE(t *testing.T) {
	k := gateKeysFor(t, ToyCBS, 256, 15)
	data, err := k.sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalSecretKey(k.p, data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.LWESecret(), k.sk.LWESecret()) || !slices.Equal(got.RingSecret(), k.sk.RingSecret()) {
		t.Fatal("secret key changed in the round trip")
	}
}

// FuzzUnmarshalGateEvaluationKey: any input is a gate-mode key or an
// error, never a panic (seeds: the header with N_g and log q, and
// truncations of it).
func FuzzUnmarshalGateEvaluationKey(f *testing.F) {
	k := gateKeysFor(f, ToyCBS, 256, 15)
	data, err := k.ek.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	hdr := len(header(k.p, kindGateKey, 0))
	f.Add(data[:hdr+48])
	f.Add(data[:hdr+36])
	f.Add([]byte(fileMagic + "\x02\x00\x03"))
	f.Fuzz(func(t *testing.T, d []byte) {
		if _, err := UnmarshalEvaluationKey(k.p, d); err == nil {
			t.Fatalf("accepted %d bytes, a key is %d", len(d), len(data))
		}
	})
}
