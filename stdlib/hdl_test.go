package stdlib_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// hdlOut is one output of a test circuit: the HDL expression that drives it,
// its type, and a Go reference on raw bit patterns of the inputs a, b, c.
type hdlOut struct {
	name, typ, expr string
	ref             func(a, b, c uint64, w int) uint64
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// unsignedOuts covers every function of arith.hdl, compare.hdl (unsigned),
// mul.hdl and popcount.hdl at width w; inputs are a, b: uW and c: bit.
func unsignedOuts(w int) []hdlOut {
	u := fmt.Sprintf("u%d", w)
	uc := fmt.Sprintf("u%d", w+1)
	// Below 64 bits the sum with its carry fits a uint64; at 64 bits the
	// harness keeps only the low 64 bits and the *_carry outputs check the rest.
	add := func(a, b, c uint64, w int) uint64 { return a + b + c }
	return []hdlOut{
		{"add_ripple", u, fmt.Sprintf("add_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a + b }},
		{"add_ripple_c", uc, fmt.Sprintf("add_ripple_c%d(a, b, c)", w), add},
		{"add_ripple_carry", "bit", fmt.Sprintf("add_ripple_c%d(a, b, c)[%d]", w, w), carryOut},
		{"add_ks", u, fmt.Sprintf("add_ks%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a + b }},
		{"add_ks_c", uc, fmt.Sprintf("add_ks_c%d(a, b, c)", w), add},
		{"add_ks_carry", "bit", fmt.Sprintf("add_ks_c%d(a, b, c)[%d]", w, w), carryOut},
		{"sub_ripple", u, fmt.Sprintf("sub_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a - b }},
		{"sub_ks", u, fmt.Sprintf("sub_ks%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a - b }},
		{"neg", u, fmt.Sprintf("neg%d(a)", w), func(a, b, c uint64, w int) uint64 { return -a }},
		{"ltu_ripple", "bit", fmt.Sprintf("ltu_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(a < b) }},
		{"ltu_tree", "bit", fmt.Sprintf("ltu_tree%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(a < b) }},
		{"leu_ripple", "bit", fmt.Sprintf("leu_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(a <= b) }},
		{"leu_tree", "bit", fmt.Sprintf("leu_tree%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(a <= b) }},
		{"min_u", u, fmt.Sprintf("min_u%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return min(a, b) }},
		{"max_u", u, fmt.Sprintf("max_u%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return max(a, b) }},
		{"mul_array", u, fmt.Sprintf("mul_array%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a * b }},
		{"mul_wallace", u, fmt.Sprintf("mul_wallace%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return a * b }},
		{"popcount", fmt.Sprintf("u%d", bits.Len(uint(w))), fmt.Sprintf("popcount%d(a)", w),
			func(a, b, c uint64, w int) uint64 { return uint64(bits.OnesCount64(a)) }},
	}
}

// carryOut is the carry out of the w-bit sum a + b + c.
func carryOut(a, b, c uint64, w int) uint64 {
	s, carry := bits.Add64(a, b, c)
	if w < 64 {
		return s >> uint(w) & 1
	}
	return carry
}

// signedOuts covers the signed comparators, min/max/abs, and (for the relu
// widths) relu.hdl; inputs are a, b: sW.
func signedOuts(w int) []hdlOut {
	s := fmt.Sprintf("s%d", w)
	sx := func(v uint64) int64 { return stdlib.SignExtend(v, w) }
	outs := []hdlOut{
		{"lts_ripple", "bit", fmt.Sprintf("lts_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(sx(a) < sx(b)) }},
		{"lts_tree", "bit", fmt.Sprintf("lts_tree%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(sx(a) < sx(b)) }},
		{"les_ripple", "bit", fmt.Sprintf("les_ripple%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(sx(a) <= sx(b)) }},
		{"les_tree", "bit", fmt.Sprintf("les_tree%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return b2u(sx(a) <= sx(b)) }},
		{"min_s", s, fmt.Sprintf("min_s%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return uint64(min(sx(a), sx(b))) }},
		{"max_s", s, fmt.Sprintf("max_s%d(a, b)", w), func(a, b, c uint64, w int) uint64 { return uint64(max(sx(a), sx(b))) }},
		{"abs_s", s, fmt.Sprintf("abs_s%d(a)", w), func(a, b, c uint64, w int) uint64 {
			if sx(a) < 0 {
				return -a
			}
			return a
		}},
	}
	if w > 32 {
		return outs
	}
	relu := func(v int64) int64 { return max(v, 0) }
	return append(outs,
		hdlOut{"relu", s, fmt.Sprintf("relu_s%d(a)", w), func(a, b, c uint64, w int) uint64 { return uint64(relu(sx(a))) }},
		hdlOut{"leaky_relu", s, fmt.Sprintf("leaky_relu_s%d(a)", w), func(a, b, c uint64, w int) uint64 {
			if v := sx(a); v < 0 {
				return uint64(v >> 3)
			}
			return a
		}},
		hdlOut{"relu_clip", s, fmt.Sprintf("relu_clip_s%d(a, b)", w), func(a, b, c uint64, w int) uint64 {
			return uint64(min(relu(sx(a)), sx(b)))
		}},
		hdlOut{"relu6", s, fmt.Sprintf("relu6_s%d(a)", w), func(a, b, c uint64, w int) uint64 { return uint64(min(relu(sx(a)), 6)) }},
	)
}

// compileOuts compiles a circuit with the given inputs whose outputs are outs.
func compileOuts(t *testing.T, name, inputs string, outs []hdlOut, style stdlib.Style) *ir.Circuit {
	t.Helper()
	var src strings.Builder
	for _, f := range []string{"arith", "compare", "mul", "popcount", "relu", "sbox"} {
		fmt.Fprintf(&src, "import \"stdlib/%s.hdl\";\n", f)
	}
	var decl, body []string
	for _, o := range outs {
		decl = append(decl, o.name+": "+o.typ)
		body = append(body, fmt.Sprintf("    %s = %s;\n", o.name, o.expr))
	}
	fmt.Fprintf(&src, "circuit %s(%s) -> (%s) {\n%s}\n", name, inputs, strings.Join(decl, ", "), strings.Join(body, ""))
	c, err := lang.Compile(name+".hdl", []byte(src.String()), lang.Options{Circuit: name, Style: style})
	if err != nil {
		t.Fatalf("compiling %s:\n%s\n%v", name, src.String(), err)
	}
	return c
}

// checkOuts evaluates c on vecs (inputs a, b[, c]) and compares every output.
func checkOuts(t *testing.T, c *ir.Circuit, outs []hdlOut, w int, vecs [][]uint64) {
	t.Helper()
	res := stdlib.EvalVectors(c, vecs)
	bad := 0
	for i, v := range vecs {
		var cin uint64
		if len(v) > 2 {
			cin = v[2]
		}
		for k, o := range outs {
			want := o.ref(v[0], v[1], cin, w) & stdlib.Mask(c.Outputs[k].Width)
			if res[i][k] != want {
				t.Errorf("%s/W=%d: a=%#x b=%#x c=%d: got %#x, want %#x", o.name, w, v[0], v[1], cin, res[i][k], want)
				if bad++; bad > 10 {
					t.FailNow()
				}
			}
		}
	}
}

func TestHDLLibrary(t *testing.T) {
	for _, style := range []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized} {
		for _, w := range []int{8, 16, 32, 64} {
			t.Run(fmt.Sprintf("W=%d/%v", w, style), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(w), uint64(style)))
				uo, so := unsignedOuts(w), signedOuts(w)
				cu := compileOuts(t, "unsigned", fmt.Sprintf("a: u%d, b: u%d, c: bit", w, w), uo, style)
				cs := compileOuts(t, "signed", fmt.Sprintf("a: s%d, b: s%d", w, w), so, style)
				var vu, vs [][]uint64
				if w == 8 {
					vu, vs = stdlib.AllVectors([]int{8, 8, 1}), stdlib.AllVectors([]int{8, 8})
				} else {
					vu = stdlib.RandomVectors(rng, []int{w, w, 1}, 2048)
					vs = stdlib.RandomVectors(rng, []int{w, w}, 2048)
				}
				checkOuts(t, cu, uo, w, vu)
				checkOuts(t, cs, so, w, vs)
			})
		}
	}
}

func TestHDLSBox(t *testing.T) {
	for _, tc := range []struct {
		fn                string
		ands, depthWanted int
	}{{"sbox", 32, 6}, {"sbox_lowdepth", 34, 4}} {
		c := compileOuts(t, "sbox_check", "a: u8", []hdlOut{{"y", "u8", tc.fn + "(a)", nil}}, stdlib.SizeOptimized)
		tab := stdlib.AESSBoxTable()
		vecs := stdlib.AllVectors([]int{8})
		res := stdlib.EvalVectors(c, vecs)
		for i, v := range vecs {
			if byte(res[i][0]) != tab[v[0]] {
				t.Errorf("%s(%#02x) = %#02x, want %#02x", tc.fn, v[0], res[i][0], tab[v[0]])
			}
		}
		ands := 0
		for _, nd := range c.Nodes {
			if nd.Op == ir.OpAnd {
				ands++
			}
		}
		depth, gates := stdlib.AndDepth(c)
		t.Logf("HDL %s: %d gates, %d AND, AND-depth %d", tc.fn, gates, ands, depth)
		if ands != tc.ands || depth != tc.depthWanted {
			t.Errorf("HDL %s has %d AND gates and AND-depth %d, want %d and %d", tc.fn, ands, depth, tc.ands, tc.depthWanted)
		}
	}
}

// TestHDLArchitectures checks that each fixed-architecture HDL function has
// the cost profile its name promises, independent of the compiler's style:
// the prefix/tree variants are shallower, the ripple/array ones smaller.
func TestHDLArchitectures(t *testing.T) {
	for _, pair := range [][2]string{
		{"add_ripple32(a, b)", "add_ks32(a, b)"},
		{"sub_ripple32(a, b)", "sub_ks32(a, b)"},
		{"mul_array32(a, b)", "mul_wallace32(a, b)"},
		{"ltu_ripple32(a, b)", "ltu_tree32(a, b)"},
	} {
		typ := "u32"
		if strings.HasPrefix(pair[0], "lt") {
			typ = "bit"
		}
		var depth, gates [2]int
		for i, expr := range pair {
			c := compileOuts(t, "arch", "a: u32, b: u32", []hdlOut{{"r", typ, expr, nil}}, stdlib.SizeOptimized)
			depth[i], gates[i] = stdlib.AndDepth(c)
		}
		t.Logf("%s: AND-depth %d, %d gates; %s: AND-depth %d, %d gates", pair[0], depth[0], gates[0], pair[1], depth[1], gates[1])
		if depth[1] >= depth[0] || gates[0] >= gates[1] {
			t.Errorf("%s should be shallower and %s smaller", pair[1], pair[0])
		}
	}
}
