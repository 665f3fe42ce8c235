package hcc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// TestFilesRoundTrip writes keys, ciphertexts and the program to files and
// runs the client/server split from what it reads back, on both engines.
func TestFilesRoundTrip(t *testing.T) {
	for _, tg := range []Target{toyFHEW, toyBGV} {
		t.Run(tg.Engine, func(t *testing.T) {
			dir := t.TempDir()
			p := mustCompile(t, HDL(testAdder, ""), tg)
			ck, sk := keysFor(t, p)
			secret, server, _, err := WriteKeys(filepath.Join(dir, "keys"), ck, sk, false)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(secret); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("secret key mode: %v %v", st.Mode().Perm(), err)
			}
			if _, _, _, err := WriteKeys(filepath.Join(dir, "keys"), ck, sk, false); err == nil || !strings.Contains(err.Error(), "exists") {
				t.Errorf("second WriteKeys: %v", err)
			}
			data, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			progPath := filepath.Join(dir, "p.hcp")
			if err := WriteFile(progPath, data, 0o644); err != nil {
				t.Fatal(err)
			}
			ins := randomInputs(p, 3, 9)
			cts, err := ck.Encrypt(p, ins...)
			if err != nil {
				t.Fatal(err)
			}
			ctData, err := cts.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			inPath := filepath.Join(dir, "in.ct")
			if err := WriteFile(inPath, ctData, 0o644); err != nil {
				t.Fatal(err)
			}

			// The server: program, server key and inputs from files only.
			p2, err := CompileFile(progPath, Target{})
			if err != nil {
				t.Fatal(err)
			}
			if p2.Hash() != p.Hash() || p2.CircuitHash() != p.CircuitHash() || p2.Target() != p.Target() {
				t.Fatalf("program changed through the file: %+v vs %+v", p2.Target(), p.Target())
			}
			sk2, err := ReadServerKeyFile(server)
			if err != nil {
				t.Fatal(err)
			}
			in2, err := ReadCiphertextsFile(inPath)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Eval(context.Background(), p2, sk2, in2, EvalOptions{Threads: 2, ReleaseInputs: true})
			if err != nil {
				t.Fatal(err)
			}
			outData, err := out.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}

			// The client: secret key from its file, outputs from bytes.
			ck2, warning, err := ReadClientKeyFile(secret)
			if err != nil || warning != "" {
				t.Fatalf("%v, warning %q", err, warning)
			}
			out2, err := UnmarshalCiphertexts(outData)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ck2.Decrypt(p, out2)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstPlain(t, p, ins, got)

			if err := os.Chmod(secret, 0o640); err != nil {
				t.Fatal(err)
			}
			if _, warning, err := ReadClientKeyFile(secret); err != nil || !strings.Contains(warning, secret+" is readable by other users") {
				t.Errorf("0640 key: warning %q, %v", warning, err)
			}
		})
	}
}

// damage checks that every truncation and every single-byte change of
// data is refused by decode (never a panic, never a different value).
func damage(t *testing.T, what string, data []byte, decode func([]byte) error) {
	t.Helper()
	if err := decode(data); err != nil {
		t.Fatalf("%s: intact data refused: %v", what, err)
	}
	step := max(1, len(data)/3000) // whole files are large; sample evenly
	for n := 0; n < len(data); n += step {
		if decode(data[:n]) == nil {
			t.Fatalf("%s truncated to %d of %d bytes: no error", what, n, len(data))
		}
	}
	for i := 0; i < len(data); i += step {
		b := append([]byte(nil), data...)
		b[i] ^= 0x10
		if decode(b) == nil {
			t.Fatalf("%s: byte %d changed: no error", what, i)
		}
	}
}

