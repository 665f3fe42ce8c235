package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Options selects what Compile builds.
type Options struct {
	// Circuit names the circuit to compile. Empty means the only circuit
	// declared in the root file; with several, Compile fails and lists them.
	Circuit string
	// Style chooses how arithmetic is lowered: stdlib.SizeOptimized (the
	// zero value: ripple carry, array multiplier, fewest gates) or
	// stdlib.DepthOptimized (parallel prefix, tree multiplier; the whole
	// circuit in the size lowering instead where that has a lower AND-depth,
	// so "depth" is never deeper than "size").
	Style stdlib.Style
	// FS, if non-nil, holds the program's own files: Compile's filename and
	// every relative import are then slash-separated paths in FS (as
	// io/fs requires), so that a Go package can embed an HDL program split
	// over several files. Nil reads them from the operating system's file
	// system. "stdlib/..." imports always come from the embedded library.
	FS fs.FS

	// MemoryBudget bounds the memory elaboration may take, in bytes of
	// peak heap (about what the process holds while it elaborates): a
	// program whose circuit would need more is refused with "program too
	// large to elaborate" as soon as the budget is reached, not after the
	// machine runs out of memory. 0 means DefaultMemoryBudget.
	MemoryBudget int64

	// maxNodes and maxSteps override the size budget (tests and fuzzing).
	maxNodes, maxSteps int
}

// DefaultMemoryBudget is 1.5 GiB: a laptop with 4 GB survives it, and it
// holds circuits of about 4 million gates (AES-128 has 30 thousand, a
// 1024-bit multiplication needs more: raise MemoryBudget for it).
const DefaultMemoryBudget = 1536 << 20

// nodeBytes is the peak heap one gate of the circuit under construction
// takes: the node (64 bytes) and its fanin slice, the builder's hash-table
// entry, the slack of the slices and tables that grow by doubling, and the
// garbage of the values that elaboration computes and drops, before the
// collector runs (GOGC=100 lets the heap reach twice the live data).
// Measured at 325 bytes per gate over 2.4 million gates of chained u64
// multiplications (maximum resident size 778 MB) and at 335-344 over half
// a million (TestNodeBytes, which checks that the growth of the peak
// resident size stays below nodeBytes); 400 leaves a margin.
const nodeBytes = 400

// Default budgets: far above any realistic circuit, low enough that a
// mistaken loop fails quickly instead of exhausting memory.
const (
	defaultMaxSteps = 1 << 22
	// maxLoop is the largest iteration count of a single for loop.
	maxLoop = 1 << 16
	// stdlibPrefix marks imports resolved in the embedded standard library.
	stdlibPrefix = "stdlib/"
)

// CompileFile reads path and compiles it; imports resolve relative to path.
// Only a regular file is read, and only if the program's sources fit the
// memory budget (see Options.MemoryBudget).
func CompileFile(path string, opts Options) (*ir.Circuit, error) {
	budget, err := memoryBudget(path, opts.MemoryBudget)
	if err != nil {
		return nil, err
	}
	sb := &sourceBudget{budget: budget, limit: sourceLimit(budget)}
	src, err := sb.readOSSource(path)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	return Compile(path, src, opts)
}

// memoryBudget is Options.MemoryBudget with the default filled in.
func memoryBudget(filename string, b int64) (int64, error) {
	if b < 0 {
		return 0, fmt.Errorf("compile %s: memory budget %d bytes is negative", filename, b)
	}
	if b == 0 {
		return DefaultMemoryBudget, nil
	}
	return b, nil
}

