//go:build amd64 && !purego

#include "textflag.h"

// func ksRowsAVX(ks *uint64, offs *uint64, cnt int, accs *[MaxBatch]*uint64, w, ahead int)
// Registers: SI ks, DI offs, CX cnt, R8 accs, R9 ahead, R10 row bytes,
// R11 bytes in whole vectors, K1 tail mask (w mod 8 words), DX entry j,
// R12 row, R13 accumulator, R14 byte index.
TEXT ·ksRowsAVX(SB), NOSPLIT, $0-48
	MOVQ ks+0(FP), SI
	MOVQ offs+8(FP), DI
	MOVQ accs+24(FP), R8
	MOVQ w+32(FP), R10
	MOVQ ahead+40(FP), R9
	MOVQ R10, CX
	ANDQ $7, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	MOVQ R10, R11
	ANDQ $-8, R11
	SHLQ $3, R11
	SHLQ $3, R10
	MOVQ cnt+16(FP), CX

	// Prefetch the rows of entries 0 .. min(ahead, cnt)-1.
	XORQ DX, DX
	CMPQ R9, CX
	JLE  first
	MOVQ CX, R9
first:
	CMPQ DX, R9
	JGE  loop
	MOVQ (DI)(DX*8), R12
	SHRQ $8, R12
	LEAQ (SI)(R12*8), AX
	LEAQ (AX)(R10*1), BX
	ANDQ $-64, AX
pf0:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, BX
	JLT  pf0
	INCQ DX
	JMP  first

loop:
	// DX = j from here on; R9 = j + ahead is the entry to prefetch.
	XORQ DX, DX
	TESTQ CX, CX
	JZ   done

entry:
	CMPQ R9, CX
	JGE  add
	MOVQ (DI)(R9*8), R12
	SHRQ $8, R12
	LEAQ (SI)(R12*8), AX
	LEAQ (AX)(R10*1), BX
	ANDQ $-64, AX
pf1:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, BX
	JLT  pf1

add:
	MOVQ (DI)(DX*8), BX
	MOVQ BX, R12
	SHRQ $8, R12
	LEAQ (SI)(R12*8), R12
	MOVQ BX, AX
	SHRQ $1, AX
	ANDQ $127, AX
	MOVQ (R8)(AX*8), R13
	XORQ R14, R14
	TESTQ $1, BX
	JNZ  sub

addv:
	CMPQ R14, R11
	JGE  addt
	VMOVDQU64 (R12)(R14*1), Z0
	VPADDW    (R13)(R14*1), Z0, Z0
	VMOVDQU64 Z0, (R13)(R14*1)
	ADDQ $64, R14
	JMP  addv
addt:
	CMPQ R14, R10
	JGE  next
	VMOVDQU64.Z (R12)(R14*1), K1, Z0
	VMOVDQU64.Z (R13)(R14*1), K1, Z1
	VPADDW      Z0, Z1, Z1
	VMOVDQU64   Z1, K1, (R13)(R14*1)
	JMP  next

sub:
	CMPQ R14, R11
	JGE  subt
	VMOVDQU64 (R13)(R14*1), Z1
	VPSUBW    (R12)(R14*1), Z1, Z1
	VMOVDQU64 Z1, (R13)(R14*1)
	ADDQ $64, R14
	JMP  sub
subt:
	CMPQ R14, R10
	JGE  next
	VMOVDQU64.Z (R12)(R14*1), K1, Z0
	VMOVDQU64.Z (R13)(R14*1), K1, Z1
	VPSUBW      Z0, Z1, Z1
	VMOVDQU64   Z1, K1, (R13)(R14*1)

next:
	INCQ R9
	INCQ DX
	CMPQ DX, CX
	JLT  entry

done:
	VZEROUPPER
	RET
