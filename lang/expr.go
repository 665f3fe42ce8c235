package lang

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

// Expressions are elaborated with an optional wanted type (the context: a
// declared variable, a parameter, the other operand), which is how untyped
// literals get their type.

// maxCallDepth bounds nested inlining (recursion is rejected anyway).
const maxCallDepth = 64

func bigInt(i int64) *big.Int { return big.NewInt(i) }

// rvalue rejects a value that still has unassigned leaves.
func (e *elab) rvalue(v value, pos lexer.Position) value {
	if v.undef != nil {
		e.errorf(pos, "%s is used before it is assigned", v.name)
		return badValue
	}
	return v
}

// convert makes v usable where type t is required: untyped constants take
// the type if they fit, typed values must match exactly.
func (e *elab) convert(v value, t *Type, pos lexer.Position, what string) value {
	if v.bad() || t == nil {
		return badValue
	}
	if v.t.kind == kindUntyped {
		if !t.isInt() {
			e.errorf(pos, "cannot use untyped integer %v as %s in %s", v.c, t, what)
			return badValue
		}
		if !fits(v.c, t) {
			e.errorf(pos, "constant %v overflows %s", v.c, t)
			return badValue
		}
		e.setPos(pos)
		return value{t: t, bits: stdlib.Constant(e.b, v.c, t.width), konst: true, c: v.c}
	}
	if !sameType(v.t, t) {
		e.errorf(pos, "cannot use %s value as %s in %s", v.t, t, what)
		return badValue
	}
	return v
}

// finish marks a typed result constant when all its operands were, reading
// the value back from the folded constant bits.
func (e *elab) finish(t *Type, bits []ir.NodeID, operands ...value) value {
	v := value{t: t, bits: bits, konst: true}
	for _, o := range operands {
		v.konst = v.konst && o.konst
	}
	if v.konst && t.isInt() {
		v.c, v.konst = e.constOf(bits, t.signed)
	}
	return v
}

func (e *elab) expr(x *Expr, want *Type) value {
	if x.Then == nil {
		return e.compare(x.Cond, want)
	}
	c := e.rvalue(e.compare(x.Cond, bitType), x.Cond.Pos)
	cond := e.condValue(c, x.Cond.Pos)
	if cond.bad() {
		e.expr(x.Then, want)
		e.expr(x.Else, want)
		return badValue
	}
	if cond.konst { // compile-time: only the taken arm is elaborated
		if cond.c.Sign() != 0 {
			return e.expr(x.Then, want)
		}
		return e.expr(x.Else, want)
	}
	t := e.rvalue(e.expr(x.Then, want), x.Then.Pos)
	f := e.rvalue(e.expr(x.Else, want), x.Else.Pos)
	if t.bad() || f.bad() {
		return badValue
	}
	switch {
	case t.t.kind == kindUntyped && f.t.kind == kindUntyped:
		if want == nil || !want.isInt() {
			e.errorf(x.Pos, "cannot infer the type of a runtime conditional between two untyped integers (cast one arm)")
			return badValue
		}
		t, f = e.convert(t, want, x.Then.Pos, "conditional"), e.convert(f, want, x.Else.Pos, "conditional")
	case t.t.kind == kindUntyped:
		t = e.convert(t, f.t, x.Then.Pos, "conditional")
	case f.t.kind == kindUntyped:
		f = e.convert(f, t.t, x.Else.Pos, "conditional")
	}
	if t.bad() || f.bad() {
		return badValue
	}
	if !sameType(t.t, f.t) {
		e.errorf(x.Pos, "mismatched types %s and %s in the arms of a conditional", t.t, f.t)
		return badValue
	}
	e.setPos(x.Pos)
	return e.muxValue(cond.bits[0], t, f)
}

// condValue checks that v can select: a bit, or an untyped 0 or 1.
func (e *elab) condValue(v value, pos lexer.Position) value {
	if v.bad() {
		return v
	}
	if v.t.kind == kindUntyped {
		if v.c.Sign() != 0 && v.c.Cmp(bigInt(1)) != 0 {
			e.errorf(pos, "condition must be a bit, got constant %v", v.c)
			return badValue
		}
		return e.convert(v, bitType, pos, "condition")
	}
	if !v.t.isBit() {
		e.errorf(pos, "condition must be a bit, got %s (compare it, e.g. x != 0)", v.t)
		return badValue
	}
	return v
}

func (e *elab) compare(c *Compare, want *Type) value {
	if c.Op == "" {
		return e.additive(c.Left, want)
	}
	l := e.additive(c.Left, nil)
	r := e.additive(c.Right, nil)
	return e.binary(c.Op, l, r, c.Pos, c.Left.Pos, c.Right.Pos, nil)
}