// Compile compiles one circuit of the program in src. filename is used in
// error messages and to resolve relative imports. Errors are an ErrorList.
func Compile(filename string, src []byte, opts Options) (*ir.Circuit, error) {
	if opts.Style != stdlib.SizeOptimized && opts.Style != stdlib.DepthOptimized {
		return nil, fmt.Errorf("compile %s: unknown lowering style %v", filename, opts.Style)
	}
	var err error
	if opts.MemoryBudget, err = memoryBudget(filename, opts.MemoryBudget); err != nil {
		return nil, err
	}
	p, err := load(filename, src, opts.FS, opts.MemoryBudget)
	if err != nil {
		return nil, err
	}
	decl, err := p.pickCircuit(opts.Circuit)
	if err != nil {
		return nil, err
	}
	if opts.maxNodes == 0 {
		opts.maxNodes = int(min(opts.MemoryBudget/nodeBytes, math.MaxInt32))
	}
	if opts.maxSteps == 0 {
		opts.maxSteps = defaultMaxSteps
	}
	c := p.elaborateCircuit(decl, opts)
	if c != nil && opts.Style == stdlib.DepthOptimized {
		// The depth lowering picks each operator's architecture without
		// looking at when its operands arrive: where they arrive staggered,
		// as in a tree of additions (a popcount), ripple-carry adders finish
		// earlier than prefix adders, and the size lowering is shallower
		// (AND-depth 6 against 9 for a popcount of 64 bits). "depth" promises
		// the lowest AND-depth, so it keeps whichever is lower.
		// It is an alternative, not the program: within what is left of
		// the budget while c is alive, and without errors of its own.
		size := opts
		size.Style = stdlib.SizeOptimized
		size.maxNodes -= len(c.Nodes)
		if nerr := len(p.errs); size.maxNodes > 0 {
			if s := p.elaborateCircuit(decl, size); s != nil && shallower(s, c) {
				c = s
			}
			p.errs = p.errs[:nerr]
		}
	}
	p.checkUnused(opts)
	if len(p.errs) > 0 {
		return nil, p.errs.sortAndDedup()
	}
	return c, nil
}

// shallower reports whether a has a lower AND-depth than b, or the same
// with fewer gates.
func shallower(a, b *ir.Circuit) bool {
	sa, sb := a.Stats(), b.Stats()
	return sa.AndDepth < sb.AndDepth || (sa.AndDepth == sb.AndDepth && sa.Gates < sb.Gates)
}

// CircuitNames parses src (and its imports) and lists the circuits declared
// in it, in source order.
func CircuitNames(filename string, src []byte) ([]string, error) {
	p, err := load(filename, src, nil, DefaultMemoryBudget)
	if err != nil {
		return nil, err
	}
	return p.root.circuitNames(), nil
}

// SourceFiles lists the files of the operating system's file system that
// compiling path reads: path first, then its imports, transitively (the
// embedded standard library aside), as Compile names them. It parses the
// files but elaborates nothing; the errors are those loading reports.
func SourceFiles(path string) ([]string, error) {
	sb := &sourceBudget{budget: DefaultMemoryBudget, limit: sourceLimit(DefaultMemoryBudget)}
	src, err := sb.readOSSource(path)
	if err != nil {
		return nil, err
	}
	p, err := load(path, src, nil, DefaultMemoryBudget)
	if err != nil {
		return nil, err
	}
	names := []string{p.root.name}
	for _, f := range p.order {
		if f != p.root && !f.embedded {
			names = append(names, f.name)
		}
	}
	return names, nil
}

// srcFile is one loaded source file.
type srcFile struct {
	name     string // as shown in positions: the path, or "stdlib/x.hdl"
	src      []byte
	ast      *File
	embedded bool  // read from stdlib.FS
	fsys     fs.FS // Options.FS, for the program's own files when set
}

func (f *srcFile) circuitNames() []string {
	var names []string
	for _, d := range f.ast.Decls {
		if d.Circuit != nil {
			names = append(names, d.Circuit.Name)
		}
	}
	return names
}

// global is a top-level declaration visible everywhere in the program.
type global struct {
	pos     lexer.Position
	konst   *ConstDecl
	table   *TableDecl
	fn      *FnDecl
	circuit *CircuitDecl
}

// program is the root file, everything it imports and the global scope.
type program struct {
	files   map[string]*srcFile
	order   []*srcFile
	root    *srcFile
	globals map[string]*global
	errs    ErrorList
	// consts caches evaluated const and table declarations.
	consts map[string]*constEntry
	// inlined records functions elaborated by a call, so that only the
	// others need a standalone check.
	inlined map[*FnDecl]bool
	seen    map[errKey]bool
}

