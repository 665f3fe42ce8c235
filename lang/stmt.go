package lang

import (
	"math/big"
	"slices"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/hcc-fhe/hcc/ir"
)

// execBlock runs a block in a new scope.
func (e *elab) execBlock(b *Block) {
	e.pushScope()
	e.execStmts(b)
	e.popScope()
}

// execStmts runs the statements of b in the current scope. Code after a
// return that is taken on every path is an error, unless the return was
// only chosen by a compile-time value: `if c { return x; } return y;` is
// fine when a call passes a constant c, and the rest is not elaborated.
func (e *elab) execStmts(b *Block) {
	for _, s := range b.Stmts {
		if e.fn != nil && e.fn.done {
			if !e.fn.doneByConst {
				e.errorf(s.Pos, "unreachable code after return")
			}
			return
		}
		e.exec(s)
	}
}

func (e *elab) exec(s *Stmt) {
	e.cur = s.Pos
	e.step(s.Pos)
	e.setPos(s.Pos)
	switch {
	case s.Let != nil:
		e.execLet(s.Let)
	case s.Assign != nil:
		e.execAssign(s.Assign)
	case s.For != nil:
		e.execFor(s.For)
	case s.If != nil:
		e.execIf(s.If)
	case s.Return != nil:
		e.execReturn(s.Return)
	case s.Block != nil:
		e.execBlock(s.Block)
	}
}

func (e *elab) execLet(l *LetStmt) {
	var t *Type
	if l.Type != nil {
		if t = e.resolveType(l.Type); t == nil {
			e.declareVar(&variable{name: l.Name, pos: l.Pos, kind: varLocal, t: untypedType, val: badValue})
			return
		}
	}
	v := &variable{name: l.Name, pos: l.Pos, kind: varLocal, t: t}
	if l.Value == nil {
		if t == nil {
			e.errorf(l.Pos, "let %s needs a type or an initial value", l.Name)
			v.t, v.val = untypedType, badValue
			e.declareVar(v)
			return
		}
		v.val = e.zero(t)
		e.declareVar(v)
		return
	}
	// The initialiser is evaluated before the name is declared, so
	// `let x = x + 1;` reads the outer x.
	val := e.rvalue(e.expr(l.Value, t), l.Value.Pos)
	if t != nil {
		val = e.convert(val, t, l.Value.Pos, "let "+l.Name)
	} else if !val.bad() {
		v.t = val.t
	}
	if v.t == nil {
		v.t = untypedType
	}
	v.val = val
	e.declareVar(v)
	for i := range v.assigned {
		v.assigned[i] = true
	}
	v.ever = true
}