func (e *elab) additive(a *Additive, want *Type) value {
	v := e.multiplicative(a.Left, want)
	lpos := a.Left.Pos
	for _, op := range a.Rest {
		r := e.multiplicative(op.Right, want)
		v = e.binary(op.Op, v, r, op.Pos, lpos, op.Right.Pos, want)
	}
	return v
}

func (e *elab) multiplicative(m *Multiplicative, want *Type) value {
	v := e.cast(m.Left, want)
	lpos := m.Left.Pos
	for _, op := range m.Rest {
		var r value
		if op.Op == "<<" || op.Op == ">>" {
			r = e.cast(op.Right, nil) // the amount's type is independent
		} else {
			r = e.cast(op.Right, want)
		}
		v = e.binary(op.Op, v, r, op.Pos, lpos, op.Right.Pos, want)
	}
	return v
}

func (e *elab) cast(c *Cast, want *Type) value {
	if len(c.To) == 0 {
		return e.unary(c.Value, want)
	}
	v := e.rvalue(e.unary(c.Value, nil), c.Value.Pos)
	for _, tr := range c.To {
		t := e.resolveType(tr)
		if v.bad() || t == nil {
			return badValue
		}
		if !t.isInt() {
			e.errorf(tr.Pos, "cannot cast to array type %s", t)
			return badValue
		}
		e.setPos(tr.Pos)
		switch {
		case v.t.kind == kindUntyped: // constants wrap, like the typed cast
			w := wrap(v.c, t)
			v = value{t: t, bits: stdlib.Constant(e.b, w, t.width), konst: true, c: w}
		case v.t.isArray():
			e.errorf(c.Pos, "cannot cast %s to %s", v.t, t)
			return badValue
		default:
			bits := make([]ir.NodeID, t.width)
			fill := e.b.Const(false)
			if v.t.signed { // extension follows the source's signedness
				fill = v.bits[len(v.bits)-1]
			}
			for i := range bits {
				if i < len(v.bits) {
					bits[i] = v.bits[i]
				} else {
					bits[i] = fill
				}
			}
			v = e.finish(t, bits, v)
		}
	}
	return v
}

func (e *elab) unary(u *Unary, want *Type) value {
	if u.Value != nil {
		return e.postfix(u.Value, want)
	}
	if u.Op == "!" {
		want = bitType
	}
	v := e.rvalue(e.unary(u.Operand, want), u.Operand.Pos)
	if v.bad() {
		return v
	}
	if v.t.isArray() {
		e.errorf(u.Pos, "operator %s not defined on %s", u.Op, v.t)
		return badValue
	}
	e.setPos(u.Pos)
	switch u.Op {
	case "-":
		if v.t.kind == kindUntyped {
			return untypedValue(new(big.Int).Neg(v.c))
		}
		return e.finish(v.t, stdlib.Neg(e.b, v.bits, e.style), v)
	case "~":
		if v.t.kind == kindUntyped {
			return untypedValue(new(big.Int).Not(v.c))
		}
		return e.finish(v.t, e.notBits(v.bits), v)
	default: // "!"
		if !v.t.isBit() {
			e.errorf(u.Pos, "operator ! requires a bit, got %s (use ~ for bitwise not)", v.t)
			return badValue
		}
		return e.finish(v.t, e.notBits(v.bits), v)
	}
}

func (e *elab) notBits(x []ir.NodeID) []ir.NodeID {
	out := make([]ir.NodeID, len(x))
	for i, id := range x {
		out[i] = e.b.Not(id)
	}
	return out
}

func (e *elab) postfix(p *Postfix, want *Type) value {
	if len(p.Indices) == 0 {
		return e.primary(p.Value, want)
	}
	v := e.primary(p.Value, nil)
	for _, s := range p.Indices {
		if v.bad() {
			return v
		}
		if s.Low != nil {
			v = e.slice(v, s)
		} else {
			v = e.index(v, s)
		}
	}
	return v
}

// slice is x[hi:lo] on an integer: bits hi down to lo, unsigned.
func (e *elab) slice(v value, s *Suffix) value {
	v = e.rvalue(v, s.Pos)
	if v.bad() {
		return v
	}
	if !v.t.isInt() {
		e.errorf(s.Pos, "cannot slice %s (slices apply to bit, uN and sN values; cast constants first)", v.t)
		return badValue
	}
	hi, ok1 := e.constInt(s.Index, "slice bound")
	lo, ok2 := e.constInt(s.Low, "slice bound")
	if !ok1 || !ok2 {
		return badValue
	}
	if lo < 0 || hi >= int64(v.t.width) || hi < lo {
		e.errorf(s.Pos, "slice [%d:%d] out of range for %s (need %d >= hi >= lo >= 0)", hi, lo, v.t, v.t.width-1)
		return badValue
	}
	return e.finish(intType(int(hi-lo+1), false), v.bits[lo:hi+1], v)
}