// errorf records an error at pos.
// An error repeated at the same position (a loop body, a function inlined
// many times) is recorded once.
func (p *program) errorf(pos lexer.Position, format string, args ...any) {
	e := &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	key := errKey{pos, e.Msg}
	if p.seen[key] {
		return
	}
	if p.seen == nil {
		p.seen = map[errKey]bool{}
	}
	p.seen[key] = true
	if f := p.files[pos.Filename]; f != nil {
		e.Line = sourceLine(f.src, pos.Line)
	}
	p.errs = append(p.errs, e)
}

type errKey struct {
	pos lexer.Position
	msg string
}

// maxErrors stops elaboration once this many distinct errors are known.
const maxErrors = 50

// load parses the root file and, depth first, every import; then it builds
// the global scope. Parse and import errors stop here. The sources read
// (the root and the imports outside the embedded library) must fit
// sourceLimit(budget) together.
func load(filename string, src []byte, fsys fs.FS, budget int64) (*program, error) {
	sb := &sourceBudget{budget: budget, limit: sourceLimit(budget)}
	if err := sb.take(filename, int64(len(src))); err != nil {
		return nil, err
	}
	p := &program{files: map[string]*srcFile{}, globals: map[string]*global{},
		consts: map[string]*constEntry{}, inlined: map[*FnDecl]bool{}}
	// A clean name makes "./a.hdl" and an import of "a.hdl" the same file.
	if fsys != nil {
		filename = path.Clean(filename)
	} else {
		filename = filepath.Clean(filename)
	}
	root := &srcFile{name: filename, src: src, fsys: fsys}
	p.files[filename] = root
	p.root = root
	state := map[string]int{} // 1 = being loaded, 2 = done
	var chain []string
	var visit func(f *srcFile)
	visit = func(f *srcFile) {
		ast, err := parseCached(f)
		if err != nil {
			var el ErrorList
			if errors.As(err, &el) {
				p.errs = append(p.errs, el...)
			} else {
				p.errs = append(p.errs, &Error{Pos: lexer.Position{Filename: f.name, Line: 1, Column: 1}, Msg: err.Error(), Err: err})
			}
			return
		}
		f.ast = ast
		state[f.name] = 1
		chain = append(chain, f.name)
		for _, imp := range ast.Imports {
			name, data, embedded, err := resolveImport(f, strings.Trim(imp.Path, `"`), sb, func(name string) bool { return state[name] != 0 })
			if err != nil {
				p.errs = append(p.errs, &Error{Pos: imp.Pos, Msg: err.Error(), Line: sourceLine(f.src, imp.Pos.Line), Err: err})
				continue
			}
			switch state[name] {
			case 1:
				cycle := append(chainFrom(chain, name), name)
				p.errorf(imp.Pos, "import cycle: %s", strings.Join(cycle, " -> "))
				continue
			case 2:
				continue
			}
			g := &srcFile{name: name, src: data, embedded: embedded}
			if !embedded {
				g.fsys = f.fsys
			}
			p.files[name] = g
			visit(g)
		}
		chain = chain[:len(chain)-1]
		state[f.name] = 2
		p.order = append(p.order, f)
	}
	visit(root)
	if len(p.errs) > 0 {
		return nil, p.errs.sortAndDedup()
	}
	for _, f := range p.order {
		p.declare(f)
	}
	if len(p.errs) > 0 {
		return nil, p.errs.sortAndDedup()
	}
	return p, nil
}

func chainFrom(chain []string, name string) []string {
	for i, n := range chain {
		if n == name {
			return append([]string(nil), chain[i:]...)
		}
	}
	return chain
}

