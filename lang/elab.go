package lang

import (
	"fmt"
	"math/big"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Elaboration type-checks and lowers in one walk: it interprets the program
// at compile time (constants, loops, compile-time ifs, inlined calls) and
// emits gates for everything that depends on circuit inputs.

// varKind says where a variable came from; it decides what may assign it.
type varKind uint8

const (
	varLocal varKind = iota
	varInput
	varOutput
	varLoop
	varParam
)

// variable is a named storage location. t == untypedType marks a
// compile-time integer variable (`let n = 4;`).
type variable struct {
	name     string
	pos      lexer.Position
	kind     varKind
	t        *Type
	val      value
	assigned []bool // per leaf
	ever     bool   // assigned on some path (for the output error message)
}

type scope struct {
	parent *scope
	vars   map[string]*variable
	order  []*variable
	bits   int // value bits of the variables declared here (memory budget)
}

func (s *scope) lookup(name string) *variable {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v
		}
	}
	return nil
}

// fnFrame is the state of one inlined call. Returns are predicated: retCond
// is the runtime condition "has returned", retVal the value returned then.
type fnFrame struct {
	decl    *FnDecl
	result  *Type
	retVal  value
	hasRet  bool
	retCond ir.NodeID
	done    bool // returned on every path (known at compile time)
	// doneByConst: done holds only because of a compile-time condition or
	// loop bound (a constant argument, say), so statements after it are
	// dead for this call but not unreachable code.
	doneByConst bool
}

// abort stops elaboration when a budget is exceeded; it never escapes the package.
type abort struct{}

type elab struct {
	p     *program
	b     *ir.Builder
	style stdlib.Style
	opts  Options
	scope *scope
	fn    *fnFrame
	calls []*FnDecl
	steps int
	work  int // bits copied or scanned, see charge
	// varBits is the number of value bits the variables in scope hold
	// (callers' scopes included), for the memory budget.
	varBits int
	cur     lexer.Position // statement being elaborated
}

func newElab(p *program, name string, opts Options) *elab {
	return &elab{p: p, b: ir.NewBuilder(name), style: opts.Style, opts: opts}
}

func (e *elab) errorf(pos lexer.Position, format string, args ...any) {
	e.p.errorf(pos, format, args...)
	if len(e.p.errs) >= maxErrors {
		e.p.errorf(pos, "too many errors")
		panic(abort{})
	}
}

func (e *elab) setPos(pos lexer.Position) {
	e.b.SetPos(posString(pos))
}

// step charges one unit of work and aborts elaboration past the budget.
func (e *elab) step(pos lexer.Position) {
	e.steps++
	if e.steps > e.opts.maxSteps {
		e.errorf(pos, "program too large to elaborate (more than %d steps)", e.opts.maxSteps)
		panic(abort{})
	}
	e.reserve(pos, 0)
}

// valueBitBytes is the peak heap per bit of a variable's value: a NodeID
// (4 bytes) and its share of the per-leaf bookkeeping, doubled for the
// copies that assignments and runtime ifs drop for the collector.
const valueBitBytes = 10

// memory is the estimated peak heap of the elaboration with n more gates:
// the circuit under construction and the values its variables hold.
func (e *elab) memory(n int) int64 {
	return int64(e.b.Len()+n)*nodeBytes + int64(e.varBits)*valueBitBytes
}

// tooLarge aborts elaboration: the circuit and the values would outgrow the
// memory budget.
func (e *elab) tooLarge(pos lexer.Position) {
	gates := min(int64(e.opts.maxNodes), max(0, e.opts.MemoryBudget-int64(e.varBits)*valueBitBytes)/nodeBytes)
	e.errorf(pos, "program too large to elaborate: over the memory budget of %s, which holds about %d gates besides the %d bits of values in variables (raise it to elaborate more: hcc --max-memory, or MemoryBudget in Go)",
		formatBytes(e.opts.MemoryBudget), gates, e.varBits)
	panic(abort{})
}

// formatBytes renders n bytes in MiB or GiB.
func formatBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// charge accounts for copying or scanning n bits (arrays are copied on
// assignment and at every runtime if), so that loops over huge arrays hit
// the budget instead of running for minutes.
func (e *elab) charge(n int) {
	e.work += n
	if e.work > e.opts.maxSteps*64 {
		e.errorf(e.cur, "program too large to elaborate (more than %d bit operations)", e.opts.maxSteps*64)
		panic(abort{})
	}
}