// index is x[i]: an array element or a single bit of an integer, with a
// constant or runtime index.
func (e *elab) index(v value, s *Suffix) value {
	idx := e.rvalue(e.expr(s.Index, nil), s.Index.Pos)
	if idx.bad() {
		return badValue
	}
	if v.t.kind == kindUntyped {
		e.errorf(s.Pos, "cannot index an untyped integer (cast it first)")
		return badValue
	}
	length, elemT := v.t.width, bitType
	if v.t.isArray() {
		length, elemT = v.t.length, v.t.elem
	}
	size, leaves := elemT.bits(), elemT.leaves()
	if idx.konst && !idx.t.isArray() {
		k := idx.c
		if !k.IsInt64() || k.Sign() < 0 || k.Int64() >= int64(length) {
			e.errorf(s.Index.Pos, "index %v out of range for %s (length %d)", k, v.t, length)
			return badValue
		}
		i := int(k.Int64())
		if !v.t.isArray() {
			v = e.rvalue(v, s.Pos)
			if v.bad() {
				return v
			}
		}
		el := v.slice(elemT, i*size, size, min(i*leaves, len(v.undef)), leaves)
		if el.undef != nil {
			el.name = fmt.Sprintf("%s[%d]", v.name, i)
		}
		if el.konst && elemT.isInt() {
			el.c, el.konst = e.constOf(el.bits, elemT.signed)
		}
		return el
	}
	v = e.rvalue(v, s.Pos)
	if v.bad() || !e.checkRuntimeIndex(idx, s.Index.Pos) {
		return badValue
	}
	e.setPos(s.Pos)
	e.charge(len(v.bits))
	e.reserve(s.Pos, len(v.bits))
	elems := make([][]ir.NodeID, length)
	for i := range elems {
		elems[i] = v.bits[i*size : (i+1)*size]
	}
	return e.finish(elemT, stdlib.SelectIndex(e.b, elems, idx.bits), v, idx)
}

func (e *elab) checkRuntimeIndex(idx value, pos lexer.Position) bool {
	if !idx.t.isInt() || idx.t.signed {
		e.errorf(pos, "index must be an unsigned integer, got %s", idx.t)
		return false
	}
	return true
}

// indexEquals is the bit "index == k".
func (e *elab) indexEquals(index []ir.NodeID, k int) ir.NodeID {
	kb := big.NewInt(int64(k))
	if kb.BitLen() > len(index) {
		return e.b.Const(false)
	}
	return stdlib.Equal(e.b, index, stdlib.Constant(e.b, kb, len(index)))
}

func (e *elab) primary(p *Primary, want *Type) value {
	switch {
	case p.Int != nil:
		c, err := parseIntLit(*p.Int)
		if err != nil {
			e.errorf(p.Pos, "%v", err)
			return badValue
		}
		return untypedValue(c)
	case p.Name != nil && p.Args != nil:
		return e.call(*p.Name, p.Args, p.Pos)
	case p.Name != nil:
		return e.name(*p.Name, p.Pos)
	case p.Paren != nil:
		return e.expr(p.Paren, want)
	case p.Concat != nil:
		return e.concat(p)
	case p.Array != nil:
		return e.arrayLit(p.Array, want)
	}
	return badValue
}

// parseIntLit reads decimal, 0x and 0b literals with _ separators.
func parseIntLit(s string) (*big.Int, error) {
	digits, base := strings.ReplaceAll(s, "_", ""), 10
	switch {
	case strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X"):
		digits, base = digits[2:], 16
	case strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0B"):
		digits, base = digits[2:], 2
	}
	c, ok := new(big.Int).SetString(digits, base)
	if digits == "" || !ok {
		return nil, fmt.Errorf("malformed integer literal %s", s)
	}
	if c.BitLen() > maxConstBits {
		return nil, fmt.Errorf("integer literal %s is too large (more than %d bits)", s, maxConstBits)
	}
	return c, nil
}

