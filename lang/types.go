package lang

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/hcc-fhe/hcc/ir"
)

// Limits keep hostile or mistaken programs from exhausting memory or time.
const (
	// MaxWidth is the widest integer type, u1024/s1024.
	MaxWidth = 1024
	// maxBits bounds the total bits of one value (an array's width times its
	// element count).
	maxBits = 1 << 20
	// maxConstBits bounds the size of untyped compile-time integers.
	maxConstBits = 4 * MaxWidth
)

// kind distinguishes the three families of types.
type kind uint8

const (
	kindUntyped kind = iota // compile-time integer without a width yet
	kindInt                 // bit, uN, sN
	kindArray               // T[N]
)

// Type is an HDL type. Types are compared structurally with sameType.
type Type struct {
	kind   kind
	width  int   // kindInt: bits
	signed bool  // kindInt: two's complement
	elem   *Type // kindArray: element type
	length int   // kindArray: element count
}

var (
	untypedType = &Type{kind: kindUntyped}
	bitType     = &Type{kind: kindInt, width: 1}
)

func intType(width int, signed bool) *Type {
	if width == 1 && !signed {
		return bitType
	}
	return &Type{kind: kindInt, width: width, signed: signed}
}

// String renders the type in HDL syntax ("bit", "u8", "s16", "u4[4]").
func (t *Type) String() string {
	switch t.kind {
	case kindUntyped:
		return "untyped integer"
	case kindInt:
		switch {
		case t.signed:
			return "s" + strconv.Itoa(t.width)
		case t.width == 1:
			return "bit"
		}
		return "u" + strconv.Itoa(t.width)
	}
	base, dims := t.scalar(), t.dims()
	s := base.String()
	for _, d := range dims {
		s += "[" + strconv.Itoa(d) + "]"
	}
	return s
}

func (t *Type) isInt() bool   { return t.kind == kindInt }
func (t *Type) isArray() bool { return t.kind == kindArray }
func (t *Type) isBit() bool   { return t.kind == kindInt && t.width == 1 && !t.signed }

// bits is the number of bits of a value of type t (0 for untyped).
func (t *Type) bits() int {
	switch t.kind {
	case kindInt:
		return t.width
	case kindArray:
		return t.length * t.elem.bits()
	}
	return 0
}

// scalar is the innermost element type of an array (t itself for scalars).
func (t *Type) scalar() *Type {
	for t.kind == kindArray {
		t = t.elem
	}
	return t
}

// dims lists the array lengths, outermost first (nil for scalars).
func (t *Type) dims() []int {
	var d []int
	for ; t.kind == kindArray; t = t.elem {
		d = append(d, t.length)
	}
	return d
}

// leaves is the number of scalar elements in a value of type t.
func (t *Type) leaves() int {
	n := 1
	for ; t.kind == kindArray; t = t.elem {
		n *= t.length
	}
	return n
}

func sameType(a, b *Type) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindInt:
		return a.width == b.width && a.signed == b.signed
	case kindArray:
		return a.length == b.length && sameType(a.elem, b.elem)
	}
	return true
}

// rangeOf returns the smallest and largest value of integer type t.
func rangeOf(t *Type) (lo, hi *big.Int) {
	one := big.NewInt(1)
	if t.signed {
		hi = new(big.Int).Lsh(one, uint(t.width-1))
		lo = new(big.Int).Neg(hi)
		return lo, hi.Sub(hi, one)
	}
	hi = new(big.Int).Lsh(one, uint(t.width))
	return new(big.Int), hi.Sub(hi, one)
}

func fits(v *big.Int, t *Type) bool {
	lo, hi := rangeOf(t)
	return v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0
}

// wrap reduces v to the range of integer type t (two's complement).
func wrap(v *big.Int, t *Type) *big.Int {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(t.width))
	u := new(big.Int).Mod(v, mod)
	if t.signed && u.Bit(t.width-1) == 1 {
		u.Sub(u, mod)
	}
	return u
}

// parseBaseType recognises bit, uN and sN. ok is false for other names;
// err reports a width outside 1..MaxWidth.
func parseBaseType(name string) (t *Type, ok bool, err error) {
	if name == "bit" {
		return bitType, true, nil
	}
	if len(name) < 2 || (name[0] != 'u' && name[0] != 's') {
		return nil, false, nil
	}
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return nil, false, nil
		}
	}
	w, convErr := strconv.Atoi(name[1:])
	if convErr != nil || w < 1 || w > MaxWidth {
		return nil, true, fmt.Errorf("width %s of %s out of range 1..%d", name[1:], name, MaxWidth)
	}
	return intType(w, name[0] == 's'), true, nil
}

// value is the result of elaborating an expression. A value with t == nil
// is "bad": an error was already reported and users stay silent.
type value struct {
	t *Type
	// bits holds the value (typed values only), element-major, LSB first.
	bits []ir.NodeID
	// konst marks a compile-time constant by the language rules (literals,
	// consts, tables, loop variables and operators over constants). For an
	// untyped value c is the integer; for a typed scalar c is its value.
	konst bool
	c     *big.Int
	// undef lists the leaves not yet assigned (nil when all are) and name
	// is the variable they belong to, for "used before assigned" errors.
	undef []bool
	name  string
}

func (v value) bad() bool { return v.t == nil }

var badValue = value{}

func untypedValue(c *big.Int) value { return value{t: untypedType, konst: true, c: c} }

// leaf returns the i-th scalar element of an array value (or the value).
func (v value) slice(t *Type, off, n int, leafOff, leaves int) value {
	out := value{t: t, bits: v.bits[off : off+n], konst: v.konst, name: v.name}
	if v.undef != nil {
		u := v.undef[leafOff : leafOff+leaves]
		for _, x := range u {
			if x {
				out.undef = u
				break
			}
		}
	}
	return out
}