func (e *elab) execAssign(a *AssignStmt) {
	v := e.scope.lookup(a.Name)
	if v == nil {
		if g := e.p.globals[a.Name]; g != nil {
			e.errorf(a.Pos, "cannot assign to %s: it is a global %s", a.Name, globalKind(g))
		} else {
			e.errorf(a.Pos, "undefined: %s", a.Name)
		}
		return
	}
	switch v.kind {
	case varInput:
		e.errorf(a.Pos, "cannot assign to input %s", a.Name)
		return
	case varLoop:
		e.errorf(a.Pos, "cannot assign to loop variable %s", a.Name)
		return
	}
	// Past this point every error marks v assigned (markAssigned): the
	// statement was meant to assign it, so no "never assigned" error
	// follows the real one.
	if v.val.bad() {
		// The variable's declaration or an earlier assignment failed:
		// still check the value, then keep it silently bad.
		e.expr(a.Value, nil)
		e.markAssigned(v)
		return
	}
	if v.t.kind == kindUntyped {
		if len(a.Indices) > 0 {
			e.errorf(a.Indices[0].Pos, "cannot index %s: it is an untyped integer", a.Name)
			e.markAssigned(v)
			return
		}
		val := e.rvalue(e.expr(a.Value, nil), a.Value.Pos)
		if val.bad() {
			e.markAssigned(v)
			return
		}
		if val.t.kind != kindUntyped {
			e.errorf(a.Value.Pos, "cannot assign %s value to %s, an untyped compile-time integer (declare it with a type, e.g. let %s: %s = ...)", val.t, a.Name, a.Name, val.t)
			e.markAssigned(v)
			return
		}
		v.val = val
		v.ever = true
		return
	}
	// Walk the index path: each candidate is a (bit offset, leaf offset,
	// condition) triple; a runtime index fans out into one candidate per element.
	type target struct {
		off, leaf int
		cond      ir.NodeID
	}
	cands := []target{{0, 0, e.b.Const(true)}}
	t := v.t
	runtime := false
	for _, ix := range a.Indices {
		if !t.isArray() {
			e.errorf(ix.Pos, "cannot assign to an index of %s (%s): only array elements are assignable; build the value with {...} instead", a.Name, t)
			e.markAssigned(v)
			return
		}
		idx := e.rvalue(e.expr(ix, nil), ix.Pos)
		if idx.bad() {
			e.markAssigned(v)
			return
		}
		size, leaves := t.elem.bits(), t.elem.leaves()
		if idx.konst && !idx.t.isArray() {
			k := idx.c.Int64()
			if !idx.c.IsInt64() || k < 0 || k >= int64(t.length) {
				e.errorf(ix.Pos, "index %v out of range for %s (length %d)", idx.c, t, t.length)
				e.markAssigned(v)
				return
			}
			for i := range cands {
				cands[i].off += int(k) * size
				cands[i].leaf += int(k) * leaves
			}
		} else {
			if !e.checkRuntimeIndex(idx, ix.Pos) {
				e.markAssigned(v)
				return
			}
			runtime = true
			e.setPos(ix.Pos)
			var next []target
			for _, c := range cands {
				for k := 0; k < t.length; k++ {
					eq := e.indexEquals(idx.bits, k)
					next = append(next, target{c.off + k*size, c.leaf + k*leaves, e.b.And(c.cond, eq)})
				}
			}
			cands = next
		}
		t = t.elem
	}
	val := e.rvalue(e.expr(a.Value, t), a.Value.Pos)
	val = e.convert(val, t, a.Value.Pos, "assignment to "+a.Name)
	if val.bad() {
		// Reported already; marking the target assigned avoids a second,
		// misleading "never assigned" error.
		e.markAssigned(v)
		return
	}
	leaves := t.leaves()
	if runtime {
		for _, c := range cands {
			for l := c.leaf; l < c.leaf+leaves; l++ {
				if !v.assigned[l] {
					e.errorf(a.Pos, "%s is assigned with a runtime index before all its elements are assigned", a.Name)
					e.markAssigned(v)
					return
				}
			}
		}
	}
	e.charge(len(v.val.bits) + len(cands)*len(val.bits))
	e.setPos(a.Pos)
	bits := append([]ir.NodeID(nil), v.val.bits...)
	for _, c := range cands {
		for i, id := range val.bits {
			bits[c.off+i] = e.b.Mux(c.cond, id, bits[c.off+i])
		}
		for l := c.leaf; l < c.leaf+leaves; l++ {
			v.assigned[l] = true
		}
	}
	konst := val.konst && (len(a.Indices) == 0 || v.val.konst) && !runtime
	v.val = value{t: v.t, bits: bits, konst: konst}
	if konst && v.t.isInt() {
		v.val.c = val.c
	}
	v.ever = true
}

// markAssigned poisons v after a failed assignment: it counts as assigned
// and every later use stays silent.
func (e *elab) markAssigned(v *variable) {
	v.val = badValue
	for i := range v.assigned {
		v.assigned[i] = true
	}
	v.ever = true
}

func globalKind(g *global) string {
	switch {
	case g.konst != nil:
		return "constant"
	case g.table != nil:
		return "table"
	case g.fn != nil:
		return "function"
	}
	return "circuit"
}