// resolveImport maps an import path written in file from to a file name and
// its contents: "stdlib/..." reads the embedded library, anything else is
// relative to the importing file (inside the library for library files, in
// Options.FS for files read from it). Files outside the library are read
// within sb, and only if not loaded(name) (data is then nil): a file
// imported twice is read and counted once.
func resolveImport(from *srcFile, imp string, sb *sourceBudget, loaded func(name string) bool) (name string, data []byte, embedded bool, err error) {
	if imp == "" {
		return "", nil, false, errors.New("empty import path")
	}
	switch {
	case strings.HasPrefix(imp, stdlibPrefix):
		name, embedded = path.Clean(imp), true
	case from.embedded:
		name, embedded = path.Join(path.Dir(from.name), imp), true
	case from.fsys != nil:
		name = path.Join(path.Dir(from.name), imp)
		if !fs.ValidPath(name) {
			return "", nil, false, fmt.Errorf("cannot import %q: it leaves the program's file system", imp)
		}
		if loaded(name) {
			return name, nil, false, nil
		}
		data, err = sb.readFSSource(from.fsys, name)
		if err != nil {
			return "", nil, false, fmt.Errorf("cannot import %q: %w", imp, err)
		}
		return name, data, false, nil
	case filepath.IsAbs(imp):
		name = filepath.Clean(imp)
	default:
		name = filepath.Join(filepath.Dir(from.name), imp)
	}
	if embedded {
		if !strings.HasPrefix(name, stdlibPrefix) {
			return "", nil, false, fmt.Errorf("cannot import %q: it leaves the standard library", imp)
		}
		data, err = fs.ReadFile(stdlib.FS, strings.TrimPrefix(name, stdlibPrefix))
		if err != nil {
			return "", nil, false, fmt.Errorf("cannot import %q: no such file in the standard library: %w", imp, err)
		}
		return name, data, true, nil
	}
	if loaded(name) {
		return name, nil, false, nil
	}
	data, err = sb.readOSSource(name)
	if err != nil {
		return "", nil, false, fmt.Errorf("cannot import %q: %w", imp, err)
	}
	return name, data, false, nil
}

// declare enters the file's declarations into the global scope.
func (p *program) declare(f *srcFile) {
	for _, d := range f.ast.Decls {
		var name string
		g := &global{pos: d.Pos}
		switch {
		case d.Const != nil:
			name, g.konst, g.pos = d.Const.Name, d.Const, d.Const.Pos
		case d.Table != nil:
			name, g.table, g.pos = d.Table.Name, d.Table, d.Table.Pos
		case d.Fn != nil:
			name, g.fn, g.pos = d.Fn.Name, d.Fn, d.Fn.Pos
		case d.Circuit != nil:
			name, g.circuit, g.pos = d.Circuit.Name, d.Circuit, d.Circuit.Pos
		default:
			continue
		}
		if prev, ok := p.globals[name]; ok {
			p.errorf(g.pos, "%s redeclared (previous declaration at %s)", name, posString(prev.pos))
			continue
		}
		p.globals[name] = g
	}
}

// pickCircuit finds the circuit to compile among the root file's circuits.
func (p *program) pickCircuit(name string) (*CircuitDecl, error) {
	names := p.root.circuitNames()
	pos := lexer.Position{Filename: p.root.name, Line: 1, Column: 1}
	fail := func(msg string) error {
		return ErrorList{{Pos: pos, Msg: msg, Line: sourceLine(p.root.src, 1)}}
	}
	if name == "" {
		switch len(names) {
		case 0:
			return nil, fail("no circuit declared")
		case 1:
			name = names[0]
		default:
			return nil, fail(fmt.Sprintf("several circuits declared (%s): choose one", strings.Join(names, ", ")))
		}
	}
	for _, d := range p.root.ast.Decls {
		if d.Circuit != nil && d.Circuit.Name == name {
			return d.Circuit, nil
		}
	}
	return nil, fail(fmt.Sprintf("no circuit named %q (circuits: %s)", name, strings.Join(names, ", ")))
}

func posString(pos lexer.Position) string {
	return fmt.Sprintf("%s:%d:%d", pos.Filename, pos.Line, pos.Column)
}

// stdlibASTs caches parsed standard-library files: they never change and
// elaboration does not modify an AST, so every compile can share them.
var stdlibASTs sync.Map // file name -> *File

// parseCached parses a file, reusing the parse of embedded library files.
func parseCached(sf *srcFile) (*File, error) {
	if !sf.embedded {
		return parseFile(sf.name, sf.src)
	}
	if f, ok := stdlibASTs.Load(sf.name); ok {
		return f.(*File), nil
	}
	f, err := parseFile(sf.name, sf.src)
	if err == nil {
		stdlibASTs.Store(sf.name, f)
	}
	return f, err
}