// TestDamagedFiles: keys, ciphertexts and programs refuse damaged input.
func TestDamagedFiles(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	ck, sk := keysFor(t, p)
	cts, err := ck.Encrypt(p, randomInputs(p, 2, 1)...)
	if err != nil {
		t.Fatal(err)
	}
	ctData, _ := cts.MarshalBinary()
	progData, _ := p.MarshalBinary()
	skData, _ := ck.MarshalBinary()
	damage(t, "ciphertexts", ctData, func(b []byte) error { _, err := UnmarshalCiphertexts(b); return err })
	damage(t, "program", progData, func(b []byte) error { _, err := UnmarshalProgram(b); return err })
	damage(t, "secret key", skData, func(b []byte) error { _, err := UnmarshalClientKey(b); return err })
	ekData, _ := sk.MarshalBinary()
	// The server key is ~1 MB: truncations and a few flips.
	for _, n := range []int{0, 10, len(ekData) / 2, len(ekData) - 1} {
		if _, err := UnmarshalServerKey(ekData[:n]); err == nil {
			t.Errorf("server key truncated to %d bytes: no error", n)
		}
	}
	// A file of another kind is named as such.
	if _, err := UnmarshalCiphertexts(skData); err == nil || !strings.Contains(err.Error(), "a key file, not an hcc ciphertext file") {
		t.Errorf("key as ciphertexts: %v", err)
	}
	if _, err := UnmarshalClientKey(ekData); err == nil || !strings.Contains(err.Error(), "holds an evaluation key, not a secret key") {
		t.Errorf("server key as client key: %v", err)
	}
}

// TestProgramFileValidation: a program file whose checksum is intact but
// whose content is inconsistent or does not run on its set is refused.
func TestProgramFileValidation(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	// A LUT that no bootstrap of ToySigned evaluates within 2^-40 (a
	// 6-input function with a large weight norm) in an otherwise valid
	// program, re-sealed.
	bad := *p
	c := p.circuit.Clone()
	for i := range c.Nodes {
		if c.Nodes[i].Op == ir.OpLUT {
			c.Nodes[i].Table ^= 0x6996 // another function of the same inputs
			break
		}
	}
	bad.circuit = c
	bad.hash = bad.computeHash()
	data, err := bad.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalProgram(data); err != nil {
		t.Logf("modified LUT refused: %v", err) // fine either way: the next case must fail
	}
	bad.hash[0] ^= 1 // stored hash disagrees with the content
	data, _ = bad.MarshalBinary()
	if _, err := UnmarshalProgram(data); err == nil || !strings.Contains(err.Error(), "does not match its content") {
		t.Errorf("wrong stored hash: %v", err)
	}
	insecure := *p
	insecure.target.Insecure = false // a Toy program that does not say so
	insecure.hash = insecure.computeHash()
	data, _ = insecure.MarshalBinary()
	if _, err := UnmarshalProgram(data); err == nil || !strings.Contains(err.Error(), "insecure") {
		t.Errorf("Toy program without Insecure: %v", err)
	}
}

// TestBGVAutoParams: without Params, a BGV program gets M8191 while its
// depth fits (any batch size: more instances than slots are more packs),
// M65537 otherwise.
func TestBGVAutoParams(t *testing.T) {
	shallow := mustCompile(t, HDL(`circuit and4(a: u4, b: u4) -> (y: u4) { y = a & b; }`, ""), Target{Engine: "bgv"})
	if got := shallow.Target().Params; got != "M8191" {
		t.Errorf("4-bit AND: %s, want M8191", got)
	}
	const deep = `circuit mul(a: u32, b: u32) -> (p: u32) { p = a * b; }`
	if got := mustCompile(t, HDL(deep, ""), Target{Engine: "bgv"}).Target().Params; got != "M65537" {
		t.Errorf("32-bit multiplier: %s, want M65537", got)
	}
}

