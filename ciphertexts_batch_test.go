package hcc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// evalParts evaluates each part.
func evalParts(t *testing.T, p *Program, sk *ServerKey, parts []*Ciphertexts) []*Ciphertexts {
	t.Helper()
	var outs []*Ciphertexts
	for _, part := range parts {
		o, _, err := Eval(context.Background(), p, sk, part, EvalOptions{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, o)
	}
	return outs
}

// remarshal sends every part through its file encoding (the cluster's path).
func remarshal(t *testing.T, parts []*Ciphertexts) []*Ciphertexts {
	t.Helper()
	out := make([]*Ciphertexts, len(parts))
	for i, c := range parts {
		data, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = UnmarshalCiphertexts(data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestJoinRefusesMisplacedParts: duplicated, missing, reordered and
// foreign parts (of outputs evaluated from Split parts, also through their
// files) are refused, naming the part and the instances; the right order
// joins and decrypts to the batch.
func TestJoinRefusesMisplacedParts(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		t.Run(tg.Engine, func(t *testing.T) {
			p := mustCompile(t, HDL(testAdder, ""), tg)
			ck, sk := keysFor(t, p)
			per := 1
			if tg.Engine == "bgv" {
				per = p.Slots()
			}
			ins := randomInputs(p, 3*per, 5)
			cts, err := ck.Encrypt(p, ins...)
			if err != nil {
				t.Fatal(err)
			}
			other, err := ck.Encrypt(p, ins...) // the same values: another batch all the same
			if err != nil {
				t.Fatal(err)
			}
			parts, err := cts.Split(per)
			if err != nil || len(parts) != 3 {
				t.Fatalf("split: %d parts, %v", len(parts), err)
			}
			otherParts, err := other.Split(per)
			if err != nil {
				t.Fatal(err)
			}
			outs := remarshal(t, evalParts(t, p, sk, remarshal(t, parts)))
			o0, o1, o2 := outs[0], outs[1], outs[2]
			otherOut := evalParts(t, p, sk, otherParts[1:2])[0]
			for _, c := range []struct {
				name  string
				parts []*Ciphertexts
				want  string
			}{
				{"duplicate", []*Ciphertexts{o0, o0, o2}, fmt.Sprintf("part 2 holds instances 1..%d", per)},
				{"reordered", []*Ciphertexts{o1, o0, o2}, fmt.Sprintf("want instances from %d", 2*per+1)},
				{"missing middle", []*Ciphertexts{o0, o2}, fmt.Sprintf("want instances from %d", per+1)},
				{"other batch", []*Ciphertexts{o0, otherOut, o2}, "another batch than part 1"},
				{"nil", []*Ciphertexts{o0, nil}, "part 2: nil Ciphertexts"},
				{"nil first", []*Ciphertexts{nil}, "part 1: nil Ciphertexts"},
				{"zero", []*Ciphertexts{{}}, "part 1: zero Ciphertexts"},
			} {
				_, err := JoinCiphertexts(c.parts)
				t.Logf("%s: %v", c.name, err)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
				}
			}
			// Contiguous parts short of the whole batch join to a part that
			// keeps its position: joined with the rest it is the batch again,
			// and it cannot stand in for a missing middle.
			head, err := JoinCiphertexts([]*Ciphertexts{o0, o1})
			if err != nil {
				t.Fatal(err)
			}
			if head.Instances() != 2*per {
				t.Fatalf("head holds %d instances, want %d", head.Instances(), 2*per)
			}
			if _, err := JoinCiphertexts([]*Ciphertexts{o0, o2}); err == nil {
				t.Fatal("a gap was joined")
			}
			if _, err := JoinCiphertexts([]*Ciphertexts{head, o2}); err != nil {
				t.Fatalf("head + tail: %v", err)
			}
			joined, err := JoinCiphertexts(outs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ck.Decrypt(p, joined)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstPlain(t, p, ins, got)
			// The joined batch splits and joins again.
			again, err := joined.Split(per)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := JoinCiphertexts(again); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReleasedInputs: inputs released by Eval are refused by
// MarshalBinary and Split, not written as an unreadable file.
func TestReleasedInputs(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		t.Run(tg.Engine, func(t *testing.T) {
			p := mustCompile(t, HDL(testAdder, ""), tg)
			ck, sk := keysFor(t, p)
			cts, err := ck.Encrypt(p, randomInputs(p, 2, 7)...)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{ReleaseInputs: true}); err != nil {
				t.Fatal(err)
			}
			_, err = cts.MarshalBinary()
			wantErr(t, err, "released by an earlier Eval with ReleaseInputs")
			_, err = cts.Split(1)
			wantErr(t, err, "released by an earlier Eval with ReleaseInputs")
		})
	}
}

// TestNilArguments: nil and zero values are errors, not panics.
func TestNilArguments(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 1)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var nilCts *Ciphertexts
	checks := map[string]func() error{
		"nil.MarshalBinary":  func() error { _, err := nilCts.MarshalBinary(); return err },
		"zero.MarshalBinary": func() error { _, err := (&Ciphertexts{}).MarshalBinary(); return err },
		"nil.Split":          func() error { _, err := nilCts.Split(1); return err },
		"Join(nil)":          func() error { _, err := JoinCiphertexts(nil); return err },
		"zero key Encrypt":   func() error { _, err := (&ClientKey{}).Encrypt(p, randomInputs(p, 1, 1)...); return err },
		"nil key Encrypt":    func() error { _, err := (*ClientKey)(nil).Encrypt(p, randomInputs(p, 1, 1)...); return err },
		"Encrypt nil prog":   func() error { _, err := ck.Encrypt(nil, randomInputs(p, 1, 1)...); return err },
		"Decrypt nil":        func() error { _, err := ck.Decrypt(p, nil); return err },
		"Decrypt nil prog":   func() error { _, err := ck.Decrypt(nil, cts); return err },
		"Eval nil prog":      func() error { _, _, err := Eval(ctx, nil, sk, cts, EvalOptions{}); return err },
		"Eval nil key":       func() error { _, _, err := Eval(ctx, p, nil, cts, EvalOptions{}); return err },
		"Eval nil cts":       func() error { _, _, err := Eval(ctx, p, sk, nil, EvalOptions{}); return err },
		"Eval zero prog":     func() error { _, _, err := Eval(ctx, &Program{}, sk, cts, EvalOptions{}); return err },
		"CheckInputs nil":    func() error { return sk.CheckInputs(p, nil) },
		"CheckInputs nilkey": func() error { return (*ServerKey)(nil).CheckInputs(p, cts) },
		"CheckOutputs nil":   func() error { return ck.CheckOutputs(nil, cts) },
		"Program nil":        func() error { _, err := (*Program)(nil).MarshalBinary(); return err },
		"Program zero":       func() error { _, err := (&Program{}).MarshalBinary(); return err },
		"WriteKeys nil":      func() error { _, _, _, err := WriteKeys(t.TempDir(), nil, sk, false); return err },
	}
	for name, f := range checks {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", name, r)
				}
			}()
			if err := f(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}()
	}
}

// TestOldCiphertextVersion: a version 3 file (no batch position) is
// refused with what to do.
func TestOldCiphertextVersion(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	ck, _ := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 1)...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := cts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	body := data[:len(data)-sha256.Size]
	binary.LittleEndian.PutUint16(body[len(ctMagic):], 3)
	_, err = UnmarshalCiphertexts(seal(body))
	wantErr(t, err, "format version 3, written by an older hcc; this hcc reads version 4 only")
}
