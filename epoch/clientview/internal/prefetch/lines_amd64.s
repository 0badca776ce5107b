//go:build !purego

#include "textflag.h"

// func Lines(p unsafe.Pointer, n uintptr)
TEXT ·Lines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	JC   done // the range wraps: ask for nothing
loop:
	CMPQ AX, CX
	JAE  done
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loop
done:
	RET
