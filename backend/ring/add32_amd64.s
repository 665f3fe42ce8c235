//go:build amd64 && !purego

#include "textflag.h"

// func addModAVX512(a, b, c, out *uint32, n int, q uint32)
//
// out = a + b (+ c when c != nil) mod q, 16 entries per iteration; every
// input in [0, q), q < 2^31 (so a sum of two stays below 2^32). Each sum of
// two is brought back to [0, q) by min(s, s - q) (unsigned: s - q wraps
// above s when s < q), before the third operand is added. n is a multiple
// of 16; out may alias any input (each block is loaded before it is
// stored).
TEXT ·addModAVX512(SB), NOSPLIT, $0-44
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), BX
	MOVQ         c+16(FP), DX
	MOVQ         out+24(FP), DI
	MOVQ         n+32(FP), CX
	MOVL         q+40(FP), AX
	VPBROADCASTD AX, Z31
	XORQ         R8, R8
	SHRQ         $4, CX
	JZ           adone
	TESTQ        DX, DX
	JZ           aloop2

aloop3:
	VMOVDQU32 (SI)(R8*1), Z0
	VPADDD    (BX)(R8*1), Z0, Z0
	VPSUBD    Z31, Z0, Z1
	VPMINUD   Z1, Z0, Z0
	VPADDD    (DX)(R8*1), Z0, Z0
	VPSUBD    Z31, Z0, Z1
	VPMINUD   Z1, Z0, Z0
	VMOVDQU32 Z0, (DI)(R8*1)
	ADDQ      $64, R8
	DECQ      CX
	JNZ       aloop3
	JMP       adone

aloop2:
	VMOVDQU32 (SI)(R8*1), Z0
	VPADDD    (BX)(R8*1), Z0, Z0
	VPSUBD    Z31, Z0, Z1
	VPMINUD   Z1, Z0, Z0
	VMOVDQU32 Z0, (DI)(R8*1)
	ADDQ      $64, R8
	DECQ      CX
	JNZ       aloop2

adone:
	VZEROUPPER
	RET