func (e *elab) execFor(f *ForStmt) {
	from, ok1 := e.constInt(f.From, "loop bound")
	to, ok2 := e.constInt(f.To, "loop bound")
	if !ok1 || !ok2 {
		e.checkFailedLoop(f)
		return
	}
	if n := new(big.Int).Sub(bigInt(to), bigInt(from)); n.Cmp(bigInt(maxLoop)) > 0 {
		// Once per loop: an inner loop's bound may differ at every
		// iteration of an outer one, and one error says it.
		if key := (errKey{f.Pos, "\x00loop limit"}); !e.p.seen[key] {
			e.errorf(f.Pos, "loop of %v iterations exceeds the limit of %d", n, maxLoop)
			e.p.seen[key] = true
		}
		e.checkFailedLoop(f)
		return
	}
	for i := from; i < to; i++ {
		e.step(f.Pos) // empty bodies still cost: nested loops multiply
		e.pushScope()
		lv := &variable{name: f.Var, pos: f.Pos, kind: varLoop, t: untypedType, val: untypedValue(bigInt(i))}
		e.declareVar(lv)
		lv.assigned[0] = true
		e.execStmts(f.Body)
		e.popScope()
		if e.fn != nil && e.fn.done {
			e.fn.doneByConst = true // the loop bounds decided it
			return
		}
	}
}

// checkFailedLoop checks the body of a loop whose bounds were reported
// bad, once, with a bad loop variable, for errors of its own. Whatever the
// body assigns becomes silently bad, and a return in it counts as taken, so
// that no "never assigned" or "missing return" follows the real error.
func (e *elab) checkFailedLoop(f *ForStmt) {
	snap := e.snapshot()
	e.pushScope()
	lv := badVariable(f.Var, f.Pos, varLoop)
	e.declareVar(lv)
	lv.assigned[0] = true
	e.execStmts(f.Body)
	e.popScope()
	body := e.snapshot()
	returned := e.fn != nil && e.fn.done
	e.restore(snap)
	for i, v := range snap.vars {
		if body.ever[i] != snap.ever[i] || !slices.Equal(body.assigned[i], snap.assigned[i]) {
			e.markAssigned(v)
		}
	}
	if returned && !e.fn.done {
		e.fn.done, e.fn.doneByConst = true, true
		e.fn.retVal, e.fn.hasRet = badValue, true
	}
}

func (e *elab) execIf(s *IfStmt) {
	cond := e.condition(s.Cond)
	if cond.bad() {
		// Check both branches for errors; whatever either branch assigns
		// becomes silently bad, so no "never assigned" error follows.
		snap := e.snapshot()
		e.execBlock(s.Then)
		th := e.snapshot()
		e.restore(snap)
		e.execElse(s)
		el := e.snapshot()
		e.restore(snap)
		for i, v := range snap.vars {
			if th.ever[i] != snap.ever[i] || el.ever[i] != snap.ever[i] {
				e.markAssigned(v)
			}
		}
		return
	}
	if cond.konst {
		if cond.c.Sign() != 0 {
			e.execBlock(s.Then)
		} else {
			e.execElse(s)
		}
		if e.fn != nil && e.fn.done {
			e.fn.doneByConst = true
		}
		return
	}
	sel := cond.bits[0]
	snap := e.snapshot()
	e.execBlock(s.Then)
	thenState := e.snapshot()
	e.restore(snap)
	e.execElse(s)
	elseState := e.snapshot()
	e.setPos(s.Pos) // the merging muxes belong to the if
	e.merge(s.Pos, sel, thenState, elseState)
}

func (e *elab) execElse(s *IfStmt) {
	switch {
	case s.ElseIf != nil:
		e.step(s.ElseIf.Pos)
		e.execIf(s.ElseIf)
	case s.Else != nil:
		e.execBlock(s.Else)
	}
}

// condition evaluates an if/ternary condition: a bit, or an untyped 0 or 1.
func (e *elab) condition(x *Expr) value {
	v := e.rvalue(e.expr(x, bitType), x.Pos)
	if v.bad() {
		return v
	}
	if v.t.kind == kindUntyped {
		if v.c.Sign() != 0 && v.c.Cmp(bigInt(1)) != 0 {
			e.errorf(x.Pos, "condition must be a bit, got constant %v", v.c)
			return badValue
		}
		return e.convert(v, bitType, x.Pos, "condition")
	}
	if !v.t.isBit() {
		e.errorf(x.Pos, "condition must be a bit, got %s (compare it, e.g. x != 0)", v.t)
		return badValue
	}
	return v
}

