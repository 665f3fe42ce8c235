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

// sboxLowDepthProgram is the AES S-box as Boyar and Peralta's depth-16
// circuit ("A depth-16 circuit for the AES S-box", SEC 2012): 128 gates, 34
// of them AND, but only 4 AND levels instead of 6, which saves two
// multiplicative levels per round on a leveled backend (BGV). Same
// conventions as sboxProgram.
var sboxLowDepthProgram = []string{
	// Top linear layer.
	"T1 = U0 ^ U3", "T2 = U0 ^ U5", "T3 = U0 ^ U6", "T4 = U3 ^ U5",
	"T5 = U4 ^ U6", "T6 = T1 ^ T5", "T7 = U1 ^ U2", "T8 = U7 ^ T6",
	"T9 = U7 ^ T7", "T10 = T6 ^ T7", "T11 = U1 ^ U5", "T12 = U2 ^ U5",
	"T13 = T3 ^ T4", "T14 = T6 ^ T11", "T15 = T5 ^ T11", "T16 = T5 ^ T12",
	"T17 = T9 ^ T16", "T18 = U3 ^ U7", "T19 = T7 ^ T18", "T20 = T1 ^ T19",
	"T21 = U6 ^ U7", "T22 = T7 ^ T21", "T23 = T2 ^ T22", "T24 = T2 ^ T10",
	"T25 = T20 ^ T17", "T26 = T3 ^ T16", "T27 = T1 ^ T12",
	// Middle: GF(2^8) inversion in the tower field.
	"M1 = T13 & T6", "M2 = T23 & T8", "M3 = T14 ^ M1", "M4 = T19 & U7",
	"M5 = M4 ^ M1", "M6 = T3 & T16", "M7 = T22 & T9", "M8 = T26 ^ M6",
	"M9 = T20 & T17", "M10 = M9 ^ M6", "M11 = T1 & T15", "M12 = T4 & T27",
	"M13 = M12 ^ M11", "M14 = T2 & T10", "M15 = M14 ^ M11", "M16 = M3 ^ M2",
	"M17 = M5 ^ T24", "M18 = M8 ^ M7", "M19 = M10 ^ M15", "M20 = M16 ^ M13",
	"M21 = M17 ^ M15", "M22 = M18 ^ M13", "M23 = M19 ^ T25", "M24 = M22 ^ M23",
	"M25 = M22 & M20", "M26 = M21 ^ M25", "M27 = M20 ^ M21", "M28 = M23 ^ M25",
	"M29 = M28 & M27", "M30 = M26 & M24", "M31 = M20 & M23", "M32 = M27 & M31",
	"M33 = M27 ^ M25", "M34 = M21 & M22", "M35 = M24 & M34", "M36 = M24 ^ M25",
	"M37 = M21 ^ M29", "M38 = M32 ^ M33", "M39 = M23 ^ M30", "M40 = M35 ^ M36",
	"M41 = M38 ^ M40", "M42 = M37 ^ M39", "M43 = M37 ^ M38", "M44 = M39 ^ M40",
	"M45 = M42 ^ M41", "M46 = M44 & T6", "M47 = M40 & T8", "M48 = M39 & U7",
	"M49 = M43 & T16", "M50 = M38 & T9", "M51 = M37 & T17", "M52 = M42 & T15",
	"M53 = M45 & T27", "M54 = M41 & T10", "M55 = M44 & T13", "M56 = M40 & T23",
	"M57 = M39 & T19", "M58 = M43 & T3", "M59 = M38 & T22", "M60 = M37 & T20",
	"M61 = M42 & T1", "M62 = M45 & T4", "M63 = M41 & T2",
	// Bottom linear layer.
	"L0 = M61 ^ M62", "L1 = M50 ^ M56", "L2 = M46 ^ M48", "L3 = M47 ^ M55",
	"L4 = M54 ^ M58", "L5 = M49 ^ M61", "L6 = M62 ^ L5", "L7 = M46 ^ L3",
	"L8 = M51 ^ M59", "L9 = M52 ^ M53", "L10 = M53 ^ L4", "L11 = M60 ^ L2",
	"L12 = M48 ^ M51", "L13 = M50 ^ L0", "L14 = M52 ^ M61", "L15 = M55 ^ L1",
	"L16 = M56 ^ L0", "L17 = M57 ^ L1", "L18 = M58 ^ L8", "L19 = M63 ^ L4",
	"L20 = L0 ^ L1", "L21 = L1 ^ L7", "L22 = L3 ^ L12", "L23 = L18 ^ L2",
	"L24 = L15 ^ L9", "L25 = L6 ^ L10", "L26 = L7 ^ L9", "L27 = L8 ^ L10",
	"L28 = L11 ^ L14", "L29 = L11 ^ L17", "S0 = L6 ^ L24", "S1 = L16 # L26",
	"S2 = L19 # L28", "S3 = L6 ^ L21", "S4 = L20 ^ L22", "S5 = L25 ^ L29",
	"S6 = L13 # L27", "S7 = L6 # L23",
}

// sboxStep is one parsed line of sboxProgram.
type sboxStep struct {
	dst, a, b string
	op        byte
}

// sboxSteps and sboxLowDepthSteps are the parsed programs.
var (
	sboxSteps         = parseSBox(sboxProgram)
	sboxLowDepthSteps = parseSBox(sboxLowDepthProgram)
)

// parseSBox parses a gate program; a malformed line is a bug in this file.
func parseSBox(program []string) []sboxStep {
	steps := make([]sboxStep, len(program))
	for i, line := range program {
		f := strings.Fields(line)
		if len(f) != 5 || f[1] != "=" || len(f[3]) != 1 || !strings.Contains("^&#", f[3]) {
			panic(fmt.Sprintf("stdlib: bad S-box line %q", line))
		}
		steps[i] = sboxStep{dst: f[0], a: f[2], op: f[3][0], b: f[4]}
	}
	return steps
}

// SBox returns the AES S-box (SubBytes) of the byte x (8 bits, LSB first)
// with Boyar and Peralta's 115-gate circuit: 32 AND, 79 XOR, 4 XNOR,
// AND-depth 6.
func SBox(b *ir.Builder, x []ir.NodeID) []ir.NodeID {
	return runSBox(b, x, sboxSteps)
}

// SBoxLowDepth returns the AES S-box of the byte x (8 bits, LSB first) with
// Boyar and Peralta's depth-16 circuit: 128 gates, 34 AND, AND-depth 4. Prefer
// it on leveled backends, SBox on gate-bootstrapping ones.
func SBoxLowDepth(b *ir.Builder, x []ir.NodeID) []ir.NodeID {
	return runSBox(b, x, sboxLowDepthSteps)
}

// runSBox evaluates a parsed S-box program on x's bits.
func runSBox(b *ir.Builder, x []ir.NodeID, steps []sboxStep) []ir.NodeID {
	if len(x) != 8 {
		panic(fmt.Sprintf("stdlib: S-box input has %d bits, want 8", len(x)))
	}
	w := make(map[string]ir.NodeID, len(sboxSteps)+8)
	for i := 0; i < 8; i++ {
		w[fmt.Sprintf("U%d", i)] = x[7-i]
	}
	for _, s := range steps {
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
