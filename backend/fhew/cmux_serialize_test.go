package fhew

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"
)

// TestSerializeCMux round-trips both keys of the CMux toys, checks the
// lower keys are bit-identical, that Select and CMux work with the
// reloaded keys, and that damage (outer and inside the CBS part, re-sealed
// so only the inner check sees it), truncation and a key of the plain gate
// set are rejected.
func TestSerializeCMux(t *testing.T) {
	for _, lit := range cmuxToys {
		t.Run(lit.Name, func(t *testing.T) {
			k := kitFor(t, lit)
			data, err := k.ek.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			ek, err := ReadEvaluationKey(k.p, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if !equalU32(ek.lower, k.ek.lower) {
				t.Fatal("lower keys differ after the round trip")
			}
			skData, err := k.sk.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			sk, err := ReadSecretKey(k.p, bytes.NewReader(skData))
			if err != nil {
				t.Fatal(err)
			}
			if !equalI32(sk.cbs.RingSecret(), k.sk.cbs.RingSecret()) {
				t.Fatal("CBS ring secret differs after the round trip")
			}
			ev, err := NewEvaluator(k.p, ek)
			if err != nil {
				t.Fatal(err)
			}
			sc := NewScratch(k.p)
			sel := ev.NewSelector()
			out := NewCiphertext(k.p)
			for s := 0; s < 2; s++ {
				if err := ev.Select(k.enc.EncryptNew(s), sel, sc); err != nil {
					t.Fatal(err)
				}
				if err := ev.CMux(sel, k.enc.EncryptNew(1), k.enc.EncryptNew(0), out, sc); err != nil {
					t.Fatal(err)
				}
				if b, err := sk.Decrypt(out); err != nil || b != s {
					t.Fatalf("CMux(%d, 1, 0) with the reloaded keys = %d (%v)", s, b, err)
				}
			}
			// Damage near the end: inside the CBS part. Re-sealed, so the
			// outer checksum passes and package cbs's check must refuse it.
			for _, f := range [][]byte{data, skData} {
				bad := append([]byte(nil), f...)
				bad[len(bad)-sha256.Size-40] ^= 1
				if _, err := ReadEvaluationKey(k.p, bytes.NewReader(bad)); !errors.Is(err, ErrKeyFormat) {
					t.Errorf("flipped byte: %v", err)
				}
				resealed := reseal(bad)
				_, err1 := ReadEvaluationKey(k.p, bytes.NewReader(resealed))
				_, err2 := ReadSecretKey(k.p, bytes.NewReader(resealed))
				if !errors.Is(err1, ErrKeyFormat) || !errors.Is(err2, ErrKeyFormat) {
					t.Errorf("damaged CBS part accepted: %v / %v", err1, err2)
				}
				if _, err := ReadEvaluationKey(k.p, bytes.NewReader(reseal(f[:len(f)-sha256.Size-100]))); !errors.Is(err, ErrKeyFormat) {
					t.Errorf("truncated CBS part: %v", err)
				}
			}
			plain := kitFor(t, ToySigned)
			pd, _ := plain.ek.MarshalBinary()
			if _, err := ReadEvaluationKey(k.p, bytes.NewReader(pd)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("key of the plain set read as a CMux key: %v", err)
			}
			if _, err := ReadEvaluationKey(plain.p, bytes.NewReader(data)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("CMux key read for the plain set: %v", err)
			}
			// A CMux secret part with another s is refused.
			other, err := newSecretKeyFromSeed(k.p, seedOf("other-"+lit.Name))
			if err != nil {
				t.Fatal(err)
			}
			mixed := *k.sk
			mixed.cbs = other.cbs
			md, _ := mixed.MarshalBinary()
			if _, err := ReadSecretKey(k.p, bytes.NewReader(md)); !errors.Is(err, ErrKeyFormat) {
				t.Errorf("CBS secret with another s accepted: %v", err)
			}
		})
	}
}

// reseal replaces the file's trailing checksum with a correct one.
func reseal(f []byte) []byte {
	body := append([]byte(nil), f[:len(f)-sha256.Size]...)
	sum := sha256.Sum256(body)
	return append(body, sum[:]...)
}

func equalI32(a, b []int32) bool {
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

// FuzzReadSecretKeyCMux: ReadSecretKey on arbitrary bytes, seeded with a
// CMux toy's secret key file, errors or returns a key; it never panics.
func FuzzReadSecretKeyCMux(f *testing.F) {
	k := kitFor(f, ToySignedCMux)
	data, err := k.sk.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(reseal(data[:len(data)-sha256.Size-7]))
	f.Fuzz(func(t *testing.T, b []byte) {
		sk, err := ReadSecretKey(k.p, bytes.NewReader(b))
		if err == nil && (sk.cbs == nil || len(sk.s) != k.p.n) {
			t.Fatal("accepted a key without its CMux part")
		}
		// Re-sealed inputs reach the decoders behind the checksum.
		if len(b) > sha256.Size {
			_, _ = ReadSecretKey(k.p, bytes.NewReader(reseal(b)))
		}
	})
}

// FuzzReadEvaluationKeyCMux: ReadEvaluationKey on arbitrary bytes, seeded
// with a CMux toy's evaluation key file, errors or returns a key with its
// CMux parts; re-sealed inputs reach the decoders behind the checksum.
// FuzzReadEvaluationKeyCMux damages a valid ToySignedCMux evaluation key
// file (megabytes) by a small patch and an optional truncation, with the
// checksum re-sealed, so the fuzzer's inputs stay small (the engine stalls on
// multi-megabyte inputs) while every section of the decoder is reached. A
// damaged file must be refused or decode to a key with its CMux parts.
// About 250 executions per second on 2 cores: CI fuzz budget: 5000x.
func FuzzReadEvaluationKeyCMux(f *testing.F) {
	k := kitFor(f, ToySignedCMux)
	data, err := k.ek.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	body := len(data) - sha256.Size
	f.Add(uint32(0), []byte{}, uint32(0))             // the valid file
	f.Add(uint32(body-1000), []byte{}, uint32(1000))  // truncated
	f.Add(uint32(40), []byte{0xff, 0xff}, uint32(0))  // header field
	f.Add(uint32(body/2), []byte{1, 2, 3}, uint32(0)) // inside a key
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32) {
		in := bytes.Clone(data[:body])
		if len(patch) > 0 {
			copy(in[int(at)%len(in):], patch)
		}
		in = in[:len(in)-int(cut)%len(in)]
		sum := sha256.Sum256(in)
		in = append(in, sum[:]...)
		ek, err := ReadEvaluationKey(k.p, bytes.NewReader(in))
		if err == nil && (ek.cbs == nil || len(ek.lower) != k.p.lowerKeyLen()) {
			t.Fatal("accepted a key without its CMux parts")
		}
	})
}
