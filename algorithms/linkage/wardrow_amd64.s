#include "textflag.h"

// func wardRow2AVX2(p0, p1, nx float64, q, size, row []float64)
//
// len(row) is a positive multiple of 4, len(size) = len(row) and len(q) = 2·len(row). Per 4
// points: the squared distances as in distRow2AVX2 (Y1, Y2 minus (p0, p1, p0, p1), squared,
// VHADDPD into (s0, s2, s1, s3), VPERMPD into order), then d2·(nx·ns) / (nx+ns) with the sizes
// ns of Y3. Only VEX-encoded instructions, and VZEROUPPER before returning.
TEXT ·wardRow2AVX2(SB), NOSPLIT, $0-96
	VBROADCASTSD p0+0(FP), Y14
	VBROADCASTSD p1+8(FP), Y13
	VBLENDPD     $0xa, Y13, Y14, Y15 // (p0, p1, p0, p1)
	VBROADCASTSD nx+16(FP), Y12
	MOVQ         q_base+24(FP), SI
	MOVQ         size_base+48(FP), DX
	MOVQ         row_base+72(FP), DI
	MOVQ         row_len+80(FP), CX
	SHRQ         $2, CX

loop:
	VMOVUPD 0(SI), Y1
	VMOVUPD 32(SI), Y2
	VMOVUPD 0(DX), Y3
	VSUBPD  Y15, Y1, Y1
	VSUBPD  Y15, Y2, Y2
	VMULPD  Y1, Y1, Y1
	VMULPD  Y2, Y2, Y2
	VHADDPD Y2, Y1, Y1
	VPERMPD $0xd8, Y1, Y1 // d2
	VMULPD  Y3, Y12, Y4   // nx·ns
	VADDPD  Y3, Y12, Y5   // nx+ns
	VMULPD  Y4, Y1, Y1    // d2·(nx·ns)
	VDIVPD  Y5, Y1, Y1
	VMOVUPD Y1, 0(DI)
	ADDQ    $64, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET
