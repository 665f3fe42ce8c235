package hcc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Source is what Compile reads: HDL text, a .hir text circuit, a
// Bristol-fashion netlist, or a circuit built in Go.
type Source struct {
	// Name is the file name: it picks the format (".hdl" is HDL; otherwise
	// .hir or Bristol by content), appears in error messages, and anchors
	// the HDL program's relative imports.
	Name string
	// Text is the content; nil reads Name from the file system (or FS).
	Text []byte
	// Circuit picks one circuit of an HDL program that declares several
	// (for .hir and Bristol it must match the file's circuit name, if set).
	Circuit string
	// FS, if set, holds the HDL program's files (Name and its relative
	// imports are then slash-separated paths in FS, as lang.Options.FS).
	FS fs.FS
	// MemoryBudget bounds the memory HDL elaboration may take, in bytes;
	// 0 is lang.DefaultMemoryBudget (1.5 GiB). A program over it is
	// refused, at once, with an error, instead of exhausting the machine.
	// A .hir or Bristol file may have ir.MaxFileBytesFor(MemoryBudget).
	MemoryBudget int64

	circuit *ir.Circuit
}

// HDL is a Source holding HDL program text (imports are read from the
// embedded standard library, "stdlib/...", or relative to the working
// directory). circuit names the circuit to compile if the text declares
// several ("" for the only one).
func HDL(text, circuit string) Source {
	return Source{Name: "input.hdl", Text: []byte(text), Circuit: circuit}
}

// File is a Source read from path: .hdl source (imports resolve relative
// to path), .hir text or a Bristol-fashion netlist.
func File(path string) Source { return Source{Name: path} }

// FromCircuit is a Source holding a circuit built in Go (it must pass
// ir.Verify); the circuit is not modified.
func FromCircuit(c *ir.Circuit) Source {
	if c == nil {
		return Source{} // refused by Compile and LoadCircuit as empty
	}
	return Source{Name: c.Name, circuit: c}
}

// LoadCircuit turns src into a plain circuit, lowering HDL arithmetic in
// style ("" is StyleSize), without any of an engine's passes: what hcc sim,
// stats and the exporters work on. A compiled program file gives its
// compiled circuit (the same function). The result passes ir.Verify. HDL errors
// keep their multi-line source context.
func LoadCircuit(src Source, style Style) (*ir.Circuit, error) {
	st := stdlib.SizeOptimized
	switch style {
	case "", StyleSize:
	case StyleDepth:
		st = stdlib.DepthOptimized
	default:
		return nil, fmt.Errorf("unknown style %q (want size or depth)", style)
	}
	if src.circuit == nil && src.Name == "" && src.Text == nil {
		return nil, fmt.Errorf("empty Source: give a file Name, Text, or use HDL, File or FromCircuit with a circuit")
	}
	if src.circuit != nil {
		if err := ir.Verify(src.circuit); err != nil {
			return nil, fmt.Errorf("circuit %q: %w", src.circuit.Name, err)
		}
		return src.circuit, nil
	}
	if src.Text == nil && src.FS == nil && IsProgramFile(src.Name) {
		p, err := ReadProgramFile(src.Name) // its compiled circuit: the same function
		if err != nil {
			return nil, err
		}
		return p.circuit, nil
	}
	if strings.HasSuffix(src.Name, ".hdl") {
		opts := lang.Options{Circuit: src.Circuit, Style: st, FS: src.FS, MemoryBudget: src.MemoryBudget}
		if src.Text == nil && src.FS == nil {
			return lang.CompileFile(src.Name, opts)
		}
		text := src.Text
		if text == nil {
			var err error
			if text, err = fs.ReadFile(src.FS, src.Name); err != nil {
				return nil, err
			}
		}
		return lang.Compile(src.Name, text, opts)
	}
	var c *ir.Circuit
	var err error
	switch {
	case src.Text != nil:
		c, err = readCircuitText(src.Name, src.Text)
	case src.FS != nil:
		var text []byte
		if text, err = fs.ReadFile(src.FS, src.Name); err == nil {
			c, err = readCircuitText(src.Name, text)
		}
	default:
		budget := src.MemoryBudget
		if budget < 0 {
			return nil, fmt.Errorf("read %s: memory budget %d bytes is negative", src.Name, budget)
		}
		if budget == 0 {
			budget = lang.DefaultMemoryBudget
		}
		c, err = ir.ReadFileMax(src.Name, ir.MaxFileBytesFor(budget))
	}
	if err != nil {
		return nil, err
	}
	if src.Circuit != "" && src.Circuit != c.Name {
		return nil, fmt.Errorf("%s holds circuit %q, not %q", src.Name, c.Name, src.Circuit)
	}
	return c, nil
}

// readCircuitText reads .hir or Bristol text the way ir.ReadFile reads a
// file: .hir if the name ends in ".hir" or the first line that is neither
// blank nor a comment starts with "hir"; otherwise Bristol, with the
// circuit named after the file.
func readCircuitText(name string, data []byte) (*ir.Circuit, error) {
	if strings.HasSuffix(name, ".hir") || looksLikeHIR(data) {
		return ir.ReadHIR(bytes.NewReader(data), name)
	}
	c, err := ir.ReadBristol(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	c.Name = base
	return c, nil
}

func looksLikeHIR(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		return strings.Fields(t)[0] == "hir"
	}
	return false
}

// Program is a circuit compiled for a Target: the engine's passes have run
// (FHEW: LUT mapping against the parameter set; BGV: lowest AND-depth) and
// the parameter set is fixed. It is immutable and safe for concurrent use.
// The same source and target always give the same program, with the same
// Hash; MarshalBinary writes it as a .hcp file, so a server never
// recompiles.
type Program struct {
	target     Target // resolved: Engine and Params set
	name       string
	sourceHash [32]byte
	circuit    *ir.Circuit // compiled
	summary    string      // what compiling changed, for reports
	hash       [32]byte
	engine     Engine
	scheme     scheme
	level      *levelCache // BGV input level, computed once
	// interfaceOnly: compiled with InterfaceOnly (circuit is the source).
	interfaceOnly bool
	origin        string // the source or program file name (messages)
	// choice: how AutoParams chose the set (nil for a named set).
	choice *ParamsChoice
	// insecureOK: this process's caller set Target.Insecure for the
	// program (Compile with it). A program file records its set, Toy
	// included, but never this permission: keys and encryption for an
	// insecure set need the caller's switch, whatever file brought it.
	insecureOK bool
}

// checkInsecure refuses what for an insecure program without the caller's
// Target.Insecure, naming the file that recorded the set.
func (p *Program) checkInsecure(what string) error {
	if !p.scheme.insecure() || p.insecureOK {
		return nil
	}
	return fmt.Errorf("%s records the insecure parameter set %s (for tests only): set Target.Insecure (--insecure) to %s for it anyway",
		p.originName(), p.scheme.name(), what)
}

// originName names the program in messages: its file, else its circuit.
func (p *Program) originName() string {
	if p.origin != "" {
		return p.origin
	}
	return fmt.Sprintf("program %q", p.name)
}

// compileConfig holds Compile's options.
type compileConfig struct {
	observe       func(pass, summary string)
	interfaceOnly bool
	// level receives what the engine's compile already computed (BGV:
	// the input level of the noise simulation), for the program.
	level *levelCache
	// alt is the source's other HDL lowering (StyleSize when the target
	// asks for StyleDepth), or nil: an engine minimizing AND-depth (BGV)
	// compiles both and keeps the better, since the size lowering can be
	// the better input to its depth passes.
	alt *ir.Circuit
	// choice receives AutoParams' report (the FHEW engine's compile).
	choice *ParamsChoice
}

// InterfaceOnly makes Compile skip the engine's passes where the client
// side does not need them: a program compiled so encrypts and decrypts
// (FHEW needs only the buses and the circuit hash, so the LUT mapping,
// up to a minute on large circuits, is saved) but cannot be evaluated or
// written. BGV programs are always compiled in full (the input level
// depends on the compiled circuit).
func InterfaceOnly() CompileOption {
	return func(c *compileConfig) { c.interfaceOnly = true }
}

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

// ObservePasses calls f after every pass of the engine's pipeline with the
// pass name and a one-line summary of the circuit at that point (FHEW:
// nodes, bootstraps, LUT and PARITY counts, bootstrap depth, critical
// path), starting with the pass name "input".
func ObservePasses(f func(pass, summary string)) CompileOption {
	return func(c *compileConfig) { c.observe = f }
}

