package lang

import (
	"math/big"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/stdlib"
)

func isComparison(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// binary elaborates l op r. pos is the operator's position, lpos and rpos
// the operands' (for errors about one side).
func (e *elab) binary(op string, l, r value, pos, lpos, rpos lexer.Position, want *Type) value {
	l, r = e.rvalue(l, lpos), e.rvalue(r, rpos)
	if l.bad() || r.bad() {
		return badValue
	}
	if op == "<<" || op == ">>" {
		return e.shift(op, l, r, pos, rpos, want)
	}
	if l.t.kind == kindUntyped && r.t.kind == kindUntyped {
		return e.constBinary(op, l.c, r.c, pos)
	}
	if l.t.kind == kindUntyped {
		l = e.convert(l, r.t, lpos, "operand of "+op)
	} else if r.t.kind == kindUntyped {
		r = e.convert(r, l.t, rpos, "operand of "+op)
	}
	if l.bad() || r.bad() {
		return badValue
	}
	if !sameType(l.t, r.t) {
		if isComparison(op) && l.t.isInt() && r.t.isInt() && l.t.signed != r.t.signed {
			e.errorf(pos, "cannot compare %s with %s: signedness differs (cast one side)", l.t, r.t)
		} else {
			e.errorf(pos, "mismatched types %s and %s for %s", l.t, r.t, op)
		}
		return badValue
	}
	t := l.t
	if t.isArray() && op != "==" && op != "!=" {
		e.errorf(pos, "operator %s not defined on %s", op, t)
		return badValue
	}
	e.reserve(pos, opCost(op, len(l.bits)))
	e.setPos(pos)
	b, x, y := e.b, l.bits, r.bits
	var bits []ir.NodeID
	switch op {
	case "+":
		bits, _ = stdlib.Add(b, x, y, b.Const(false), e.style)
	case "-":
		bits = stdlib.Sub(b, x, y, e.style)
	case "*":
		bits = stdlib.Mul(b, x, y, e.style)
	case "&", "|", "^":
		bits = make([]ir.NodeID, len(x))
		for i := range x {
			switch op {
			case "&":
				bits[i] = b.And(x[i], y[i])
			case "|":
				bits[i] = b.Or(x[i], y[i])
			default:
				bits[i] = b.Xor(x[i], y[i])
			}
		}
	case "/", "%":
		if !r.konst {
			e.errorf(rpos, "divisor must be a compile-time constant (division by a runtime value is not supported)")
			return badValue
		}
		if r.c.Sign() == 0 {
			e.errorf(rpos, "division by zero")
			return badValue
		}
		q, rem, err := stdlib.DivModConst(b, x, r.c, t.signed, e.style)
		if err != nil {
			e.errorf(rpos, "cannot divide %s by %v: %v", t, r.c, err)
			return badValue
		}
		if bits = q; op == "%" {
			bits = rem
		}
	case "==":
		bits = []ir.NodeID{stdlib.Equal(b, x, y)}
	case "!=":
		bits = []ir.NodeID{b.Not(stdlib.Equal(b, x, y))}
	case "<":
		bits = []ir.NodeID{stdlib.Less(b, x, y, t.signed, e.style)}
	case "<=":
		bits = []ir.NodeID{stdlib.LessEqual(b, x, y, t.signed, e.style)}
	case ">":
		bits = []ir.NodeID{stdlib.Less(b, y, x, t.signed, e.style)}
	case ">=":
		bits = []ir.NodeID{stdlib.LessEqual(b, y, x, t.signed, e.style)}
	}
	if isComparison(op) {
		t = bitType
	}
	return e.finish(t, bits, l, r)
}

// constBinary folds an operator on two untyped integers exactly (no
// wrapping); comparisons give a constant bit.
func (e *elab) constBinary(op string, x, y *big.Int, pos lexer.Position) value {
	z := new(big.Int)
	switch op {
	case "+":
		z.Add(x, y)
	case "-":
		z.Sub(x, y)
	case "*":
		z.Mul(x, y)
	case "/", "%":
		if y.Sign() == 0 {
			e.errorf(pos, "division by zero")
			return badValue
		}
		if op == "/" {
			z.Quo(x, y)
		} else {
			z.Rem(x, y)
		}
	case "&":
		z.And(x, y)
	case "|":
		z.Or(x, y)
	case "^":
		z.Xor(x, y)
	default:
		c := x.Cmp(y)
		res := map[string]bool{"==": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
		e.setPos(pos)
		return value{t: bitType, bits: []ir.NodeID{e.b.Const(res)}, konst: true, c: boolInt(res)}
	}
	if z.BitLen() > maxConstBits {
		e.errorf(pos, "constant result of %s is too large (more than %d bits)", op, maxConstBits)
		return badValue
	}
	return untypedValue(z)
}

func boolInt(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return big.NewInt(0)
}

// shift elaborates l << r and l >> r. The result has l's type; >> is
// arithmetic on signed types. A constant amount selects wires; a runtime
// amount (unsigned) builds a barrel shifter. Amounts >= the width give the
// fill value (0, or -1 for a negative signed operand shifted right).
func (e *elab) shift(op string, l, r value, pos, rpos lexer.Position, want *Type) value {
	if l.t.isArray() || r.t.isArray() {
		e.errorf(pos, "operator %s not defined on arrays", op)
		return badValue
	}
	if r.konst {
		n := r.c
		if n.Sign() < 0 {
			e.errorf(rpos, "negative shift amount %v", n)
			return badValue
		}
		if l.t.kind == kindUntyped {
			if !n.IsInt64() || n.Int64()+int64(l.c.BitLen()) > maxConstBits {
				e.errorf(rpos, "constant shift by %v is too large", n)
				return badValue
			}
			if op == "<<" {
				return untypedValue(new(big.Int).Lsh(l.c, uint(n.Int64())))
			}
			return untypedValue(new(big.Int).Rsh(l.c, uint(n.Int64())))
		}
		w := l.t.width
		k := w
		if n.IsInt64() && n.Int64() < int64(w) {
			k = int(n.Int64())
		}
		e.setPos(pos)
		fill := e.b.Const(false)
		if op == ">>" && l.t.signed {
			fill = l.bits[w-1]
		}
		bits := make([]ir.NodeID, w)
		for i := range bits {
			src := i - k
			if op == ">>" {
				src = i + k
			}
			if src >= 0 && src < w {
				bits[i] = l.bits[src]
			} else {
				bits[i] = fill
			}
		}
		return e.finish(l.t, bits, l)
	}
	if r.t.signed {
		e.errorf(rpos, "shift amount must be unsigned, got %s", r.t)
		return badValue
	}
	if l.t.kind == kindUntyped {
		if want == nil || !want.isInt() {
			e.errorf(pos, "cannot shift untyped integer %v by a runtime amount (cast it, e.g. (%v as u8) %s n)", l.c, l.c, op)
			return badValue
		}
		if l = e.convert(l, want, pos, "shift"); l.bad() {
			return l
		}
	}
	e.setPos(pos)
	var bits []ir.NodeID
	if op == "<<" {
		bits = stdlib.ShiftLeftVar(e.b, l.bits, r.bits)
	} else {
		bits = stdlib.ShiftRightVar(e.b, l.bits, r.bits, l.t.signed)
	}
	return e.finish(l.t, bits, l, r)
}

// opCost is a generous estimate of the gates an operator on w-bit operands
// emits, checked against the budget before building it. A w-bit multiply
// adds about 3w^2 gates in both styles (195332 size, 197637 depth at 256
// bits; TestOpCostMultiply): reserving more refuses multiplies that fit.
func opCost(op string, w int) int {
	switch op {
	case "*":
		return 3*w*w + 64*w
	case "/", "%":
		return 8 * w * w
	}
	return 16 * w
}
