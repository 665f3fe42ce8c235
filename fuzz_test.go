package hcc

import (
	"bytes"
	"strings"
	"testing"
)

// The decoders of untrusted bytes: each fuzz target checks that nothing
// panics and that whatever is accepted is exactly a valid encoding (it
// re-encodes to the same bytes), so that damaged input is never taken for
// a different value. The seeds are valid encodings of toy-set values
// (ToySigned, ToySignedCMux, ToyM17; ToyCBS ciphertexts with and without
// input RGSWs).

// fuzzSeeds builds one program, key pair and ciphertext set per engine.
func fuzzSeeds(f *testing.F) (progs, secrets, servers, cts [][]byte) {
	f.Helper()
	const gates = `circuit c(a: u2, b: u2) -> (y: u2, z: bit) { y = a ^ b; z = a[0] & b[1]; }`
	for _, sd := range []struct {
		tg  Target
		src string
	}{
		{toyFHEW, gates},
		{Target{Engine: "bgv", Params: "ToyM17", Insecure: true}, gates},
		// The CMux set: key files with the CBS parts, a program with SEL/CMUX.
		{toyCMux, `circuit c(s: bit, a: u4, b: u4) -> (y: u4) { y = s ? a : b; }`},
	} {
		tg := sd.tg
		p, err := Compile(HDL(sd.src, ""), tg)
		if err != nil {
			f.Fatal(err)
		}
		ck, sk, err := GenerateKeys(p)
		if err != nil {
			f.Fatal(err)
		}
		c, err := ck.Encrypt(p, randomInputs(p, 2, 1)...)
		if err != nil {
			f.Fatal(err)
		}
		for _, x := range []struct {
			dst *[][]byte
			v   interface{ MarshalBinary() ([]byte, error) }
		}{{&progs, p}, {&secrets, ck}, {&cts, c}} {
			data, err := x.v.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			*x.dst = append(*x.dst, data)
		}
		if tg.Engine == "bgv" { // FHEW's server key is ~1 MB: too large a seed
			data, err := sk.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			servers = append(servers, data)
		}
	}
	// A wide-table set's inputs with their RGSWs (EncryptOptions.InputRGSW,
	// 28 KiB per bit on ToyCBS: two bits only), so that the fuzzer reaches
	// the wide bit + input RGSW encoding; the bare wide bits beside them.
	p, err := Compile(HDL(`circuit w(a: bit, b: bit) -> (y: bit) { y = a & b; }`, ""), toyWide)
	if err != nil {
		f.Fatal(err)
	}
	ck, _, err := GenerateKeys(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, opt := range []EncryptOptions{{InputRGSW: true}, {}} {
		c, err := ck.EncryptWith(p, opt, randomInputs(p, 1, 1)...)
		if err != nil {
			f.Fatal(err)
		}
		data, err := c.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		cts = append(cts, data)
	}
	return progs, secrets, servers, cts
}

// addAll adds the seeds, their halves and their bodies without the
// checksum (which each target also tries re-sealed, so that the fuzzer
// reaches the parsers behind the checksum).
func addAll(f *testing.F, seeds [][]byte) {
	for _, s := range seeds {
		f.Add(s)
		f.Add(s[:len(s)/2])
		f.Add(s[:len(s)-32])
	}
	f.Add([]byte(keyMagic))
	f.Add([]byte(ctMagic + "\x03\x00"))
	f.Add([]byte(programMagic))
}

// both calls try on data as given and on data re-sealed with a valid
// checksum.
func both(data []byte, try func([]byte)) {
	try(data)
	try(seal(append([]byte(nil), data...)))
}

// reencodes fails the target unless v marshals back to data.
func reencodes(t *testing.T, data []byte, v interface{ MarshalBinary() ([]byte, error) }) {
	t.Helper()
	got, err := v.MarshalBinary()
	if err != nil {
		t.Fatalf("accepted input does not re-encode: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("accepted %d bytes that re-encode to %d different bytes", len(data), len(got))
	}
}

func FuzzUnmarshalCiphertexts(f *testing.F) {
	_, _, _, cts := fuzzSeeds(f)
	addAll(f, cts)
	f.Fuzz(func(t *testing.T, data []byte) {
		both(data, func(data []byte) {
			if c, err := UnmarshalCiphertexts(data); err == nil {
				reencodes(t, data, c)
			}
		})
	})
}

func FuzzUnmarshalProgram(f *testing.F) {
	progs, _, _, _ := fuzzSeeds(f)
	addAll(f, progs)
	f.Fuzz(func(t *testing.T, data []byte) {
		both(data, func(data []byte) {
			if p, err := UnmarshalProgram(data); err == nil {
				reencodes(t, data, p)
			}
		})
	})
}

func FuzzUnmarshalClientKey(f *testing.F) {
	_, secrets, _, _ := fuzzSeeds(f)
	addAll(f, secrets)
	f.Fuzz(func(t *testing.T, data []byte) {
		both(data, func(data []byte) {
			if k, err := UnmarshalClientKey(data); err == nil {
				reencodes(t, data, k)
			}
		})
	})
}

func FuzzUnmarshalServerKey(f *testing.F) {
	_, _, servers, _ := fuzzSeeds(f)
	addAll(f, servers)
	f.Fuzz(func(t *testing.T, data []byte) {
		both(data, func(data []byte) {
			if k, err := UnmarshalServerKey(data); err == nil {
				reencodes(t, data, k)
			}
		})
	})
}

// fuzzCircuit has inputs of every kind ParseInputs reads: unsigned,
// signed, one bit, an array, and a wide bus.
const fuzzCircuit = `circuit f(a: u8, x: s4, e: bit, v: u3[3], w: u70) -> (y: u8) { y = a ^ (w[7:0]); }`

// FuzzParseInputs: --in values never panic, and accepted ones pack.
func FuzzParseInputs(f *testing.F) {
	c, err := LoadCircuit(HDL(fuzzCircuit, ""), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("a=0x7f x=-8 e=1 v=1,2,0o7 w=0b1_0")
	f.Add("a=256 x=0xf e=2 v=1,2 w=-1")
	f.Add("a= 1 x=0X8 e=0B1 v=0,0,0 w=1180591620717411303423")
	f.Fuzz(func(t *testing.T, line string) {
		v, err := ParseInputs(c, strings.Fields(line)...)
		if err != nil {
			return
		}
		if _, err := c.PackInputs(v); err != nil {
			t.Fatalf("accepted %q, which does not pack: %v", line, err)
		}
	})
}

// FuzzParseBatch: batch files never panic, and accepted instances pack.
func FuzzParseBatch(f *testing.F) {
	c, err := LoadCircuit(HDL(fuzzCircuit, ""), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("# two sets\na=1 x=0 e=0 v=0,0,0 w=0\n\na=0xff x=-1 e=1 v=7,7,7 w=0x3f\n")
	f.Add("a=1 x=0 e=0 v=0,0,0\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := ParseBatch(c, strings.NewReader(text), "fuzz.batch")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.batch") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(b.Values) == 0 || len(b.Values) != len(b.Lines) {
			t.Fatalf("%d instances, %d lines", len(b.Values), len(b.Lines))
		}
		for _, v := range b.Values {
			if _, err := c.PackInputs(v); err != nil {
				t.Fatalf("accepted an instance that does not pack: %v", err)
			}
		}
	})
}
