package hcc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// toyCMux is the insecure gate set with the shared-select CMux gadget.
var toyCMux = Target{Engine: "fhew", Params: "ToySignedCMux", Insecure: true}

const testCMuxMux = `circuit m(s: bit, a: u8, b: u8) -> (y: u8) { y = s ? a : b; }`

// retarget returns p's file re-encoded for target tg with a valid program
// hash and checksum: what a hand-edited .hcp looks like to the decoder.
func retarget(t *testing.T, p *Program, tg Target) []byte {
	t.Helper()
	q := *p
	var err error
	if q.target, err = tg.normalized(); err != nil {
		t.Fatal(err)
	}
	if q.scheme, err = q.engine.scheme(tg.Params, tg.Insecure); err != nil {
		t.Fatal(err)
	}
	q.hash = q.computeHash()
	data, err := q.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestProgramSelOnPlainSet: a program whose circuit has SEL/CMUX nodes
// but records a gate set without the CMux gadget is refused when read
// (it was accepted, and the encrypted run failed at its first SEL with
// "the backend cannot evaluate this op"). The same circuit on its own set
// still loads and runs correctly.
func TestProgramSelOnPlainSet(t *testing.T) {
	p := mustCompile(t, HDL(testCMuxMux, ""), toyCMux)
	if st := p.Stats(); st.Count[ir.OpSel] == 0 {
		t.Fatalf("no SEL in the mapping on %s: %v", toyCMux.Params, st.Count)
	}
	_, err := UnmarshalProgram(retarget(t, p, toyFHEW))
	if err == nil || !strings.Contains(err.Error(), "CMux gadget") || !strings.Contains(err.Error(), "ToySigned") {
		t.Fatalf("SEL/CMUX program on ToySigned: err = %v, want a refusal naming the gadget and the set", err)
	}
	r, err := UnmarshalProgram(retarget(t, p, toyCMux))
	if err != nil {
		t.Fatal(err)
	}
	r.insecureOK = true
	ck, sk := keysFor(t, r)
	for _, in := range [][]string{{"s=1", "a=5", "b=9"}, {"s=0", "a=5", "b=9"}} {
		v, err := r.ParseInputs(in...)
		if err != nil {
			t.Fatal(err)
		}
		cts, err := ck.Encrypt(r, v)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Eval(context.Background(), r, sk, cts, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ck.Decrypt(r, out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.EvalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		if got[0]["y"][0].Cmp(want["y"][0]) != 0 {
			t.Errorf("%v: decrypted %v, plaintext %v", in, got[0]["y"][0], want["y"][0])
		}
	}
}

// layer is a checksummed part of a file: data[start:end], its last 32
// bytes the SHA-256 of the rest; inner layers are u64-length-prefixed.
type layer struct{ start, end int }

// cmuxLayers finds the nested checksummed parts of an hcc file of a CMux
// set: the whole file, the FHEW key inside it (a u64 length, then
// "HCCFHEW"), and the CBS key inside that (a u64 length, then "HCCCBS"),
// outermost first. Files without them (ciphertexts, programs) have one.
func cmuxLayers(t *testing.T, data []byte) []layer {
	t.Helper()
	ls := []layer{{0, len(data)}}
	off := 0
	for _, magic := range []string{"HCCFHEW\x00", "HCCCBS\x00\x00"} {
		i := bytes.Index(data[off:], []byte(magic))
		if i < 8 {
			break
		}
		i += off
		n := int(binary.LittleEndian.Uint64(data[i-8:]))
		if n < 32 || i+n > len(data) {
			t.Fatalf("%s part at %d: length %d does not fit", magic, i, n)
		}
		ls = append(ls, layer{i, i + n})
		off = i
	}
	return ls
}

// resealLayers rewrites every checksum of ls in data, innermost first.
func resealLayers(data []byte, ls []layer) {
	for j := len(ls) - 1; j >= 0; j-- {
		l := ls[j]
		sum := sha256.Sum256(data[l.start : l.end-32])
		copy(data[l.end-32:l.end], sum[:])
	}
}

// truncateLayer cuts the body of layer k of data to n bytes and re-seals
// it and the layers around it (length prefixes and checksums).
func truncateLayer(data []byte, ls []layer, k, n int) []byte {
	l := ls[k]
	cut := l.end - 32 - (l.start + n) // bytes removed
	out := append(append([]byte(nil), data[:l.start+n]...), data[l.end-32:]...)
	nl := make([]layer, len(ls))
	for j := range ls {
		nl[j] = layer{ls[j].start, ls[j].end}
		if j <= k {
			nl[j].end -= cut
			if j > 0 {
				binary.LittleEndian.PutUint64(out[nl[j].start-8:], uint64(nl[j].end-nl[j].start))
			}
		}
	}
	resealLayers(out, nl[:k+1])
	return out
}

// TestCMuxFilesResealedMutations flips and truncates ToySignedCMux secret
// key, evaluation key, ciphertext and program files with every checksum
// inside re-sealed (the file's, the FHEW key's and the CBS key's, and the
// evaluation key's key id), so that the inner decoders (fhew's
// cmux_serialize.go, cbs's serialize.go) see the damage: each must be an
// error or re-encode to the same bytes, never a panic. The evaluation
// key's positions are sampled; HCC_CMUX_FILES_FULL=1 tries all of them
// (~20 s).
func TestCMuxFilesResealedMutations(t *testing.T) {
	p := mustCompile(t, HDL(testCMuxMux, ""), toyCMux)
	ck, sk := keysFor(t, p)
	in, err := p.ParseInputs("s=1", "a=5", "b=9")
	if err != nil {
		t.Fatal(err)
	}
	cts, err := ck.Encrypt(p, in)
	if err != nil {
		t.Fatal(err)
	}
	type marshaler interface{ MarshalBinary() ([]byte, error) }
	for _, c := range []struct {
		name   string
		v      marshaler
		decode func([]byte) (marshaler, error)
		step   int // 1: every byte; 0: sampled positions (the large evaluation key)
	}{
		{"secret key", ck, func(d []byte) (marshaler, error) { return UnmarshalClientKey(d) }, 1},
		{"ciphertexts", cts, func(d []byte) (marshaler, error) { return UnmarshalCiphertexts(d) }, 1},
		{"program", p, func(d []byte) (marshaler, error) { return UnmarshalProgram(d) }, 1},
		{"evaluation key", sk, func(d []byte) (marshaler, error) { return UnmarshalServerKey(d) }, 0},
	} {
		data, err := c.v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		ls := cmuxLayers(t, data)
		if c.name != "ciphertexts" && c.name != "program" && len(ls) != 3 {
			t.Fatalf("%s: %d checksummed parts, want the file, the FHEW key and the CBS key", c.name, len(ls))
		}
		fixID := func(d []byte, ls []layer) {
			if c.name == "evaluation key" { // the key id is the digest of the FHEW key, just before its length
				id := keyIDOf(d[ls[1].start:ls[1].end])
				copy(d[ls[1].start-8-len(id):], id[:])
				resealLayers(d, ls[:1])
			}
		}
		try := func(what string, d []byte) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s, %s: panic %v", c.name, what, r)
				}
			}()
			v, err := c.decode(d)
			if err != nil {
				return
			}
			again, err := v.MarshalBinary()
			if err != nil || !bytes.Equal(again, d) {
				t.Errorf("%s, %s: accepted, but re-encodes differently (%v)", c.name, what, err)
			}
		}
		// Positions: small files everywhere; in each part of the
		// evaluation key (each decode that passes the checksums
		// regenerates the key's public parts, ~20 ms) its header and the
		// bytes before its checksum, and the start of the CMux part (the
		// lower keys' rows and the CBS key's length); by default every
		// eighth of those.
		var pos []int
		flips := []byte{0x01, 0x80, 0xff}
		if c.step == 0 {
			flips = flips[2:]
			every := 8 // every position: HCC_CMUX_FILES_FULL=1 (~15 s more)
			if os.Getenv("HCC_CMUX_FILES_FULL") == "1" {
				every = 1
			}
			add := func(from, to int) {
				for i := max(from, 0); i < to; i += every {
					pos = append(pos, i)
				}
			}
			for _, l := range ls {
				add(l.start, min(l.start+160, l.end-32))
				add(l.end-32-48, l.end-32)
			}
			add(ls[2].start-8-64, ls[2].start)
		} else { // every byte of the small files, ~3000 positions of the ciphertexts (same format as ToySigned's)
			for i := 0; i < len(data)-32; i += max(1, (len(data)-32)/3000) {
				pos = append(pos, i)
			}
		}
		for _, i := range pos {
			inner := 0
			for j, l := range ls {
				if i >= l.start && i < l.end-32 {
					inner = j
				}
			}
			for _, x := range flips {
				d := append([]byte(nil), data...)
				d[i] ^= x
				resealLayers(d, ls[:inner+1])
				fixID(d, ls)
				try(fmt.Sprintf("byte %d (part %d) ^ %#x", i, inner, x), d)
			}
		}
		for k, l := range ls {
			body := l.end - 32 - l.start
			cuts := []int{0, 1, 8, 16, body / 2, body - 1}
			if c.step == 1 && body < 4000 {
				cuts = cuts[:0]
				for n := 0; n < body; n++ {
					cuts = append(cuts, n)
				}
			}
			for _, n := range cuts {
				d := truncateLayer(data, ls, k, n)
				if k > 0 && c.name == "evaluation key" { // the FHEW key's length moved its end
					fixID(d, []layer{{0, len(d)}, {ls[1].start, ls[1].end - (l.end - 32 - l.start - n)}})
				}
				try(fmt.Sprintf("part %d truncated to %d", k, n), d)
			}
		}
	}
}

// TestSummaryCountsSel: the compile summary (printed by hcc compile -v, eval
// and run, and kept in the .hcp) names the SEL and CMUX nodes of a CMux
// mapping; plain mappings read as before.
func TestSummaryCountsSel(t *testing.T) {
	var passes []string
	p, err := Compile(HDL(testCMuxMux, ""), toyCMux, ObservePasses(func(pass, summary string) { passes = append(passes, pass+": "+summary) }))
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	want := fmt.Sprintf("PARITY, %d SEL, %d CMUX)", st.Count[ir.OpSel], st.Count[ir.OpCMux])
	if !strings.Contains(p.Summary(), want) {
		t.Errorf("summary %q lacks %q", p.Summary(), want)
	}
	if len(passes) == 0 || !strings.Contains(passes[len(passes)-1], want) {
		t.Errorf("last pass line %q lacks %q", passes, want)
	}
	if q := mustCompile(t, HDL(testCMuxMux, ""), toyFHEW); strings.Contains(q.Summary(), "SEL") {
		t.Errorf("plain set's summary %q names SEL", q.Summary())
	}
}
