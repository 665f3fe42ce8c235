package lang

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Random differential testing: generate typed expression trees over
// a: u8 and b: s8, print them with the fewest parentheses the precedence
// rules allow (so the parser's precedence is exercised), compile, and
// compare with a Go evaluation of the same tree.

type rnode struct {
	op     string // "a", "b", "lit", binary op, "neg", "not", "?:", "as"
	signed bool   // type of the node: s8 or u8
	lit    int64
	kids   []*rnode
	cmp    string // comparison of the ?: condition
}

// Precedence levels, loosest first, as in the grammar.
const (
	precTernary = iota + 1
	precCompare
	precAdd
	precMul
	precCast
	precUnary
	precPrimary
)

func binPrec(op string) int {
	switch op {
	case "+", "-", "|", "^":
		return precAdd
	}
	return precMul
}

func (n *rnode) prec() int {
	switch n.op {
	case "a", "b":
		return precPrimary
	case "lit":
		if n.lit < 0 {
			return precUnary
		}
		return precPrimary
	case "neg", "not":
		return precUnary
	case "as":
		return precCast
	case "?:":
		return precTernary
	}
	return binPrec(n.op)
}

func wrapIf(s string, paren bool) string {
	if paren {
		return "(" + s + ")"
	}
	return s
}

func (n *rnode) String() string {
	switch n.op {
	case "a", "b":
		return n.op
	case "lit":
		return fmt.Sprint(n.lit)
	case "neg":
		return "-" + wrapIf(n.kids[0].String(), n.kids[0].prec() < precUnary)
	case "not":
		return "~" + wrapIf(n.kids[0].String(), n.kids[0].prec() < precUnary)
	case "as":
		t := "u8"
		if n.signed {
			t = "s8"
		}
		return wrapIf(n.kids[0].String(), n.kids[0].prec() < precUnary) + " as " + t
	case "?:":
		c := wrapIf(n.kids[0].String(), n.kids[0].prec() < precAdd) + " " + n.cmp + " " +
			wrapIf(n.kids[1].String(), n.kids[1].prec() < precAdd)
		return c + " ? " + n.kids[2].String() + " : " + n.kids[3].String()
	}
	p := binPrec(n.op)
	return wrapIf(n.kids[0].String(), n.kids[0].prec() < p) + " " + n.op + " " +
		wrapIf(n.kids[1].String(), n.kids[1].prec() <= p)
}

// gen builds a random tree of the given type; it always contains a variable.
func gen(rng *rand.Rand, signed bool, depth int) *rnode {
	if depth == 0 || rng.IntN(5) == 0 {
		if signed {
			return &rnode{op: "b", signed: true}
		}
		return &rnode{op: "a"}
	}
	switch k := rng.IntN(10); {
	case k < 5:
		ops := []string{"+", "-", "*", "&", "|", "^", "<<", ">>"}
		op := ops[rng.IntN(len(ops))]
		l := gen(rng, signed, depth-1)
		var r *rnode
		switch {
		case op == "<<" || op == ">>":
			r = &rnode{op: "lit", lit: int64(rng.IntN(10))}
		case rng.IntN(3) == 0:
			lit := int64(rng.IntN(256))
			if signed {
				lit -= 128
			}
			r = &rnode{op: "lit", lit: lit}
		default:
			r = gen(rng, signed, depth-1)
		}
		return &rnode{op: op, signed: signed, kids: []*rnode{l, r}}
	case k < 7:
		return &rnode{op: []string{"neg", "not"}[rng.IntN(2)], signed: signed, kids: []*rnode{gen(rng, signed, depth-1)}}
	case k < 8:
		return &rnode{op: "as", signed: signed, kids: []*rnode{gen(rng, !signed, depth-1)}}
	}
	cs := rng.IntN(2) == 0
	cmps := []string{"==", "!=", "<", "<=", ">", ">="}
	return &rnode{op: "?:", signed: signed, cmp: cmps[rng.IntN(len(cmps))],
		kids: []*rnode{gen(rng, cs, depth-1), gen(rng, cs, depth-1), gen(rng, signed, depth-1), gen(rng, signed, depth-1)}}
}

// eval computes the 8-bit pattern of n.
func (n *rnode) eval(a, b uint64) uint64 {
	const m = 0xff
	val := func(p uint64, signed bool) int64 {
		if signed {
			return sx(p, 8)
		}
		return int64(p & m)
	}
	switch n.op {
	case "a":
		return a & m
	case "b":
		return b & m
	case "lit":
		return uint64(n.lit) & m
	case "neg":
		return -n.kids[0].eval(a, b) & m
	case "not":
		return ^n.kids[0].eval(a, b) & m
	case "as":
		return n.kids[0].eval(a, b) & m
	case "?:":
		x := val(n.kids[0].eval(a, b), n.kids[0].signed)
		y := val(n.kids[1].eval(a, b), n.kids[1].signed)
		c := map[string]bool{"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[n.cmp]
		if c {
			return n.kids[2].eval(a, b)
		}
		return n.kids[3].eval(a, b)
	}
	x, y := n.kids[0].eval(a, b), n.kids[1].eval(a, b)
	switch n.op {
	case "+":
		return (x + y) & m
	case "-":
		return (x - y) & m
	case "*":
		return (x * y) & m
	case "&":
		return x & y
	case "|":
		return x | y
	case "^":
		return x ^ y
	case "<<":
		return (x << y) & m
	}
	return uint64(val(x, n.signed)>>y) & m // ">>": arithmetic on s8
}

func TestRandomExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 150 {
		signed := rng.IntN(2) == 0
		tree := gen(rng, signed, 4)
		rt := "u8"
		if signed {
			rt = "s8"
		}
		src := fmt.Sprintf("circuit e(a: u8, b: s8) -> (r: %s) {\n    r = %s;\n}\n", rt, tree)
		style := styles[i%2]
		c, err := Compile("rand.hdl", []byte(src), Options{Style: style})
		if err != nil {
			t.Fatalf("%s\n%v", src, err)
		}
		var vecs [][]uint64
		for range 256 {
			vecs = append(vecs, []uint64{rng.Uint64() & 0xff, rng.Uint64() & 0xff})
		}
		got := evalPatterns(c, vecs)
		for j, v := range vecs {
			if want := tree.eval(v[0], v[1]); got[j][0] != want {
				t.Fatalf("%s(style %v) a=%d b=%d: got %#x, want %#x", src, style, v[0], sx(v[1], 8), got[j][0], want)
			}
		}
	}
}
