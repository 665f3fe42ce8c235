package hcc

import (
	"context"
	"strconv"
	"testing"
)

// TestWideFilesResealedMutations flips and truncates the bodies of ToyCBS
// secret key, ciphertext and program files, re-sealed with a valid
// checksum so that the inner decoders (cbs's serialize.go through the
// wide scheme) see them: each must be an error or re-encode to the same
// bytes, never a panic. (The root fuzz targets seed gate sets and BGV only.)
func TestWideFilesResealedMutations(t *testing.T) {
	p := mustCompile(t, HDL(`circuit c(a: u2, b: u2) -> (y: u2, z: bit) { y = a ^ b; z = a[0] & b[1]; }`, ""), toyWide)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 1, 5)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		v      interface{ MarshalBinary() ([]byte, error) }
		decode func([]byte) (interface{ MarshalBinary() ([]byte, error) }, error)
	}{
		{"secret key", ck, func(d []byte) (interface{ MarshalBinary() ([]byte, error) }, error) { return UnmarshalClientKey(d) }},
		{"ciphertexts", cts, func(d []byte) (interface{ MarshalBinary() ([]byte, error) }, error) { return UnmarshalCiphertexts(d) }},
		{"evaluation key", sk, func(d []byte) (interface{ MarshalBinary() ([]byte, error) }, error) { return UnmarshalServerKey(d) }},
		{"program", p, func(d []byte) (interface{ MarshalBinary() ([]byte, error) }, error) { return UnmarshalProgram(d) }},
	} {
		data, err := c.v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		body := data[:len(data)-32]
		try := func(what string, d []byte) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s, %s: panic %v", c.name, what, r)
				}
			}()
			v, err := c.decode(seal(d))
			if err != nil {
				return
			}
			again, err := v.MarshalBinary()
			if err != nil || string(again) != string(seal(d)) {
				t.Errorf("%s, %s: accepted, but re-encodes differently (%v)", c.name, what, err)
			}
		}
		step, end := max(1, len(body)/3000), len(body) // every byte of small files, ~3000 positions of large ones
		if c.name == "evaluation key" {
			step, end = 1, 160 // headers only: each decode regenerates the key's public parts
		}
		for i := 0; i < end; i += step {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				d := append([]byte(nil), body...)
				d[i] ^= x
				try("byte "+strconv.Itoa(i)+" flipped", d)
			}
			try("truncated to "+strconv.Itoa(i), append([]byte(nil), body[:i]...))
		}
	}
}

// TestNoInputCircuit: a circuit without inputs (constant outputs) runs
// encrypted on a wide-table and a gate set, also through the ciphertext
// file format; its packs hold no ciphertexts, which Eval took for
// released inputs ("no input instances").
func TestNoInputCircuit(t *testing.T) {
	for _, tg := range []Target{toyWide, toyFHEW} {
		p := mustCompile(t, HDL(`circuit z() -> (y: u8, b: bit) { y = 3; b = 1; }`, ""), tg)
		ck, sk := keysFor(t, p)
		in, err := p.ParseInputs()
		if err != nil {
			t.Fatal(err)
		}
		cts, err := ck.Encrypt(p, in, in)
		if err != nil {
			t.Fatal(err)
		}
		data, err := cts.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if cts, err = UnmarshalCiphertexts(data); err != nil {
			t.Fatalf("%s: %v", tg.Params, err)
		}
		out, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{ReleaseInputs: true})
		if err != nil {
			t.Fatalf("%s: %v", tg.Params, err)
		}
		got, err := ck.Decrypt(p, out)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0]["y"][0].Int64() != 3 || got[1]["b"][0].Int64() != 1 {
			t.Errorf("%s: decrypted %v", tg.Params, got)
		}
		if _, _, err := Eval(context.Background(), p, sk, cts, EvalOptions{}); err == nil {
			t.Errorf("%s: released inputs evaluated again", tg.Params)
		}
	}
}
