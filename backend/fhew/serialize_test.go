package fhew

import (
	"bytes"
	"errors"
	"testing"
)

// TestSerializeRoundTrip writes and reads both keys, checks the evaluation
// key is bit-identical after regeneration and still bootstraps, and that a
// flipped byte, a truncated file and another set's key are rejected.
func TestSerializeRoundTrip(t *testing.T) {
	for _, lit := range []ParamsLiteral{ToySigned, ToyGaussian, ToyGINX, ToySlots8} {
		t.Run(lit.Name, func(t *testing.T) {
			k := kitFor(t, lit)
			data, err := k.ek.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			_, mem := k.ek.SizeBytes()
			t.Logf("evaluation key: %d bytes on disk, %d in memory", len(data), mem)
			ek, err := ReadEvaluationKey(k.p, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for s := 0; s < 2; s++ {
				if !equalU32(ek.brk[s], k.ek.brk[s]) {
					t.Fatalf("blind-rotation keys %d differ after the round trip", s)
				}
			}
			for u := range k.ek.auto {
				if !equalU32(ek.auto[u], k.ek.auto[u]) {
					t.Fatalf("automorphism key %d differs", u)
				}
			}
			if !equalU16(ek.ksk.data, k.ek.ksk.data) {
				t.Fatal("key-switching key differs")
			}
			skData, _ := k.sk.MarshalBinary()
			sk, err := ReadSecretKey(k.p, bytes.NewReader(skData))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := NewEvaluator(k.p, ek)
			if err != nil {
				t.Fatal(err)
			}
			out := NewCiphertext(k.p)
			ev.NAND(k.enc.EncryptNew(1), k.enc.EncryptNew(1), out, NewScratch(k.p))
			if b, err := sk.Decrypt(out); err != nil || b != 0 {
				t.Fatalf("NAND(1,1) with the reloaded keys = %d (%v)", b, err)
			}

			bad := append([]byte(nil), data...)
			bad[len(bad)/2] ^= 1
			if _, err := ReadEvaluationKey(k.p, bytes.NewReader(bad)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("flipped byte: %v", err)
			}
			if _, err := ReadEvaluationKey(k.p, bytes.NewReader(data[:len(data)-100])); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("truncated file: %v", err)
			}
			if _, err := ReadSecretKey(k.p, bytes.NewReader(data)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("evaluation key read as secret key: %v", err)
			}
			other := kitFor(t, ToyGINX).p
			if lit.Name == ToyGINX.Name {
				other = kitFor(t, ToySigned).p
			}
			if _, err := ReadEvaluationKey(other, bytes.NewReader(data)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("key of another parameter set: %v", err)
			}
		})
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalU16(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