// reserve aborts elaboration if adding about n gates would exceed the budget.
func (e *elab) reserve(pos lexer.Position, n int) {
	if e.b.Len()+n > e.opts.maxNodes || e.memory(n) > e.opts.MemoryBudget {
		e.tooLarge(pos)
	}
}

// run calls f, turning a budget abort into a nil result.
func (e *elab) run(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isAbort := r.(abort); !isAbort {
				panic(r)
			}
			ok = false
		}
	}()
	f()
	return true
}

func (e *elab) pushScope() { e.scope = &scope{parent: e.scope, vars: map[string]*variable{}} }
func (e *elab) popScope() {
	e.varBits -= e.scope.bits
	e.scope = e.scope.parent
}

func (e *elab) declareVar(v *variable) {
	if v.assigned == nil {
		v.assigned = make([]bool, leavesOf(v.t))
	}
	// A variable holds its value (one node per bit) until its scope ends;
	// assignments replace it with one of the same type.
	e.scope.bits += len(v.val.bits)
	e.varBits += len(v.val.bits)
	e.scope.vars[v.name] = v
	e.scope.order = append(e.scope.order, v)
}

// badVariable is a name whose declaration had an error: declared, so that
// uses report nothing more, with a bad value that every use accepts
// silently.
func badVariable(name string, pos lexer.Position, kind varKind) *variable {
	return &variable{name: name, pos: pos, kind: kind, t: untypedType, val: badValue}
}

func leavesOf(t *Type) int {
	if t == nil || t.kind == kindUntyped {
		return 1
	}
	return t.leaves()
}

// elaborateCircuit lowers one circuit; nil if errors were reported.
func (p *program) elaborateCircuit(d *CircuitDecl, opts Options) *ir.Circuit {
	e := newElab(p, d.Name, opts)
	var c *ir.Circuit
	nerr := len(p.errs)
	e.cur = d.Pos
	e.run(func() {
		e.pushScope()
		var outs []*variable
		for _, prm := range d.Inputs {
			t := e.resolveType(prm.Type)
			if t == nil {
				// Declared anyway, as a let with a bad type is: the type
				// error is the one to report, not "undefined" at every use.
				if e.checkNewName(prm.Name, prm.Pos) {
					e.declareVar(badVariable(prm.Name, prm.Pos, varInput))
				}
				continue
			}
			if !e.checkNewName(prm.Name, prm.Pos) {
				continue
			}
			e.setPos(prm.Pos)
			e.reserve(prm.Pos, t.bits())
			bits := e.b.Input(prm.Name, t.scalar().width, t.scalar().signed, t.dims()...)
			v := &variable{name: prm.Name, pos: prm.Pos, kind: varInput, t: t, val: value{t: t, bits: bits}}
			e.declareVar(v)
			for i := range v.assigned {
				v.assigned[i] = true
			}
		}
		for _, prm := range d.Outputs {
			t := e.resolveType(prm.Type)
			if t == nil {
				if e.checkNewName(prm.Name, prm.Pos) {
					e.declareVar(badVariable(prm.Name, prm.Pos, varOutput))
				}
				continue
			}
			if !e.checkNewName(prm.Name, prm.Pos) {
				if prev := e.scope.vars[prm.Name]; prev.kind == varInput {
					// The body's assignments to the name are meant for the
					// output: a bad output in place of the input keeps them
					// from reporting "cannot assign to input" as well.
					e.scope.vars[prm.Name] = badVariable(prm.Name, prev.pos, varOutput)
				}
				continue
			}
			v := &variable{name: prm.Name, pos: prm.Pos, kind: varOutput, t: t, val: e.zero(t)}
			e.declareVar(v)
			outs = append(outs, v)
		}
		e.execBlock(d.Body)
		for _, v := range outs {
			for i, ok := range v.assigned {
				if ok {
					continue
				}
				what := v.name
				if v.t.isArray() {
					what = fmt.Sprintf("%s (element %d)", v.name, i)
				}
				if v.ever {
					e.errorf(v.pos, "output %s is not assigned on every path", what)
				} else {
					e.errorf(v.pos, "output %s is never assigned", what)
				}
				break
			}
			if v.val.bad() {
				continue // an error was reported
			}
			s := v.t.scalar()
			e.b.Output(v.name, s.width, s.signed, v.val.bits, v.t.dims()...)
		}
	})
	if len(p.errs) > nerr {
		return nil
	}
	c, err := e.b.Build()
	if err != nil {
		p.errorf(d.Pos, "internal error: generated circuit is invalid: %v", err)
		return nil
	}
	return c
}

