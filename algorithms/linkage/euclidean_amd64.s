#include "textflag.h"

// func distRow2AVX2(p0, p1 float64, q, row []float64)
//
// len(row) is a positive multiple of 8 and len(q) = 2·len(row). Per 4 points: Y1, Y2 hold
// (x0, y0, x1, y1) and (x2, y2, x3, y3); minus (p0, p1, p0, p1) and squared, VHADDPD sums each
// pair into (s0, s2, s1, s3), VPERMPD puts them in order and VSQRTPD takes the roots. Only
// VEX-encoded instructions, and VZEROUPPER before returning.
TEXT ·distRow2AVX2(SB), NOSPLIT, $0-64
	VBROADCASTSD p0+0(FP), Y14
	VBROADCASTSD p1+8(FP), Y13
	VBLENDPD     $0xa, Y13, Y14, Y15 // (p0, p1, p0, p1)
	MOVQ         q_base+16(FP), SI
	MOVQ         row_base+40(FP), DI
	MOVQ         row_len+48(FP), CX
	SHRQ         $3, CX

loop:
	VMOVUPD  0(SI), Y1
	VMOVUPD  32(SI), Y2
	VMOVUPD  64(SI), Y3
	VMOVUPD  96(SI), Y4
	VSUBPD   Y15, Y1, Y1
	VSUBPD   Y15, Y2, Y2
	VSUBPD   Y15, Y3, Y3
	VSUBPD   Y15, Y4, Y4
	VMULPD   Y1, Y1, Y1
	VMULPD   Y2, Y2, Y2
	VMULPD   Y3, Y3, Y3
	VMULPD   Y4, Y4, Y4
	VHADDPD  Y2, Y1, Y1
	VHADDPD  Y4, Y3, Y3
	VPERMPD  $0xd8, Y1, Y1
	VPERMPD  $0xd8, Y3, Y3
	VSQRTPD  Y1, Y1
	VSQRTPD  Y3, Y3
	VMOVUPD  Y1, 0(DI)
	VMOVUPD  Y3, 32(DI)
	ADDQ     $128, SI
	ADDQ     $64, DI
	DECQ     CX
	JNZ      loop
	VZEROUPPER
	RET

