//go:build amd64 && !purego

#include "textflag.h"

// func prefetchLines(p *uint32, lines int)
//
// PREFETCHT0 on lines consecutive 64-byte cache lines from p: a hint with
// no architectural effect.
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ lines+8(FP), CX
	TESTQ CX, CX
	JLE  done

loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ  loop

done:
	RET