// checkUnused type-checks the root file's consts and tables, and the
// functions that no call elaborated, each with fresh inputs as parameters
// in a scratch circuit.
func (p *program) checkUnused(opts Options) {
	e := newElab(p, "consts", opts)
	e.run(func() {
		for _, d := range p.root.ast.Decls {
			e.cur = d.Pos
			switch {
			case d.Const != nil && p.globals[d.Const.Name].konst == d.Const:
				e.globalValue(d.Const.Name, p.globals[d.Const.Name], d.Const.Pos)
			case d.Table != nil && p.globals[d.Table.Name].table == d.Table:
				e.globalValue(d.Table.Name, p.globals[d.Table.Name], d.Table.Pos)
			}
		}
	})
	for _, d := range p.root.ast.Decls {
		if d.Fn == nil || p.inlined[d.Fn] || p.globals[d.Fn.Name] == nil || p.globals[d.Fn.Name].fn != d.Fn {
			continue
		}
		e := newElab(p, d.Fn.Name, opts)
		e.cur = d.Fn.Pos
		e.run(func() {
			var args []value
			for _, prm := range d.Fn.Params {
				t := e.resolveType(prm.Type)
				if t == nil {
					return
				}
				e.reserve(prm.Pos, t.bits())
				bits := e.b.Input(prm.Name, t.scalar().width, t.scalar().signed, t.dims()...)
				args = append(args, value{t: t, bits: bits})
			}
			e.inline(d.Fn, args, d.Fn.Pos)
		})
	}
}

// checkNewName rejects a second input/output with the same name.
func (e *elab) checkNewName(name string, pos lexer.Position) bool {
	if prev, ok := e.scope.vars[name]; ok {
		e.errorf(pos, "%s redeclared (previous declaration at %s)", name, posString(prev.pos))
		return false
	}
	return true
}

// zero is an all-zero value of type t (the placeholder of unassigned storage).
func (e *elab) zero(t *Type) value {
	e.charge(t.bits())
	bits := make([]ir.NodeID, t.bits())
	for i := range bits {
		bits[i] = e.b.Const(false)
	}
	return value{t: t, bits: bits}
}

// resolveType turns a written type into a Type; nil after reporting an error.
func (e *elab) resolveType(tr *TypeRef) *Type {
	t, ok, err := parseBaseType(tr.Name)
	if !ok {
		e.errorf(tr.Pos, "unknown type %s (types are bit, uN and sN with N in 1..%d, and arrays T[N])", tr.Name, MaxWidth)
		return nil
	}
	if err != nil {
		e.errorf(tr.Pos, "%v", err)
		return nil
	}
	// Dims are written outermost first: u4[3][2] is 3 elements of u4[2].
	for i := len(tr.Dims) - 1; i >= 0; i-- {
		n, ok := e.constInt(tr.Dims[i], "array length")
		if !ok {
			return nil
		}
		if n < 1 || n > maxBits {
			e.errorf(tr.Dims[i].Pos, "array length %d out of range 1..%d", n, maxBits)
			return nil
		}
		t = &Type{kind: kindArray, elem: t, length: int(n)}
		if t.bits() > maxBits {
			e.errorf(tr.Pos, "type %s has %d bits, more than the limit of %d", t, t.bits(), maxBits)
			return nil
		}
	}
	return t
}

// constInt evaluates x as a compile-time integer that fits an int64.
func (e *elab) constInt(x *Expr, what string) (int64, bool) {
	v := e.rvalue(e.expr(x, nil), x.Pos)
	if v.bad() {
		return 0, false
	}
	if !v.konst || v.t.isArray() {
		e.errorf(x.Pos, "%s must be a compile-time constant", what)
		return 0, false
	}
	if !v.c.IsInt64() {
		e.errorf(x.Pos, "%s %v is too large", what, v.c)
		return 0, false
	}
	return v.c.Int64(), true
}

// constEntry is an evaluated const or table: its type and one value per leaf.
type constEntry struct {
	busy bool
	ok   bool
	t    *Type
	vals []*big.Int
}

// global resolves a const or table to a value in the current builder.
func (e *elab) globalValue(name string, g *global, pos lexer.Position) value {
	ce := e.p.consts[name]
	if ce == nil {
		ce = &constEntry{busy: true}
		e.p.consts[name] = ce
		ce.t, ce.vals, ce.ok = e.evalGlobal(g)
		ce.busy = false
	} else if ce.busy {
		e.errorf(pos, "constant %s refers to itself", name)
		return badValue
	}
	if !ce.ok {
		return badValue
	}
	if ce.t.kind == kindUntyped {
		return untypedValue(ce.vals[0])
	}
	w := ce.t.scalar().width
	bits := make([]ir.NodeID, 0, ce.t.bits())
	for _, c := range ce.vals {
		bits = append(bits, stdlib.Constant(e.b, c, w)...)
	}
	v := value{t: ce.t, bits: bits, konst: true}
	if ce.t.isInt() {
		v.c = ce.vals[0]
	}
	return v
}

