#include "textflag.h"

// GATHER2 loads the entries of d (DI) at T[s] + Q for the slots s = SI[k] and SI[k+1] into the
// low and high lane of X; SIZES2 loads their sizes (DX); SCATTER2 stores the low and high lane
// of X at ty[s] + qy (R9, R11). AX and BX are scratch.
#define GATHER2(k, T, Q, X) \
	MOVLQSX k*4(SI), AX; \
	MOVQ    (T)(AX*8), BX; \
	ADDQ    Q, BX; \
	VMOVSD  (DI)(BX*8), X; \
	MOVLQSX (k+1)*4(SI), AX; \
	MOVQ    (T)(AX*8), BX; \
	ADDQ    Q, BX; \
	VMOVHPD (DI)(BX*8), X, X

#define SIZES2(k, X) \
	MOVLQSX k*4(SI), AX; \
	VMOVSD  (DX)(AX*8), X; \
	MOVLQSX (k+1)*4(SI), AX; \
	VMOVHPD (DX)(AX*8), X, X

#define SCATTER2(k, X) \
	MOVLQSX k*4(SI), AX; \
	MOVQ    (R9)(AX*8), BX; \
	ADDQ    R11, BX; \
	VMOVSD  X, (DI)(BX*8); \
	MOVLQSX (k+1)*4(SI), AX; \
	MOVQ    (R9)(AX*8), BX; \
	ADDQ    R11, BX; \
	VMOVHPD X, (DI)(BX*8)

// func wardAVX2(d *float64, tx, ty *int, qx, qy int, slots *int32, n int, size *float64, w *[4]float64)
//
// For the n slots s (a positive multiple of 4) at slots: d[ty[s]+qy] = the Ward update of
// d[tx[s]+qx], d[ty[s]+qy] and size[s], with w = (nx, ny, nx+ny, dxy); wardSpan's arithmetic,
// four slots at a time (see wardSpan). Only VEX-encoded instructions, and VZEROUPPER before
// returning.
TEXT ·wardAVX2(SB), NOSPLIT, $0-72
	MOVQ         d+0(FP), DI
	MOVQ         tx+8(FP), R8
	MOVQ         ty+16(FP), R9
	MOVQ         qx+24(FP), R10
	MOVQ         qy+32(FP), R11
	MOVQ         slots+40(FP), SI
	MOVQ         n+48(FP), CX
	MOVQ         size+56(FP), DX
	MOVQ         w+64(FP), AX
	VBROADCASTSD 0(AX), Y10  // nx
	VBROADCASTSD 8(AX), Y11  // ny
	VBROADCASTSD 16(AX), Y12 // nx + ny
	VBROADCASTSD 24(AX), Y13 // dxy
	MOVQ         $0x3ff0000000000000, AX
	MOVQ         AX, X9
	VBROADCASTSD X9, Y9      // 1
	VXORPD       Y8, Y8, Y8  // 0
	SHRQ         $2, CX

wardloop:
	GATHER2(0, R8, R10, X1)
	GATHER2(2, R8, R10, X4)
	VINSERTF128 $1, X4, Y1, Y1 // dxs
	GATHER2(0, R9, R11, X2)
	GATHER2(2, R9, R11, X4)
	VINSERTF128 $1, X4, Y2, Y2 // dys
	SIZES2(0, X3)
	SIZES2(2, X4)
	VINSERTF128 $1, X4, Y3, Y3 // ns
	VADDPD      Y3, Y12, Y4    // nx + ny + ns
	VDIVPD      Y4, Y9, Y4     // t = 1/(nx + ny + ns)
	VADDPD      Y10, Y3, Y5
	VMULPD      Y4, Y5, Y5
	VMULPD      Y1, Y5, Y5
	VMULPD      Y1, Y5, Y5     // a = (ns + nx)·t·dxs·dxs
	VADDPD      Y11, Y3, Y6
	VMULPD      Y4, Y6, Y6
	VMULPD      Y2, Y6, Y6
	VMULPD      Y2, Y6, Y6     // b = (ns + ny)·t·dys·dys
	VMULPD      Y4, Y3, Y7
	VMULPD      Y13, Y7, Y7
	VMULPD      Y13, Y7, Y7    // c = ns·t·dxy·dxy
	VADDPD      Y6, Y5, Y5
	VSUBPD      Y7, Y5, Y5     // a + b − c
	VMAXPD      Y8, Y5, Y5     // max(·, 0)
	VSQRTPD     Y5, Y5
	SCATTER2(0, X5)
	VEXTRACTF128 $1, Y5, X5
	SCATTER2(2, X5)
	ADDQ        $16, SI
	DECQ        CX
	JNZ         wardloop
	VZEROUPPER
	RET
