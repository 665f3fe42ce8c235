package hcc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/hcc-fhe/hcc/ir"
)

// Program files (.hcp) have the common frame (fileformat.go) with kind
// "compiled program", the program's engine and set in the header and a
// zero key id; the body is the target (engine, set, insecure u8, style,
// parity bound f64, LUT inputs u32, instances u32), the source circuit's
// name, its hash (32 bytes), the program hash (32 bytes), the compile
// summary, and the compiled circuit as .hir text (u64-length-prefixed).
//
// Decoding trusts nothing: the checksum, the target (normalized and looked
// up like a caller's), the .hir text (ir.ReadHIR, which runs ir.Verify), the
// engine's validation (every op, LUT and PARITY node runs on the set; BGV:
// the depth fits the chain) and the program hash, recomputed.

// MarshalBinary encodes the program as a .hcp file.
func (p *Program) MarshalBinary() ([]byte, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if p.interfaceOnly {
		return nil, errInterfaceOnly(p)
	}
	var hir bytes.Buffer
	if err := ir.WriteHIR(&hir, p.circuit); err != nil {
		return nil, err
	}
	h := fileHeader{kind: kindProgram, engine: p.target.Engine, params: p.target.Params}
	buf := h.append(make([]byte, 0, hir.Len()+512), programMagic)
	buf = appendTarget(buf, p.target)
	buf = appendString(buf, p.name)
	buf = append(buf, p.sourceHash[:]...)
	buf = append(buf, p.hash[:]...)
	buf = appendString(buf, p.summary)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(hir.Len()))
	buf = append(buf, hir.Bytes()...)
	return seal(buf), nil
}

// UnmarshalProgram decodes a .hcp encoding and validates all of it (see
// programfile.go); damaged or inconsistent data is an error.
func UnmarshalProgram(data []byte) (*Program, error) { return decodeProgram("program data", data) }

// ReadProgramFile reads a .hcp file written by Program.MarshalBinary
// (WriteFile). Errors name path.
func ReadProgramFile(path string) (*Program, error) {
	data, err := readFile(path, programMagic)
	if err != nil {
		return nil, err
	}
	return decodeProgram(path, data)
}

func errInterfaceOnly(p *Program) error {
	return fmt.Errorf("program %q was compiled with InterfaceOnly (no passes): it encrypts and decrypts but cannot be evaluated or written", p.name)
}

// IsProgramFile reports whether path is a compiled program file (it starts
// with the program magic), whatever its name. A path that is not a regular
// file is not one (and is not opened: opening a FIFO blocks until a writer
// comes).
func IsProgramFile(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [len(programMagic)]byte
	n, _ := f.Read(magic[:])
	return n == len(magic) && string(magic[:]) == programMagic
}

func decodeProgram(name string, data []byte) (*Program, error) {
	h, r, err := openFile(name, data, programMagic, "an hcc program file")
	if err != nil {
		return nil, err
	}
	if h.kind != kindProgram {
		return nil, fmt.Errorf("%s holds %v, not a compiled program", name, h.kind)
	}
	var t Target
	t.Engine = r.str()
	t.Params = r.str()
	t.Insecure = r.flag()
	t.Style = Style(r.str())
	t.ParityFailureLog2 = math.Float64frombits(r.u64())
	t.LUTInputs = int(r.u32())
	t.Instances = int(r.u32())
	p := &Program{origin: name, level: &levelCache{}}
	if name == "program data" {
		p.origin = ""
	}
	p.name = r.str()
	copy(p.sourceHash[:], r.take(32))
	var stored [32]byte
	copy(stored[:], r.take(32))
	p.summary = r.str()
	n := r.u64()
	hir := r.take(int(min(n, uint64(len(r.buf)+1))))
	r.end()
	if r.err != nil {
		return nil, fmt.Errorf("%s: malformed program file: %w", name, r.err)
	}
	bad := func(format string, a ...any) (*Program, error) {
		return nil, fmt.Errorf("%s: invalid program: %s", name, fmt.Sprintf(format, a...))
	}
	if h.key != (KeyID{}) {
		return bad("a program file carries no key id")
	}
	if t.Engine != h.engine || t.Params != h.params || t.Params == "" {
		return bad("target %s/%s disagrees with the header's %s/%s", t.Engine, t.Params, h.engine, h.params)
	}
	norm, err := t.normalized()
	if err != nil {
		return bad("%v", err)
	}
	if norm != t {
		return bad("target not in normal form")
	}
	if p.engine, err = LookupEngine(t.Engine); err != nil {
		return bad("%v", err)
	}
	if p.scheme, err = p.engine.scheme(t.Params, t.Insecure); err != nil {
		return bad("%v", err)
	}
	if p.circuit, err = ir.ReadHIR(bytes.NewReader(hir), name); err != nil {
		return bad("%v", err)
	}
	if err := ir.Verify(p.circuit); err != nil {
		return bad("%v", err)
	}
	// Only the canonical text is a program (what MarshalBinary writes):
	// anything else was edited, and is refused rather than reinterpreted.
	var canon bytes.Buffer
	if err := ir.WriteHIR(&canon, p.circuit); err != nil || !bytes.Equal(canon.Bytes(), hir) {
		return bad("the circuit text is not in canonical .hir form")
	}
	if err := p.engine.validate(p.circuit, p.scheme, t); err != nil {
		return bad("%v", err)
	}
	p.target = t
	if p.hash = p.computeHash(); p.hash != stored {
		return bad("program hash %x does not match its content (%x)", stored[:6], p.hash[:6])
	}
	return p, nil
}
