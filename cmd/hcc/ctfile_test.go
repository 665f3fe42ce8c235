package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
)

// toyBackend builds a ToySigned evaluator (insecure, test only).
func toyBackend(t *testing.T) *fhew.Backend {
	t.Helper()
	p, err := fhew.ParamsByName("ToySigned", true)
	if err != nil {
		t.Fatal(err)
	}
	_, ek, err := newFHEWKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := fhew.NewEvaluator(p, ek)
	if err != nil {
		t.Fatal(err)
	}
	return fhew.NewBackend(ev)
}

func sampleCtFile() *ctFile {
	f := &ctFile{
		fileHeader:  fileHeader{kind: ctOutputs, backend: "fhew", params: "ToySigned", key: keyID{1, 2, 3}},
		circuitName: "mix",
		layout:      []ir.Bus{{Name: "s", Width: 8, Signed: true}, {Name: "w", Width: 4, Dims: []int{2}}},
		instances:   3,
		ctSize:      5,
	}
	f.circuitHash[0] = 0xab
	for i := 0; i < 16; i++ {
		f.cts = append(f.cts, []byte{byte(i), 1, 2, 3, 4})
	}
	return f
}

func TestCtFileRoundTrip(t *testing.T) {
	f := sampleCtFile()
	path := filepath.Join(t.TempDir(), "x.ct")
	if err := os.WriteFile(path, f.marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := readCtFile(path, ctOutputs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip:\n got %+v\nwant %+v", g, f)
	}
	if _, err := readCtFile(path, ctInputs); err == nil {
		t.Error("outputs read as inputs: no error")
	}
}

// TestCtFileDamage: every truncation and every single-byte change of a file
// is an error (never a panic, never a silently different file).
func TestCtFileDamage(t *testing.T) {
	data := sampleCtFile().marshal()
	path := filepath.Join(t.TempDir(), "x.ct")
	try := func(b []byte) error {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readCtFile(path, ctOutputs)
		return err
	}
	for n := 0; n < len(data); n++ {
		if try(data[:n]) == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(data))
		}
	}
	for i := range data {
		b := append([]byte(nil), data...)
		b[i] ^= 0x10
		if try(b) == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
	kf := &keyFile{fileHeader: fileHeader{kind: kindSecretKey, backend: "fhew", params: "ToySigned"}, body: []byte("key material")}
	kdata := kf.marshal()
	for n := 0; n < len(kdata); n++ {
		if err := os.WriteFile(path, kdata[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readKeyFile(path, kindSecretKey); err == nil {
			t.Fatalf("key truncated to %d of %d bytes: no error", n, len(kdata))
		}
	}
}

// TestCircuitHash: positions and the name do not matter, structure does.
func TestCircuitHash(t *testing.T) {
	build := func(name, pos string, useOr bool) *ir.Circuit {
		b := ir.NewBuilder(name)
		b.SetPos(pos)
		x := b.Input("x", 2, false)
		y := b.And(x[0], x[1])
		if useOr {
			y = b.Or(x[0], x[1])
		}
		b.Output("y", 1, false, []ir.NodeID{y})
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := circuitHash(build("a", "a.hdl:1:1", false))
	if a != circuitHash(build("b", "/elsewhere/a.hdl:1:1", false)) {
		t.Error("hash depends on the name or positions")
	}
	if a == circuitHash(build("a", "a.hdl:1:1", true)) {
		t.Error("AND and OR circuits hash the same")
	}
}