func (e *elab) execReturn(r *ReturnStmt) {
	if e.fn == nil {
		e.errorf(r.Pos, "return outside a function (circuits assign their outputs)")
		return
	}
	f := e.fn
	v := e.rvalue(e.expr(r.Value, f.result), r.Value.Pos)
	if f.result != nil {
		v = e.convert(v, f.result, r.Value.Pos, "return")
	}
	if !v.bad() {
		e.setPos(r.Pos)
		if f.hasRet && !f.retVal.bad() {
			v = e.muxValue(f.retCond, f.retVal, v)
		}
		f.retVal = v
	} else {
		f.retVal = badValue
	}
	f.hasRet = true
	f.retCond = e.b.Const(true)
	f.done = true
}

// state is a saved copy of every visible variable and of the call frame.
type state struct {
	vars     []*variable
	vals     []value
	assigned [][]bool
	ever     []bool
	fn       fnFrame
}

func (e *elab) snapshot() *state {
	st := &state{}
	for s := e.scope; s != nil; s = s.parent {
		for _, v := range s.order {
			st.vars = append(st.vars, v)
			st.vals = append(st.vals, v.val)
			e.charge(len(v.assigned))
			st.assigned = append(st.assigned, append([]bool(nil), v.assigned...))
			st.ever = append(st.ever, v.ever)
		}
	}
	if e.fn != nil {
		st.fn = *e.fn
	}
	return st
}

func (e *elab) restore(st *state) {
	for i, v := range st.vars {
		v.val = st.vals[i]
		copy(v.assigned, st.assigned[i])
		v.ever = st.ever[i]
	}
	if e.fn != nil {
		*e.fn = st.fn
	}
}

// merge joins the two branches of a runtime if: every variable becomes
// sel ? then : else, and is assigned only where both branches assigned it.
func (e *elab) merge(pos lexer.Position, sel ir.NodeID, th, el *state) {
	for i, v := range th.vars {
		tv, ev := th.vals[i], el.vals[i]
		switch {
		case tv.bad() || ev.bad():
			v.val = badValue
		case tv.t.kind == kindUntyped:
			if tv.c.Cmp(ev.c) != 0 {
				e.errorf(pos, "untyped variable %s gets different values in the branches of a runtime if (declare it with a type)", v.name)
			}
			v.val = tv
		default:
			v.val = e.muxValue(sel, tv, ev)
		}
		for j := range v.assigned {
			v.assigned[j] = th.assigned[i][j] && el.assigned[i][j]
		}
		v.ever = th.ever[i] || el.ever[i]
	}
	if e.fn != nil {
		tf, ef := th.fn, el.fn
		f := e.fn
		f.hasRet = tf.hasRet || ef.hasRet
		switch {
		case tf.hasRet && ef.hasRet && !tf.retVal.bad() && !ef.retVal.bad():
			f.retVal = e.muxValue(sel, tf.retVal, ef.retVal)
		case tf.hasRet:
			f.retVal = tf.retVal
		case ef.hasRet:
			f.retVal = ef.retVal
		}
		f.retCond = e.b.Mux(sel, tf.retCond, ef.retCond)
		f.done = tf.done && ef.done
		f.doneByConst = tf.doneByConst || ef.doneByConst
	}
}

// muxValue is sel ? t : f for two values of the same type.
func (e *elab) muxValue(sel ir.NodeID, t, f value) value {
	e.charge(len(t.bits))
	bits := make([]ir.NodeID, len(t.bits))
	same := true
	for i := range bits {
		bits[i] = e.b.Mux(sel, t.bits[i], f.bits[i])
		same = same && t.bits[i] == f.bits[i]
	}
	out := value{t: t.t, bits: bits}
	// Only identical constants stay constant: a runtime select of two
	// different constants is a runtime value.
	if same && t.konst && f.konst {
		out.konst, out.c = true, t.c
	}
	return out
}
