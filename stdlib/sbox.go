package stdlib

import (
	"fmt"
	"strings"

	"github.com/hcc-fhe/hcc/ir"
)

// sboxProgram is the AES S-box as a straight-line program of 115 two-input
// gates, 32 of them AND: the circuit of Boyar and Peralta ("A new
// combinational logic minimization technique with applications to
// cryptology", SEA 2010). Inputs U0..U7 and outputs S0..S7 are the byte's
// bits from most to least significant.
//
// Structure (why it is small): a linear top layer maps the byte to 22
// XOR-combinations y*; the middle computes the GF(2^8) inversion in a tower
// field GF(((2^2)^2)^2): 9 ANDs for the GF(2^4) product that forms the norm,
// 5 for the GF(2^4) inversion, and 18 for the two output products, which
// share their operand combinations with the top layer; a linear bottom layer
// folds in the basis change and the affine map (its constant 0x63 becomes
// the four XNORs).
//
// Each line is "dst = a OP b" with OP one of ^ (XOR), & (AND), # (XNOR).
var sboxProgram = []string{
	// Top linear layer.
	"y14 = U3 ^ U5", "y13 = U0 ^ U6", "y9 = U0 ^ U3", "y8 = U0 ^ U5",
	"t0 = U1 ^ U2", "y1 = t0 ^ U7", "y4 = y1 ^ U3", "y12 = y13 ^ y14",
	"y2 = y1 ^ U0", "y5 = y1 ^ U6", "y3 = y5 ^ y8", "t1 = U4 ^ y12",
	"y15 = t1 ^ U5", "y20 = t1 ^ U1", "y6 = y15 ^ U7", "y10 = y15 ^ t0",
	"y11 = y20 ^ y9", "y7 = U7 ^ y11", "y17 = y10 ^ y11", "y19 = y10 ^ y8",
	"y16 = t0 ^ y11", "y21 = y13 ^ y16", "y18 = U0 ^ y16",
	// Middle: GF(2^4) product (9 AND).
	"t2 = y12 & y15", "t3 = y3 & y6", "t4 = t3 ^ t2", "t5 = y4 & U7",
	"t6 = t5 ^ t2", "t7 = y13 & y16", "t8 = y5 & y1", "t9 = t8 ^ t7",
	"t10 = y2 & y7", "t11 = t10 ^ t7", "t12 = y9 & y11", "t13 = y14 & y17",
	"t14 = t13 ^ t12", "t15 = y8 & y10", "t16 = t15 ^ t12", "t17 = t4 ^ t14",
	"t18 = t6 ^ t16", "t19 = t9 ^ t14", "t20 = t11 ^ t16", "t21 = t17 ^ y20",
	"t22 = t18 ^ y19", "t23 = t19 ^ y21", "t24 = t20 ^ y18",
	// Middle: GF(2^4) inversion (5 AND).
	"t25 = t21 ^ t22", "t26 = t21 & t23", "t27 = t24 ^ t26", "t28 = t25 & t27",
	"t29 = t28 ^ t22", "t30 = t23 ^ t24", "t31 = t22 ^ t26", "t32 = t31 & t30",
	"t33 = t32 ^ t24", "t34 = t23 ^ t33", "t35 = t27 ^ t33", "t36 = t24 & t35",
	"t37 = t36 ^ t34", "t38 = t27 ^ t36", "t39 = t29 & t38", "t40 = t25 ^ t39",
	// Middle: the two output products (18 AND).
	"t41 = t40 ^ t37", "t42 = t29 ^ t33", "t43 = t29 ^ t40", "t44 = t33 ^ t37",
	"t45 = t42 ^ t41",
	"z0 = t44 & y15", "z1 = t37 & y6", "z2 = t33 & U7", "z3 = t43 & y16",
	"z4 = t40 & y1", "z5 = t29 & y7", "z6 = t42 & y11", "z7 = t45 & y17",
	"z8 = t41 & y10", "z9 = t44 & y12", "z10 = t37 & y3", "z11 = t33 & y4",
	"z12 = t43 & y13", "z13 = t40 & y5", "z14 = t29 & y2", "z15 = t42 & y9",
	"z16 = t45 & y14", "z17 = t41 & y8",
	// Bottom linear layer.
	"t46 = z15 ^ z16", "t47 = z10 ^ z11", "t48 = z5 ^ z13", "t49 = z9 ^ z10",
	"t50 = z2 ^ z12", "t51 = z2 ^ z5", "t52 = z7 ^ z8", "t53 = z0 ^ z3",
	"t54 = z6 ^ z7", "t55 = z16 ^ z17", "t56 = z12 ^ t48", "t57 = t50 ^ t53",
	"t58 = z4 ^ t46", "t59 = z3 ^ t54", "t60 = t46 ^ t57", "t61 = z14 ^ t57",
	"t62 = t52 ^ t58", "t63 = t49 ^ t58", "t64 = z4 ^ t59", "t65 = t61 ^ t62",
	"t66 = z1 ^ t63", "S0 = t59 ^ t63", "S6 = t56 # t62", "S7 = t48 # t60",
	"t67 = t64 ^ t65", "S3 = t53 ^ t66", "S4 = t51 ^ t66", "S5 = t47 ^ t65",
	"S1 = t64 # S3", "S2 = t55 # t67",
}

// sboxStep is one parsed line of sboxProgram.
type sboxStep struct {
	dst, a, b string
	op        byte
}

// sboxSteps parses sboxProgram once; a malformed line is a bug in this file.
var sboxSteps = func() []sboxStep {
	steps := make([]sboxStep, len(sboxProgram))
	for i, line := range sboxProgram {
		f := strings.Fields(line)
		if len(f) != 5 || f[1] != "=" || len(f[3]) != 1 || !strings.Contains("^&#", f[3]) {
			panic(fmt.Sprintf("stdlib: bad S-box line %q", line))
		}
		steps[i] = sboxStep{dst: f[0], a: f[2], op: f[3][0], b: f[4]}
	}
	return steps
}()

// SBox returns the AES S-box (SubBytes) of the byte x (8 bits, LSB first)
// with Boyar and Peralta's 115-gate circuit: 32 AND, 79 XOR, 4 XNOR,
// AND-depth 6.
func SBox(b *ir.Builder, x []ir.NodeID) []ir.NodeID {
	if len(x) != 8 {
		panic(fmt.Sprintf("stdlib.SBox: input has %d bits, want 8", len(x)))
	}
	w := make(map[string]ir.NodeID, len(sboxSteps)+8)
	for i := 0; i < 8; i++ {
		w[fmt.Sprintf("U%d", i)] = x[7-i]
	}
	for _, s := range sboxSteps {
		a, okA := w[s.a]
		c, okB := w[s.b]
		if !okA || !okB {
			panic(fmt.Sprintf("stdlib: S-box line %q uses an undefined wire", s.dst))
		}
		switch s.op {
		case '^':
			w[s.dst] = b.Xor(a, c)
		case '&':
			w[s.dst] = b.And(a, c)
		default:
			w[s.dst] = b.Xnor(a, c)
		}
	}
	out := make([]ir.NodeID, 8)
	for i := 0; i < 8; i++ {
		out[7-i] = w[fmt.Sprintf("S%d", i)]
	}
	return out
}