// Compile compiles src for t: the HDL front end (or the .hir or Bristol
// reader), then the engine's passes, then the parameter choice. It is
// deterministic. A Source naming a compiled program file (.hcp, see
// Program.MarshalBinary) is read and validated instead of compiled: its own
// target applies, and it must agree with t's Engine and Params where those
// are set. Errors name the source; HDL errors add the source line and
// a caret on further lines.
func Compile(src Source, t Target, opts ...CompileOption) (*Program, error) {
	if src.circuit == nil && src.Text == nil && src.FS == nil && IsProgramFile(src.Name) {
		p, err := ReadProgramFile(src.Name)
		if err != nil {
			return nil, err
		}
		if err := p.checkTarget(src.Name, t); err != nil {
			return nil, err
		}
		if t.Insecure {
			q := *p
			q.insecureOK = true
			p = &q
		}
		return p, nil
	}
	t, err := t.normalized()
	if err != nil {
		return nil, err
	}
	e, err := LookupEngine(t.Engine)
	if err != nil {
		return nil, err
	}
	if t.Params == AutoParams {
		if _, ok := e.(paramsChooser); !ok {
			return nil, fmt.Errorf("parameter set %s is fhew's per-circuit choice; backend %s chooses its set when Params is empty", AutoParams, e.Name())
		}
	} else if t.Params != "" {
		// Refuse an unknown or insecure set before the (possibly long) compile.
		if _, err := e.scheme(t.Params, t.Insecure); err != nil {
			return nil, err
		}
	}
	c, err := LoadCircuit(src, t.Style)
	if err != nil {
		return nil, err
	}
	cfg := &compileConfig{}
	for _, o := range opts {
		o(cfg)
	}
	if t.Style == StyleDepth && e.Name() == "bgv" && src.circuit == nil && strings.HasSuffix(src.Name, ".hdl") {
		alt, err := LoadCircuit(src, StyleSize)
		if err != nil {
			return nil, err
		}
		cfg.alt = alt
	}
	p, err := compileCircuit(e, c, t, cfg)
	if err != nil {
		return nil, err
	}
	if src.circuit == nil || src.Name != c.Name {
		p.origin = src.Name
	}
	return p, nil
}

// CompileFile is Compile(File(path), t, opts...).
func CompileFile(path string, t Target, opts ...CompileOption) (*Program, error) {
	return Compile(File(path), t, opts...)
}

// checkTarget reports a program whose engine or set differs from those t names.
func (p *Program) checkTarget(path string, t Target) error {
	if t.Engine != "" && t.Engine != p.target.Engine {
		return fmt.Errorf("%s is a program for backend %s, not %s", path, p.target.Engine, t.Engine)
	}
	if t.Params == AutoParams {
		if pc, ok := p.engine.(paramsChooser); !ok || !pc.autoCandidate(p.target.Params) {
			return fmt.Errorf("%s is a program for parameter set %s, which %s does not choose", path, p.target.Params, AutoParams)
		}
		return nil
	}
	if t.Params != "" && t.Params != p.target.Params {
		return fmt.Errorf("%s is a program for parameter set %s, not %s", path, p.target.Params, t.Params)
	}
	return nil
}

func compileCircuit(e Engine, c *ir.Circuit, t Target, cfg *compileConfig) (*Program, error) {
	// AutoParams needs the passes: they choose the set the keys are for.
	if cfg.interfaceOnly && !e.clientNeedsPasses() && t.Params != AutoParams {
		s, err := e.scheme(t.Params, t.Insecure)
		if err != nil {
			return nil, err
		}
		t.Params = s.name()
		t = e.settle(s, t)
		p := &Program{target: t, name: c.Name, sourceHash: circuitHash(c), circuit: c, engine: e, scheme: s, interfaceOnly: true, level: &levelCache{}, insecureOK: t.Insecure}
		p.summary = "interface only (no passes run)"
		p.hash = p.computeHash()
		return p, nil
	}
	cfg.level = &levelCache{}
	d, s, err := e.compile(c, t, cfg)
	if err != nil {
		return nil, err
	}
	if d.NumInputBits() != c.NumInputBits() || d.NumOutputBits() != c.NumOutputBits() {
		return nil, fmt.Errorf("internal error: compiling %q changed its interface", c.Name)
	}
	t.Params = s.name()
	t = e.settle(s, t)
	p := &Program{target: t, name: c.Name, sourceHash: circuitHash(c), circuit: d, engine: e, scheme: s, level: cfg.level, insecureOK: t.Insecure, choice: cfg.choice}
	p.summary = e.summary(c, d, s, t)
	p.hash = p.computeHash()
	return p, nil
}

// SecurityWarning is a one-line warning when the program's set is below
// hcc's 128-bit target (a paper-reproduction set, allowed without
// Target.Insecure but not 128-bit), else "". Callers should show it.
func (p *Program) SecurityWarning() string { return p.scheme.warning() }

// Evaluable reports whether Eval can run the program (false after
// InterfaceOnly skipped the engine's passes).
func (p *Program) Evaluable() bool { return !p.interfaceOnly }

// Target is the resolved target the program was compiled for (Engine and
// Params are always set).
func (p *Program) Target() Target { return p.target }

// Engine is the program's engine.
func (p *Program) Engine() Engine { return p.engine }

// Name is the source circuit's name.
func (p *Program) Name() string { return p.name }

// Circuit is the compiled circuit (callers must not modify it). It
// evaluates in plaintext like the source (ir.Circuit.Eval).
func (p *Program) Circuit() *ir.Circuit { return p.circuit }

// Inputs are the input buses (names, types and bit layout).
func (p *Program) Inputs() []ir.Bus { return p.circuit.Inputs }

// Outputs are the output buses.
func (p *Program) Outputs() []ir.Bus { return p.circuit.Outputs }