// TestBGVKeyMismatch: a key file whose header names one BGV set but whose
// body is a key of another (an intact outer checksum) is refused by the
// inner parameter id, as is a server key whose body is damaged and
// re-sealed.
func TestBGVKeyMismatch(t *testing.T) {
	ck17, sk17, err := GenerateKeysFor(Target{Engine: "bgv", Params: "ToyM17", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	body, err := ck17.sk.marshal()
	if err != nil {
		t.Fatal(err)
	}
	h := fileHeader{kind: kindSecretKey, engine: "bgv", params: "ToyM257", key: sk17.id}
	_, err = UnmarshalClientKey(marshalKey(h, body))
	if want := `secret key data: bgv: bad encoding: key is not for parameter set "ToyM257" (name, m, digits or primes differ)`; err == nil || err.Error() != want {
		t.Errorf("ToyM17 key under a ToyM257 header: %v, want %s", err, want)
	}
	_, sk, err := GenerateKeysFor(toyBGV)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := sk.encode()
	if err != nil {
		t.Fatal(err)
	}
	enc[len(enc)/2] ^= 1
	h = fileHeader{kind: kindEvalKey, engine: "bgv", params: "ToyM257", key: keyIDOf(enc)}
	_, err = UnmarshalServerKey(marshalKey(h, enc))
	if want := "server key data: bgv: bad encoding: checksum mismatch (corrupted or truncated)"; err == nil || err.Error() != want {
		t.Errorf("damaged, re-sealed server key: %v, want %s", err, want)
	}
}

// TestBGVEvalRefusesTooDeep: inputs encrypted above the level the noise
// simulation needs are fine, but a circuit the chain cannot carry from the
// inputs' level is refused by Eval before any work (the inputs here are
// at the top level of ToyM17 for a 16-bit multiplier, which needs more).
func TestBGVEvalRefusesTooDeep(t *testing.T) {
	const deep = `circuit mul(a: u32, b: u32) -> (p: u32) { p = a * b; }`
	if _, err := Compile(HDL(deep, ""), Target{Engine: "bgv", Params: "ToyM17", Insecure: true}); err == nil || !strings.Contains(err.Error(), "primes") {
		t.Fatalf("Compile at ToyM17: %v, want the primes needed", err)
	}
	// Bypass Compile's check to build what a hostile client could send.
	shallow := mustCompile(t, HDL(deep, ""), Target{Engine: "bgv", Params: "ToyM257", Insecure: true})
	s17, err := bgvEngine{}.scheme("ToyM17", true)
	if err != nil {
		t.Fatal(err)
	}
	p := *shallow
	p.scheme, p.target.Params = s17, "ToyM17"
	p.level = &levelCache{}
	ck, sk, err := GenerateKeys(&p)
	if err != nil {
		t.Fatal(err)
	}
	bits, err := p.circuit.PackInputs(randomInputs(&p, 1, 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	pr := s17.(*bgvScheme).pr
	cts, err := ck.sk.(*bgvSecret).encryptAt([][]bool{bits}, true, pr.MaxLevel())
	if err != nil {
		t.Fatal(err)
	}
	in := &Ciphertexts{kind: ctInputs, engine: p.engine, scheme: s17, key: ck.id, circuitHash: p.sourceHash,
		circuitName: p.name, layout: layoutOf(p.circuit.Inputs), packs: []pack{{n: 0, cts: cts}}}
	_, _, err = Eval(context.Background(), &p, sk, in, EvalOptions{})
	if err == nil || !strings.Contains(err.Error(), "noise") {
		t.Errorf("too-deep Eval: %v, want a noise refusal", err)
	}
}

// TestReplicate: the replicated circuit of an FHEW batch evaluates each
// copy like the original, on its own inputs.
func TestReplicate(t *testing.T) {
	p := mustCompile(t, HDL(testAdder, ""), toyFHEW)
	const k = 5
	r := replicate(p.circuit, k)
	if err := ir.Verify(r); err != nil {
		t.Fatal(err)
	}
	ins := randomInputs(p, k, 5)
	var all []bool
	for _, v := range ins {
		b, err := p.circuit.PackInputs(v)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	words := make([]uint64, len(all))
	for i, b := range all {
		if b {
			words[i] = 1
		}
	}
	out := r.EvalBits(words)
	nb := p.circuit.NumOutputBits()
	for j, v := range ins {
		want, err := p.EvalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		bits := make([]bool, nb)
		for i := range bits {
			bits[i] = out[j*nb+i]&1 == 1
		}
		if got, err := p.circuit.UnpackOutputs(bits); err != nil || FormatOutputs(p.circuit, got) != FormatOutputs(p.circuit, want) {
			t.Errorf("copy %d: got %v, want %v", j, got, want)
		}
	}
}

// TestAtomicWrite: WriteFile replaces atomically (no temporary file left,
// the mode applied), CreateFile refuses an existing path, and errors name
// the path given.
func TestAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if err := CreateFile(path, []byte("three"), 0o644); err == nil || !strings.Contains(err.Error(), path+" exists") {
		t.Errorf("CreateFile over an existing file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1 (temporary files left?)", len(entries))
	}
	missing := filepath.Join(dir, "no", "such", "f")
	if err := WriteFile(missing, nil, 0o644); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("write into a missing directory: %v", err)
	}
	if err := CheckWritable(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("CheckWritable: %v", err)
	}
}