func (e *elab) name(n string, pos lexer.Position) value {
	if e.scope != nil {
		if v := e.scope.lookup(n); v != nil {
			val := v.val
			if val.bad() {
				return val
			}
			for _, ok := range v.assigned {
				if !ok {
					val.undef = make([]bool, len(v.assigned))
					for i, a := range v.assigned {
						val.undef[i] = !a
					}
					val.name = n
					break
				}
			}
			return val
		}
	}
	g := e.p.globals[n]
	switch {
	case g == nil:
		e.errorf(pos, "undefined: %s", n)
		return badValue
	case g.konst != nil || g.table != nil:
		return e.globalValue(n, g, pos)
	case g.fn != nil:
		e.errorf(pos, "function %s used as a value (call it: %s(...))", n, n)
	default:
		e.errorf(pos, "circuit %s cannot be used in an expression", n)
	}
	return badValue
}

func (e *elab) call(n string, args *CallArgs, pos lexer.Position) value {
	g := e.p.globals[n]
	if g == nil || g.fn == nil {
		if g == nil && (e.scope == nil || e.scope.lookup(n) == nil) {
			e.errorf(pos, "undefined function %s", n)
		} else {
			e.errorf(pos, "%s is not a function", n)
		}
		for _, a := range args.Args {
			e.expr(a, nil)
		}
		return badValue
	}
	d := g.fn
	if len(args.Args) != len(d.Params) {
		e.errorf(pos, "%s takes %d argument%s, got %d", n, len(d.Params), plural(len(d.Params)), len(args.Args))
		return badValue
	}
	if len(e.calls) >= maxCallDepth {
		e.errorf(pos, "calls nested more than %d deep", maxCallDepth)
		return badValue
	}
	vals := make([]value, len(args.Args))
	ok := true
	for i, a := range args.Args {
		t := e.resolveType(d.Params[i].Type)
		v := e.rvalue(e.expr(a, t), a.Pos)
		vals[i] = e.convert(v, t, a.Pos, fmt.Sprintf("argument %d of %s", i+1, n))
		ok = ok && !vals[i].bad()
	}
	if !ok {
		return badValue
	}
	return e.inline(d, vals, pos)
}

// concat is {a, b, ...}: a is the most significant part; the result is unsigned.
func (e *elab) concat(p *Primary) value {
	var bits []ir.NodeID
	var parts []value
	ok := true
	for i := len(p.Concat) - 1; i >= 0; i-- {
		x := p.Concat[i]
		v := e.rvalue(e.expr(x, nil), x.Pos)
		switch {
		case v.bad():
			ok = false
		case v.t.kind == kindUntyped:
			e.errorf(x.Pos, "untyped integer %v in a concatenation has no width (cast it, e.g. %v as u4)", v.c, v.c)
			ok = false
		case v.t.isArray():
			e.errorf(x.Pos, "cannot concatenate %s (only bit, uN and sN)", v.t)
			ok = false
		default:
			bits = append(bits, v.bits...)
			parts = append(parts, v)
		}
	}
	if !ok {
		return badValue
	}
	if len(bits) > MaxWidth {
		e.errorf(p.Pos, "concatenation is %d bits wide, more than %d", len(bits), MaxWidth)
		return badValue
	}
	return e.finish(intType(len(bits), false), bits, parts...)
}

// arrayLit is [e0, e1, ...]; the element type comes from the context or,
// failing that, from the first typed element.
func (e *elab) arrayLit(a *ArrayLit, want *Type) value {
	vals := make([]value, len(a.Elems))
	var elemT *Type
	if want != nil && want.isArray() {
		elemT = want.elem
		if len(a.Elems) != want.length {
			e.errorf(a.Pos, "array literal has %d elements, %s needs %d", len(a.Elems), want, want.length)
			return badValue
		}
	}
	ok := true
	for i, x := range a.Elems {
		vals[i] = e.rvalue(e.expr(x, elemT), x.Pos)
		if vals[i].bad() {
			ok = false
		} else if elemT == nil && vals[i].t.kind != kindUntyped {
			elemT = vals[i].t
		}
	}
	if !ok {
		return badValue
	}
	if len(a.Elems) == 0 {
		e.errorf(a.Pos, "empty array literal")
		return badValue
	}
	if elemT == nil {
		e.errorf(a.Pos, "cannot infer the element type of an array literal of untyped integers (declare the type, e.g. let a: u8[%d] = [...])", len(a.Elems))
		return badValue
	}
	t := &Type{kind: kindArray, elem: elemT, length: len(a.Elems)}
	if t.bits() > maxBits {
		e.errorf(a.Pos, "array literal of %d bits exceeds the limit of %d", t.bits(), maxBits)
		return badValue
	}
	e.charge(t.bits())
	var bits []ir.NodeID
	konst := true
	for i, x := range a.Elems {
		v := e.convert(vals[i], elemT, x.Pos, "array literal")
		if v.bad() {
			return badValue
		}
		bits = append(bits, v.bits...)
		konst = konst && v.konst
	}
	return value{t: t, bits: bits, konst: konst}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