// Slots is the number of instances one ciphertext of the program's
// parameter set carries (1 on FHEW; the slot count on BGV).
func (p *Program) Slots() int { return p.scheme.slots() }

// Summary describes what compiling did, in one line: on FHEW the bootstraps
// before and after, LUT and PARITY counts, bootstrap depth and the
// predicted failure per run; on BGV the AND-depth before and after and the
// multiplications.
func (p *Program) Summary() string { return p.summary }

// Details describes the compiled program on its parameter set in one
// line: on FHEW the predicted failure per run and the PARITY width; on BGV
// the slots, the AND-depth available and the input level.
func (p *Program) Details() string { return p.engine.details(p) }

// Stats are the compiled circuit's statistics with the engine's cost
// (bootstraps on FHEW gate sets, multiplications on BGV; on wide-table
// sets the non-linear gates the tables absorb: what Eval counts there is
// in Summary and EvalCostName).
func (p *Program) Stats() ir.Stats { return p.circuit.StatsFor(p.engine.cost(p.scheme, p.target)) }

// EvalCostName names what Eval counts for p in Stats.Costly and reports
// through EvalOptions.Progress: "bootstraps" on FHEW gate sets,
// "multiplications" on BGV, "circuit bootstraps" on wide-table sets (where
// Stats counts the non-linear gates the tables absorb, not what runs).
func (p *Program) EvalCostName() string { return p.engine.evalCostName(p.scheme, p.target) }

// Hash identifies the program: SHA-256 over its target and compiled
// circuit (names and source positions left out).
func (p *Program) Hash() [32]byte { return p.hash }

// CircuitHash identifies the source circuit's function and interface (the
// hash ciphertext files record: ciphertexts belong to a function, whatever
// mapping a server compiled it with).
func (p *Program) CircuitHash() [32]byte { return p.sourceHash }

// ParseInputs parses --in style assignments for the program's inputs (see
// the package function ParseInputs).
func (p *Program) ParseInputs(assigns ...string) (Values, error) {
	return ParseInputs(p.circuit, assigns...)
}

// EvalPlain evaluates the program in plaintext (the reference semantics).
func (p *Program) EvalPlain(in Values) (Values, error) { return p.circuit.Eval(in) }

func (p *Program) computeHash() [32]byte {
	h := sha256.New()
	var buf []byte
	buf = appendTarget(buf, p.target)
	buf = append(buf, p.sourceHash[:]...)
	ch := circuitHash(p.circuit)
	buf = append(buf, ch[:]...)
	h.Write(buf)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// appendTarget encodes t (the part of a program file and of its hash that
// says what it was compiled for).
func appendTarget(buf []byte, t Target) []byte {
	le := binary.LittleEndian
	buf = appendString(buf, t.Engine)
	buf = appendString(buf, t.Params)
	buf = append(buf, boolByte(t.Insecure))
	buf = appendString(buf, string(t.Style))
	buf = le.AppendUint64(buf, math.Float64bits(t.ParityFailureLog2))
	buf = le.AppendUint32(buf, uint32(t.LUTInputs))
	return le.AppendUint32(buf, uint32(t.Instances))
}

// circuitHash identifies a circuit's function and interface: SHA-256 over
// the input and output buses (names, types, driving nodes) and every node
// (op, table, bus bit, fanins). Source positions and the circuit name are
// left out, so the same circuit loaded from another path, or a Bristol file
// under another name, hashes the same.
func circuitHash(c *ir.Circuit) [32]byte {
	h := sha256.New()
	var buf []byte
	le := binary.LittleEndian
	putBuses := func(bs []ir.Bus) {
		buf = le.AppendUint32(buf, uint32(len(bs)))
		for i := range bs {
			b := &bs[i]
			buf = appendString(buf, b.Name)
			buf = le.AppendUint32(buf, uint32(b.Width))
			buf = append(buf, boolByte(b.Signed), byte(len(b.Dims)))
			for _, d := range b.Dims {
				buf = le.AppendUint32(buf, uint32(d))
			}
			buf = le.AppendUint32(buf, uint32(len(b.Bits)))
			for _, id := range b.Bits {
				buf = le.AppendUint32(buf, uint32(id))
			}
		}
	}
	putBuses(c.Inputs)
	putBuses(c.Outputs)
	buf = le.AppendUint32(buf, uint32(len(c.Nodes)))
	h.Write(buf)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		buf = append(buf[:0], byte(n.Op), byte(len(n.In)))
		buf = le.AppendUint64(buf, n.Table)
		buf = le.AppendUint32(buf, uint32(n.Bus))
		buf = le.AppendUint32(buf, uint32(n.Bit))
		for _, x := range n.In {
			buf = le.AppendUint32(buf, uint32(x))
		}
		h.Write(buf)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