// evalGlobal evaluates a const or table declaration in an empty scope.
func (e *elab) evalGlobal(g *global) (*Type, []*big.Int, bool) {
	saved, savedFn := e.scope, e.fn
	e.scope, e.fn = nil, nil
	defer func() { e.scope, e.fn = saved, savedFn }()
	var tr *TypeRef
	var x *Expr
	if g.konst != nil {
		tr, x = g.konst.Type, g.konst.Value
	} else {
		tr, x = g.table.Type, g.table.Value
	}
	var t *Type
	if tr != nil {
		if t = e.resolveType(tr); t == nil {
			return nil, nil, false
		}
		if g.table != nil && !t.isArray() {
			e.errorf(tr.Pos, "table type must be an array, got %s", t)
			return nil, nil, false
		}
	}
	v := e.rvalue(e.expr(x, t), x.Pos)
	if t != nil {
		v = e.convert(v, t, x.Pos, "constant")
	}
	if v.bad() {
		return nil, nil, false
	}
	if !v.konst {
		e.errorf(x.Pos, "value of %s must be a compile-time constant", map[bool]string{true: "constant", false: "table"}[g.konst != nil])
		return nil, nil, false
	}
	if v.t.kind == kindUntyped {
		return v.t, []*big.Int{v.c}, true
	}
	s := v.t.scalar()
	vals := make([]*big.Int, 0, v.t.leaves())
	for i := 0; i < len(v.bits); i += s.width {
		c, ok := e.constOf(v.bits[i:i+s.width], s.signed)
		if !ok {
			e.errorf(x.Pos, "value must be a compile-time constant")
			return nil, nil, false
		}
		vals = append(vals, c)
	}
	return v.t, vals, true
}

// constOf reads a bit vector made only of constant nodes as an integer.
func (e *elab) constOf(bits []ir.NodeID, signed bool) (*big.Int, bool) {
	c := new(big.Int)
	for i, id := range bits {
		v, ok := e.b.ConstValue(id)
		if !ok {
			return nil, false
		}
		if v {
			c.SetBit(c, i, 1)
		}
	}
	if signed && len(bits) > 0 && c.Bit(len(bits)-1) == 1 {
		c.Sub(c, new(big.Int).Lsh(big.NewInt(1), uint(len(bits))))
	}
	return c, true
}

// inline elaborates a call of d with already converted arguments.
func (e *elab) inline(d *FnDecl, args []value, pos lexer.Position) value {
	for _, c := range e.calls {
		if c == d {
			path := ""
			for _, c2 := range e.calls {
				path += c2.Name + " -> "
			}
			e.errorf(pos, "recursive call of %s (%s%s): functions are inlined, so recursion is not allowed", d.Name, path, d.Name)
			return badValue
		}
	}
	e.p.inlined[d] = true
	result := e.resolveType(d.Result)
	savedScope, savedFn := e.scope, e.fn
	e.scope = nil
	e.pushScope()
	e.fn = &fnFrame{decl: d, result: result, retCond: e.b.Const(false)}
	e.calls = append(e.calls, d)
	defer func() {
		for s := e.scope; s != nil; s = s.parent { // the callee's scopes end
			e.varBits -= s.bits
		}
		e.scope, e.fn = savedScope, savedFn
		e.calls = e.calls[:len(e.calls)-1]
	}()
	for i, prm := range d.Params {
		if !e.checkNewName(prm.Name, prm.Pos) {
			continue
		}
		v := &variable{name: prm.Name, pos: prm.Pos, kind: varParam, t: args[i].t, val: args[i]}
		if v.t == nil {
			v.t = untypedType // bad argument: keep the name declared, uses stay silent
		}
		e.declareVar(v)
		for j := range v.assigned {
			v.assigned[j] = true
		}
	}
	e.execStmts(d.Body)
	f := e.fn
	if result == nil {
		return badValue
	}
	if !f.done {
		end := d.Body.EndPos // just after the closing brace: point at it
		if end.Column > 1 {
			end.Column--
		}
		e.errorf(end, "missing return at end of function %s", d.Name)
		return badValue
	}
	return f.retVal
}
