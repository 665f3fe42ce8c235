//go:build amd64 && !purego

#include "textflag.h"

// func ksAccAVX512(acc, base *uint16, offs *int32, count, vecs int)
//
// For each of count offsets: off >= 0 adds the row base[off:] to acc,
// off < 0 subtracts the row base[^off:]; rows and acc are vecs·32 uint16
// (64 bytes per ZMM); the sums wrap lane by lane (VPADDW/VPSUBW).
TEXT ·ksAccAVX512(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ offs+16(FP), R8
	MOVQ count+24(FP), CX
	MOVQ vecs+32(FP), R9
	TESTQ CX, CX
	JEQ  done

row:
	MOVLQSX (R8), AX
	ADDQ $4, R8
	MOVQ DI, DX
	MOVQ R9, R10
	TESTQ AX, AX
	JS   subrow
	LEAQ (SI)(AX*2), BX

addloop:
	VMOVDQU64 (DX), Z1
	VPADDW    (BX), Z1, Z1
	VMOVDQU64 Z1, (DX)
	ADDQ $64, BX
	ADDQ $64, DX
	DECQ R10
	JNZ  addloop
	JMP  next

subrow:
	NOTQ AX
	LEAQ (SI)(AX*2), BX

subloop:
	VMOVDQU64 (DX), Z1
	VPSUBW    (BX), Z1, Z1
	VMOVDQU64 Z1, (DX)
	ADDQ $64, BX
	ADDQ $64, DX
	DECQ R10
	JNZ  subloop

next:
	DECQ CX
	JNZ  row

done:
	VZEROUPPER
	RET
