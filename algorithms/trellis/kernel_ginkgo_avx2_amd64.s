// The split loops of kernel_ginkgo.go for AVX2, four splits at a time: splitsFullAVX2 is
// splitsFullGo, mapParentsAVX2 is splitsMAPGo without a count. The arithmetic of a split is the Go
// loop's, operation for operation and without FMA, and the accumulators take the splits in the
// Go loop's order, so the results are identical bit for bit (TestAssemblyMatchesGo):
//
//   - the four splits of a group are consecutive in the Go loop's order. With b0 < b1 the two
//     lowest bits of restO and rest2 = restO without them, the submasks of restO in decreasing
//     order come in groups {H|b0|b1, H|b1, H|b0, H} for H running down the submasks of rest2, so
//     lane i's children are at fixed offsets from the group's two base addresses;
//   - in splitsFullAVX2, stage 1 computes per lane the Go loop's T, 1/T, av and y, adds the count
//     and the MAP, and stores y and 1/T for up to CHUNK groups; stage 2 then adds them to log Z.
//     The two stages are separate loops so that the long dependency chain of a split (1/T, then
//     y, then the exp) overlaps with other groups' work instead of stalling the core;
//   - log Z and the count add the lanes' terms to zsum and cnt one by one, in lane order; a group
//     with a lane that raises the running maximum (rare) goes through the scalar code. The vector
//     exp is expNeg's, with an int32 conversion in place of the int64 one (exact: |k| < 2^17);
//   - the MAP needs the exact log only where the table bound passes; a vector test with e·ln2 in
//     place of e·ln2 + logTable[j] (≥ 0, so it passes whenever that bound passes: rounding is
//     monotone) picks the lanes that run the Go loop's scalar MAP update;
//   - slow lanes (a leaf as the smaller child, T outside [2^−100, 2^100), or no R child) are
//     deferred in lane order, as the Go loop defers them, and stored as y = −Inf, 1/T = 0, which
//     add exactly nothing (+0) to log Z.
//
// Only VEX-encoded instructions, and VZEROUPPER before returning: mixing in legacy SSE with the
// upper halves dirty is very slow (trellis-performance.md).

#include "go_asm.h"
#include "textflag.h"

#include "kernel_ginkgo_amd64.h"

// Byte offsets into avxConsts (kernel_ginkgo_amd64.go): asmConsts broadcast, then its own.
#define V_ONE 0
#define V_64LN2 32
#define V_HALF 64
#define V_LN2HI64 96
#define V_LN2LO64 128
#define V_720 160
#define V_120 192
#define V_24 224
#define V_6 256
#define V_M708 288
#define V_LN2 320
#define V_SLACK 352
#define V_TLO 544
#define V_THI 576
#define V_MAGIC 608
#define V_MAGIC1023 640
#define V_NEGINF 672

// Groups per chunk: stage 1 fills the frame's buffer with their y and 1/T, stage 2 reads it.
#define CHUNK 16

// Frame: the parent's constants broadcast, spills for the rare paths, the chunk buffer (y at
// S_BUF + 64g, 1/T at S_BUF + 64g + 32 for group g).
#define S_MAXINT 0
#define S_MAXSLOPE 32
#define S_MININT 64
#define S_LAM 96
#define S_AV 128
#define S_MSUM 160
#define S_T 192
#define S_FAST 224
#define S_MAP 232
#define S_G 240
#define S_END 248
#define S_ZREF 256
#define S_BUF 288

// Registers of splitsFullAVX2:
//   BX nodes + lb|lowO    R9 nodes + rb    CX counts + (lb|lowO)/4 (0: no count)   R10 counts + rb/4
//   R11 rest2   R12 H   R13 b0   R14 b1   R15 b0|b1
//   (restO, rest2, H and the b's in count units: subset index × 8; a node is at 4× that)
//   DI the group's offset in the buffer; the rare paths reload p into it and restore it from S_G
//   stage 1: SI L group base BX + 4H, R8 R group base R9 + 4(rest2 ^ H), AX fast lanes,
//            DX scratch; Y10 1.0, Y11 sP, Y12 best (broadcast), Y13 -Inf, X15 cnt
//   stage 2: Y13 zref (broadcast), X14 zsum
// Lane i's children, L and R: 0 (SI)(R15*4), (R8); 1 (SI)(R14*4), (R8)(R13*4);
// 2 (SI)(R13*4), (R8)(R14*4); 3 (SI), (R8)(R15*4).

// DEFERV records the split with children at AX and DX (addresses) as slow, or notes that the
// buffer is full, as the Go loops' deferSlow. DI = p. Uses AX, DX.
#define DEFERV(over, skip) \
	SUBQ parentSweep_nodes(DI), AX \
	SHLQ $27, AX \
	SUBQ parentSweep_nodes(DI), DX \
	SHRQ $5, DX \
	ORQ AX, DX \
	MOVQ parentSweep_nSlow(DI), AX \
	CMPQ AX, $const_slowBufLen \
	JCC over \
	MOVQ DX, parentSweep_slow(DI)(AX*8) \
	INCQ AX \
	MOVQ AX, parentSweep_nSlow(DI) \
	JMP skip \
over: \
	MOVQ $1, parentSweep_over(DI) \
skip:

// DEFERLANE defers lane bit's split unless it is fast (bit set in S_FAST) or has no R child.
// DI = p. Uses AX, DX.
#define DEFERLANE(bit, laddr, raddr, over, skip) \
	TESTQ $bit, S_FAST(SP) \
	JNE skip \
	LEAQ raddr, DX \
	CMPQ DX, parentSweep_nodes(DI) \
	JEQ skip \
	LEAQ laddr, AX \
	DEFERV(over, skip)

// MAPUPDATEV is the Go loops' MAP update: the table bound of log T, then the exact log, and the
// tie rule. In: X2 av, X4 mSum, DX the bits of T, DI p, the L child at laddr. Uses AX, DX, j,
// X0, X1, X5, X8.
#define MAPUPDATEV(j, laddr, skip, take, keep) \
	MOVQ DX, AX \
	SHRQ $52, AX \
	SUBQ $1023, AX \
	VCVTSI2SDQ AX, X5, X5 \
	MOVQ DX, j \
	SHRQ $42, j \
	ANDQ $1023, j \
	VMULSD ·asmConsts+C_LN2(SB), X5, X0 \
	LEAQ ·logTable(SB), AX \
	VADDSD (AX)(j*8), X0, X0 \
	VSUBSD ·asmConsts+C_SLACK(SB), X0, X0 \
	VADDSD X4, X2, X1 \
	VSUBSD X0, X1, X1 \
	VUCOMISD X12, X1 \
	JCS skip \
	MOVQ $0x000fffffffffffff, AX \
	ANDQ AX, DX \
	MOVQ $0x3ff0000000000000, AX \
	ORQ AX, DX \
	VMOVQ DX, X0 \
	LEAQ ·invTable(SB), AX \
	VMULSD (AX)(j*8), X0, X0 \
	VSUBSD ·asmConsts+C_ONE(SB), X0, X0 \
	VMULSD ·asmConsts+C_QUARTER(SB), X0, X1 \
	VMOVSD ·asmConsts+C_THIRD(SB), X8 \
	VSUBSD X1, X8, X8 \
	VMULSD X0, X8, X8 \
	VMOVSD ·asmConsts+C_HALF(SB), X1 \
	VSUBSD X8, X1, X1 \
	VMULSD X0, X0, X8 \
	VMULSD X1, X8, X8 \
	VSUBSD X8, X0, X0 \
	VMULSD ·asmConsts+C_LN2LO(SB), X5, X1 \
	LEAQ ·logTable(SB), AX \
	VADDSD (AX)(j*8), X1, X1 \
	VADDSD X0, X1, X1 \
	VMULSD ·asmConsts+C_LN2HI(SB), X5, X5 \
	VADDSD X1, X5, X5 \
	VSUBSD X5, X2, X1 \
	VADDSD X4, X1, X1 \
	VUCOMISD X12, X1 \
	JCS skip \
	LEAQ laddr, AX \
	JHI take \
	SUBQ parentSweep_nodes(DI), AX \
	SHRQ $5, AX \
	CMPQ AX, parentSweep_bestL(DI) \
	JCC skip \
	JMP keep \
take: \
	SUBQ parentSweep_nodes(DI), AX \
	SHRQ $5, AX \
keep: \
	VMOVAPD X1, X12 \
	MOVQ AX, parentSweep_bestL(DI)

// MAPLANE is splitsFullGo's MAP update for lane bit, when it is set in S_MAP, with av, mSum and T
// from the frame at lane offset off. DI = p. Uses AX, DX, R8, X0-X2, X4, X5, X8.
#define MAPLANE(bit, off, laddr, skip, take, keep) \
	TESTQ $bit, S_MAP(SP) \
	JEQ skip \
	VMOVSD S_AV+off(SP), X2 \
	VMOVSD S_MSUM+off(SP), X4 \
	MOVQ S_T+off(SP), DX \
	MAPUPDATEV(R8, laddr, skip, take, keep) \
skip:

// EXPV is the scalar exp of splitsFullGo: X4 = e^rr·2^(k/64), for X5 = nx ≥ −708. Uses AX, SI,
// R8, X0, X1, X5.
#define EXPV \
	VMULSD ·asmConsts+C_64LN2(SB), X5, X0 \
	VSUBSD ·asmConsts+C_HALF(SB), X0, X0 \
	VCVTTSD2SIQ X0, AX \
	VCVTSI2SDQ AX, X0, X0 \
	VMULSD ·asmConsts+C_LN2HI64(SB), X0, X1 \
	VSUBSD X1, X5, X5 \
	VMULSD ·asmConsts+C_LN2LO64(SB), X0, X0 \
	VSUBSD X0, X5, X5 \
	VMULSD X5, X5, X0 \
	VMULSD ·asmConsts+C_6(SB), X5, X1 \
	VADDSD ·asmConsts+C_HALF(SB), X1, X1 \
	VMULSD X0, X1, X1 \
	VADDSD ·asmConsts+C_ONE(SB), X5, X4 \
	VADDSD X1, X4, X4 \
	VMULSD ·asmConsts+C_120(SB), X5, X1 \
	VADDSD ·asmConsts+C_24(SB), X1, X1 \
	VMULSD ·asmConsts+C_720(SB), X0, X5 \
	VADDSD X5, X1, X1 \
	VMULSD X0, X0, X0 \
	VMULSD X1, X0, X0 \
	VADDSD X0, X4, X4 \
	MOVQ AX, SI \
	ANDQ $63, SI \
	LEAQ ·expTable(SB), R8 \
	VMULSD (R8)(SI*8), X4, X4 \
	SARQ $6, AX \
	ADDQ $1023, AX \
	SHLQ $52, AX \
	VMOVQ AX, X0 \
	VMULSD X0, X4, X4

// ZLANE is splitsFullGo's log Z update for the lane at offset off of the group at DI in the
// buffer. Uses AX, DX, SI, R8, X0-X2, X4, X5, X8.
#define ZLANE(off, nx, ex, add, next) \
	VMOVSD S_BUF+off(SP)(DI*1), X2 \
	VSUBSD X13, X2, X4 \
	VMOVAPD X4, X5 \
	VXORPD X0, X0, X0 \
	VUCOMISD X0, X4 \
	SETHI DL \
	JLS nx \
	VSUBSD X4, X0, X5 \
nx: \
	VXORPD X1, X1, X1 \
	VUCOMISD ·asmConsts+C_M708(SB), X5 \
	JCS ex \
	EXPV \
	VMOVAPD X4, X1 \
ex: \
	VMOVSD S_BUF+32+off(SP)(DI*1), X8 \
	TESTB DL, DL \
	JEQ add \
	VMULSD X1, X14, X14 \
	VADDSD X8, X14, X14 \
	VMOVAPD X2, X13 \
	JMP next \
add: \
	VMULSD X8, X1, X1 \
	VADDSD X1, X14, X14 \
next:

// COUNTLANE adds count[L]·count[R] of lane bit to cnt when it is fast (bit set in AX); DX and SI
// are the count bases of the group, CX + H and R10 + (rest2 ^ H).
#define COUNTLANE(bit, lc, rc, skip) \
	TESTQ $bit, AX \
	JEQ skip \
	VMOVSD lc, X0 \
	VMULSD rc, X0, X0 \
	VADDSD X0, X15, X15 \
skip:

// SETUP sets, from DI = p, BX, R9 and R11-R15 as listed above. Uses AX.
#define SETUP \
	MOVQ parentSweep_nodes(DI), BX \
	ADDQ parentSweep_lb(DI), BX \
	ADDQ parentSweep_lowO(DI), BX \
	MOVQ parentSweep_nodes(DI), R9 \
	ADDQ parentSweep_rb(DI), R9 \
	MOVQ parentSweep_restO(DI), R11 \
	SHRQ $2, R11 \
	MOVQ R11, R13 \
	NEGQ R13 \
	ANDQ R11, R13 \
	XORQ R13, R11 \
	MOVQ R11, R14 \
	NEGQ R14 \
	ANDQ R11, R14 \
	XORQ R14, R11 \
	LEAQ (R13)(R14*1), R15 \
	MOVQ R11, R12

// GROUPBASES sets SI and R8, the group's base addresses. Uses AX.
#define GROUPBASES \
	LEAQ (BX)(R12*4), SI \
	MOVQ R11, AX \
	XORQ R12, AX \
	LEAQ (R9)(AX*4), R8

// NEXTGROUP steps H to the next submask of rest2, or jumps to done after H = 0.
#define NEXTGROUP(loop, done) \
	SUBQ $8, R12 \
	JCS done \
	ANDQ R11, R12 \
	JMP loop

// func splitsFullAVX2(p *parentSweep)
//
// Not NOSPLIT: the frame, with the chunk buffer, is larger than a NOSPLIT function may take.
TEXT ·splitsFullAVX2(SB), 0, $1312-8
	MOVQ p+0(FP), DI
	SETUP
	MOVQ parentSweep_counts(DI), CX // count bases, CX = 0 without a count
	MOVQ CX, R10
	TESTQ CX, CX
	JEQ noCount
	MOVQ parentSweep_lb(DI), AX
	ORQ parentSweep_lowO(DI), AX
	SHRQ $2, AX
	ADDQ AX, CX
	MOVQ parentSweep_rb(DI), AX
	SHRQ $2, AX
	ADDQ AX, R10

noCount:
	VBROADCASTSD P_MAXINT(DI), Y0
	VMOVUPD Y0, S_MAXINT(SP)
	VBROADCASTSD P_MAXSLOPE(DI), Y0
	VMOVUPD Y0, S_MAXSLOPE(SP)
	VBROADCASTSD P_MININT(DI), Y0
	VMOVUPD Y0, S_MININT(SP)
	VBROADCASTSD P_LAM(DI), Y0
	VMOVUPD Y0, S_LAM(SP)
	VMOVUPD ·avxConsts+V_ONE(SB), Y10
	VBROADCASTSD P_SP(DI), Y11
	VBROADCASTSD parentSweep_best(DI), Y12
	MOVQ parentSweep_zref(DI), AX
	MOVQ AX, S_ZREF(SP)
	VMOVSD parentSweep_zsum(DI), X14
	VMOVSD parentSweep_cnt(DI), X15

chunk:
	XORQ DI, DI
	VMOVUPD ·avxConsts+V_NEGINF(SB), Y13

group:
	GROUPBASES

	// The children's {t, s}: lanes 0 and 2 in one register, 1 and 3 in the other, then unpacked.
	VMOVUPD (SI)(R15*4), X0
	VINSERTF128 $1, (SI)(R13*4), Y0, Y0
	VMOVUPD (SI)(R14*4), X1
	VINSERTF128 $1, (SI), Y1, Y1
	VMOVUPD (R8), X2
	VINSERTF128 $1, (R8)(R14*4), Y2, Y2
	VMOVUPD (R8)(R13*4), X3
	VINSERTF128 $1, (R8)(R15*4), Y3, Y3
	VUNPCKLPD Y1, Y0, Y4   // tL
	VUNPCKHPD Y1, Y0, Y0   // sL
	VUNPCKLPD Y3, Y2, Y5   // tR
	VUNPCKHPD Y3, Y2, Y2   // sR

	// Stored t and s are ≥ +0 (s = √t, monotone), so max and min give the Go loop's selects.
	VMAXPD Y5, Y4, Y1      // tmax
	VMINPD Y5, Y4, Y4      // tmin
	VMAXPD Y2, Y0, Y0      // sMax
	VSUBPD Y0, Y11, Y0     // d = sP - sMax
	VMULPD Y0, Y0, Y0      // T

	// Fast lanes: tmin > 0 and 2^-100 <= T < 2^100 (isFast).
	VXORPD Y2, Y2, Y2
	VCMPPD $0x1e, Y2, Y4, Y3
	VCMPPD $0x1d, ·avxConsts+V_TLO(SB), Y0, Y5
	VANDPD Y5, Y3, Y3
	VCMPPD $0x11, ·avxConsts+V_THI(SB), Y0, Y5
	VANDPD Y5, Y3, Y3      // fast-lane mask
	VMOVMSKPD Y3, AX
	CMPQ AX, $15
	JNE slowLanes

fast:
	// In a fast lane tmax >= tmin > 0, so t1 = maxInt + maxSlope*tmax;
	// av = (t1 + minInt) - lam*tmin*(1/T).
	VMULPD S_MAXSLOPE(SP), Y1, Y5
	VADDPD S_MAXINT(SP), Y5, Y5
	VDIVPD Y0, Y10, Y6     // inv
	VADDPD S_MININT(SP), Y5, Y5
	VMULPD S_LAM(SP), Y4, Y4
	VMULPD Y6, Y4, Y4
	VSUBPD Y4, Y5, Y5      // av

	// The children's {m, z}, as {t, s} above; mSum = mL + mR and y = (av + zL) + zR.
	VMOVUPD 16(SI)(R15*4), X7
	VINSERTF128 $1, 16(SI)(R13*4), Y7, Y7
	VMOVUPD 16(SI)(R14*4), X8
	VINSERTF128 $1, 16(SI), Y8, Y8
	VMOVUPD 16(R8), X1
	VINSERTF128 $1, 16(R8)(R14*4), Y1, Y1
	VMOVUPD 16(R8)(R13*4), X2
	VINSERTF128 $1, 16(R8)(R15*4), Y2, Y2
	VUNPCKLPD Y8, Y7, Y9   // mL
	VUNPCKHPD Y8, Y7, Y7   // zL
	VUNPCKLPD Y2, Y1, Y4   // mR
	VUNPCKHPD Y2, Y1, Y1   // zR
	VADDPD Y4, Y9, Y9      // mSum
	VADDPD Y7, Y5, Y7
	VADDPD Y1, Y7, Y7      // y

	// Into the buffer: y, and 1/T, or -Inf and 0 in slow lanes.
	VBLENDVPD Y3, Y7, Y13, Y7
	VMOVUPD Y7, S_BUF(SP)(DI*1)
	VANDPD Y3, Y6, Y6
	VMOVUPD Y6, S_BUF+32(SP)(DI*1)

	// MAP: lanes where (av + mSum) - (e*ln2 - slack) >= best, e = T's unbiased exponent (made
	// exact from its bits through 2^52 + e_biased), go through MAPLANE.
	VPSRLQ $52, Y0, Y1
	VPOR ·avxConsts+V_MAGIC(SB), Y1, Y1
	VSUBPD ·avxConsts+V_MAGIC1023(SB), Y1, Y1
	VMULPD ·avxConsts+V_LN2(SB), Y1, Y1
	VSUBPD ·avxConsts+V_SLACK(SB), Y1, Y1
	VADDPD Y9, Y5, Y2
	VSUBPD Y1, Y2, Y2
	VCMPPD $0x1d, Y12, Y2, Y2
	VMOVMSKPD Y2, DX
	ANDQ AX, DX
	JNE mapLanes

count:
	TESTQ CX, CX
	JEQ nextGroup
	LEAQ (CX)(R12*1), DX
	MOVQ R11, SI
	XORQ R12, SI
	ADDQ R10, SI
	CMPQ AX, $15
	JNE countLanes
	VMOVSD (DX)(R15*1), X0
	VMULSD (SI), X0, X0
	VADDSD X0, X15, X15
	VMOVSD (DX)(R14*1), X0
	VMULSD (SI)(R13*1), X0, X0
	VADDSD X0, X15, X15
	VMOVSD (DX)(R13*1), X0
	VMULSD (SI)(R14*1), X0, X0
	VADDSD X0, X15, X15
	VMOVSD (DX), X0
	VMULSD (SI)(R15*1), X0, X0
	VADDSD X0, X15, X15

nextGroup:
	ADDQ $64, DI
	SUBQ $8, R12
	JCS stage2             // H was 0, the last group; R12 < 0 marks the end
	ANDQ R11, R12
	CMPQ DI, $(CHUNK*64)
	JNE group

stage2:
	MOVQ DI, S_END(SP)
	XORQ DI, DI
	VBROADCASTSD S_ZREF(SP), Y13

zGroup:
	// x = y - zref; a lane with x > 0 raises the maximum: the group goes through ZLANE.
	VMOVUPD S_BUF(SP)(DI*1), Y1
	VSUBPD Y13, Y1, Y1
	VXORPD Y2, Y2, Y2
	VCMPPD $0x1e, Y2, Y1, Y2
	VTESTPD Y2, Y2
	JNE newMax

	// ex = expNeg(x) as splitsFullGo's inlined copy, 0 where !(x >= -708).
	VMULPD ·avxConsts+V_64LN2(SB), Y1, Y2
	VSUBPD ·avxConsts+V_HALF(SB), Y2, Y2
	VCVTTPD2DQY Y2, X2     // ki
	VCVTDQ2PD X2, Y4       // kf
	VMULPD ·avxConsts+V_LN2HI64(SB), Y4, Y8
	VSUBPD Y8, Y1, Y8
	VMULPD ·avxConsts+V_LN2LO64(SB), Y4, Y4
	VSUBPD Y4, Y8, Y8      // rr
	VMULPD Y8, Y8, Y4      // r2
	VMULPD ·avxConsts+V_6(SB), Y8, Y5
	VADDPD ·avxConsts+V_HALF(SB), Y5, Y5
	VMULPD Y4, Y5, Y5      // r2*(0.5 + rr/6)
	VADDPD Y10, Y8, Y9     // 1 + rr
	VADDPD Y5, Y9, Y9
	VMULPD ·avxConsts+V_120(SB), Y8, Y5
	VADDPD ·avxConsts+V_24(SB), Y5, Y5
	VMULPD ·avxConsts+V_720(SB), Y4, Y8
	VADDPD Y8, Y5, Y5      // (1/24 + rr/120) + r2/720
	VMULPD Y4, Y4, Y4
	VMULPD Y5, Y4, Y4
	VADDPD Y4, Y9, Y9      // e^rr
	VPAND ·avxInts+0(SB), X2, X4
	VPCMPEQD Y5, Y5, Y5
	VXORPD Y8, Y8, Y8
	LEAQ ·expTable(SB), DX
	VGATHERDPD Y5, (DX)(X4*8), Y8
	VMULPD Y8, Y9, Y9      // * expTable[ki&63]
	VPSRAD $6, X2, X2
	VPADDD ·avxInts+16(SB), X2, X2
	VPMOVSXDQ X2, Y2
	VPSLLQ $52, Y2, Y2
	VMULPD Y2, Y9, Y9      // * 2^(ki>>6)
	VCMPPD $0x1d, ·avxConsts+V_M708(SB), Y1, Y2
	VANDPD Y2, Y9, Y9      // ex
	VMULPD S_BUF+32(SP)(DI*1), Y9, Y9 // inv*ex

	// zsum += each lane's inv*ex, in lane order.
	VADDSD X9, X14, X14
	VPERMILPD $1, X9, X4
	VADDSD X4, X14, X14
	VEXTRACTF128 $1, Y9, X9
	VADDSD X9, X14, X14
	VPERMILPD $1, X9, X9
	VADDSD X9, X14, X14

nextZ:
	ADDQ $64, DI
	CMPQ DI, S_END(SP)
	JNE zGroup
	VMOVSD X13, S_ZREF(SP)
	TESTQ R12, R12
	JNS chunk

	MOVQ p+0(FP), DI
	VMOVSD X12, parentSweep_best(DI)
	MOVQ S_ZREF(SP), AX
	MOVQ AX, parentSweep_zref(DI)
	VMOVSD X14, parentSweep_zsum(DI)
	VMOVSD X15, parentSweep_cnt(DI)
	VZEROUPPER
	RET

slowLanes:
	MOVQ AX, S_FAST(SP)
	MOVQ DI, S_G(SP)
	MOVQ p+0(FP), DI
	DEFERLANE(1, (SI)(R15*4), (R8), over0, skip0)
	DEFERLANE(2, (SI)(R14*4), (R8)(R13*4), over1, skip1)
	DEFERLANE(4, (SI)(R13*4), (R8)(R14*4), over2, skip2)
	DEFERLANE(8, (SI), (R8)(R15*4), over3, skip3)
	MOVQ S_G(SP), DI
	MOVQ S_FAST(SP), AX
	JMP fast

mapLanes:
	MOVQ AX, S_FAST(SP)
	MOVQ DX, S_MAP(SP)
	MOVQ DI, S_G(SP)
	MOVQ p+0(FP), DI
	VMOVUPD Y5, S_AV(SP)
	VMOVUPD Y9, S_MSUM(SP)
	VMOVUPD Y0, S_T(SP)
	MAPLANE(1, 0, (SI)(R15*4), mskip0, mtake0, mkeep0)
	MAPLANE(2, 8, (SI)(R14*4), mskip1, mtake1, mkeep1)
	MAPLANE(4, 16, (SI)(R13*4), mskip2, mtake2, mkeep2)
	MAPLANE(8, 24, (SI), mskip3, mtake3, mkeep3)
	VBROADCASTSD X12, Y12
	MOVQ S_G(SP), DI
	MOVQ S_FAST(SP), AX
	JMP count

countLanes:
	COUNTLANE(1, (DX)(R15*1), (SI), cskip0)
	COUNTLANE(2, (DX)(R14*1), (SI)(R13*1), cskip1)
	COUNTLANE(4, (DX)(R13*1), (SI)(R14*1), cskip2)
	COUNTLANE(8, (DX), (SI)(R15*1), cskip3)
	JMP nextGroup

newMax:
	ZLANE(0, znx0, zex0, zadd0, znext0)
	ZLANE(8, znx1, zex1, zadd1, znext1)
	ZLANE(16, znx2, zex2, zadd2, znext2)
	ZLANE(24, znx3, zex3, zadd3, znext3)
	VBROADCASTSD X13, Y13
	JMP nextZ

// mapParentsAVX2's frame: the lanes that pass the bound, the parent, the parent's distinct lanes.
#define M_LANES 0
#define M_XL 8
#define M_DISTINCT 16

// MAPLANEX is splitsMAPGo's loop body after the bound without selects, for lane bit when it is set
// in M_LANES: the selects (as max and min, and gMin by the comparison of the t bits), the g bound,
// then the slow check, av and MAPUPDATEV. DI = p. Uses AX, DX, CX, R10, X0-X5, X8.
#define MAPLANEX(bit, laddr, raddr, t1, slow, over, skip, take, keep) \
	TESTQ $bit, M_LANES(SP) \
	JEQ skip \
	LEAQ raddr, R10 \
	CMPQ R10, parentSweep_nodes(DI) \
	JEQ skip \
	LEAQ laddr, CX \
	MOVQ (CX), AX \
	MOVQ 24(R10), DX \
	CMPQ AX, (R10) \
	CMOVQCS 24(CX), DX \
	VMOVQ DX, X5 \
	VMOVSD (CX), X0 \
	VMAXSD (R10), X0, X3 \
	VMINSD (R10), X0, X0 \
	VMOVSD 8(CX), X1 \
	VMAXSD 8(R10), X1, X1 \
	VMOVSD P_SP(DI), X2 \
	VSUBSD X1, X2, X1 \
	VMULSD X1, X1, X1 \
	VMOVSD P_MAXLEAF(DI), X2 \
	VXORPD X4, X4, X4 \
	VUCOMISD X4, X3 \
	JEQ t1 \
	VMULSD P_MAXSLOPE(DI), X3, X2 \
	VADDSD P_MAXINT(DI), X2, X2 \
t1: \
	VMOVSD 16(CX), X4 \
	VADDSD 16(R10), X4, X4 \
	VADDSD P_NEGLOGNORM(DI), X2, X3 \
	VADDSD X5, X3, X3 \
	VADDSD X4, X3, X3 \
	VUCOMISD X12, X3 \
	JCS skip \
	INCQ parentSweep_passed(DI) \
	VMOVQ X1, DX \
	VMOVQ X0, AX \
	TESTQ AX, AX \
	JEQ slow \
	MOVQ DX, AX \
	SHRQ $52, AX \
	SUBQ $923, AX \
	CMPQ AX, $200 \
	JCC slow \
	VADDSD P_MININT(DI), X2, X2 \
	VMULSD P_LAM(DI), X0, X0 \
	VDIVSD X1, X0, X0 \
	VSUBSD X0, X2, X2 \
	MAPUPDATEV(R10, (CX), skip, take, keep) \
	JMP skip \
slow: \
	MOVQ CX, AX \
	MOVQ R10, DX \
	DEFERV(over, skip)

// func mapParentsAVX2(p *parentSweep, sc *acc, xl, hi uint32) uint32
//
// splitsMAPGo without a count, for the sweep's parents xl, xl+1, … (sc[xl] the accumulator of
// parent xl, and p set up with the sweep's lb and rb), four splits at a time in the groups of
// splitsFullAVX2: the bound without selects for all four, then the rest of the Go loop's body, in
// lane order, for the lanes that pass it. It stops, returning the parent, at hi, at xl = 0 (left to
// the caller, with nSlow and over 0), or at a parent whose slow splits it deferred (nSlow or over
// set, for the caller to add). Taking whole runs of parents saves a Go call per parent. With
// p.bound set, a parent whose sweep bound (sweepBound) is below its best is skipped whole, as the
// Go sweep skips it.
//
// The bound comes in two steps: first without its term maxSlope·tmax ≤ 0, which needs only the
// {m, z} pairs, so half the loads and shuffles of a group; the groups that pass it (about 7 % at
// N = 20, against 3 % for the whole bound) then load the {t, s} pairs for the whole bound.
//
// A parent with fewer than two bits in rest (1 or 2 splits) takes the same single group, with
// b1 = 0 or b0 = b1 = 0: its lanes 2 and 3 repeat lanes 0 and 1 (b1 = 0), or all lanes lane 0
// (b0 = b1 = 0). M_DISTINCT masks the repeats off, so that each split is taken once, as in the Go
// loop, and counted once in passed (a repeat would change no value: it loses the tie rule to
// itself, and the MAP takes a repeated slow split alike).
//
// Registers as in splitsFullAVX2, with DI = p, Y11 maxC + negLogNorm, Y12 best, Y13 maxSlope, Y14
// maxC and Y15 negLogNorm (broadcast).
TEXT ·mapParentsAVX2(SB), NOSPLIT, $24-28
	MOVQ p+0(FP), DI
	MOVL xl+16(FP), AX
	MOVL AX, M_XL(SP)

mapParent:
	MOVQ $0, parentSweep_nSlow(DI)
	MOVQ $0, parentSweep_over(DI)
	MOVL M_XL(SP), AX
	CMPL AX, hi+20(FP)
	JCC mapStop
	IMUL3Q $acc__size, AX, SI
	ADDQ sc+8(FP), SI      // a = &sc[xl]
	CMPB acc_skip(SI), $0
	JNE mapNextParent
	MOVL AX, DX
	NEGL DX
	ANDL AX, DX            // low
	JEQ mapStop            // xl = 0: its one split depends on the sweep's zero
	MOVQ parentSweep_bound(DI), R9
	TESTQ R9, R9
	JEQ mapLoad
	// Skip the parent when pruneC + bound[popcount(xl)] < best; NaN skips nothing. pruneC is
	// kept in acc.cnt (acc.pruneC).
	POPCNTL AX, R8
	VMOVSD acc_cnt(SI), X0
	VADDSD (R9)(R8*8), X0, X0
	VMOVSD acc_best(SI), X1
	VUCOMISD X0, X1
	JHI mapNextParent

mapLoad:
	XORL DX, AX            // rest
	SHLQ $5, DX
	MOVQ DX, parentSweep_lowO(DI)
	SHLQ $5, AX
	MOVQ AX, parentSweep_restO(DI)
	VMOVUPD acc_c(SI), Y0  // p.c = a.c, gkConsts = 8 floats
	VMOVUPD Y0, parentSweep_c(DI)
	VMOVUPD acc_c+32(SI), Y0
	VMOVUPD Y0, parentSweep_c+32(DI)
	MOVL acc_bestL(SI), AX
	MOVQ AX, parentSweep_bestL(DI)

	SETUP
	MOVQ $1, AX            // the distinct lanes: 1 with b0 = 0, 3 with b1 = 0, else 15
	TESTQ R13, R13
	JEQ mapDistinct
	MOVQ $3, AX
	TESTQ R14, R14
	JEQ mapDistinct
	MOVQ $15, AX

mapDistinct:
	MOVQ AX, M_DISTINCT(SP)
	VBROADCASTSD acc_best(SI), Y12
	VBROADCASTSD P_MAXSLOPE(DI), Y13
	VBROADCASTSD P_MAXC(DI), Y14
	VBROADCASTSD P_NEGLOGNORM(DI), Y15
	VMOVSD P_MAXC(DI), X11
	VADDSD P_NEGLOGNORM(DI), X11, X11
	VBROADCASTSD X11, Y11

mapGroup:
	GROUPBASES
	// mSum and max(gL, gR) from the {m, z} pairs.
	VMOVUPD 16(SI)(R15*4), X1
	VINSERTF128 $1, 16(SI)(R13*4), Y1, Y1
	VMOVUPD 16(R8), X2
	VINSERTF128 $1, 16(R8)(R14*4), Y2, Y2
	VADDPD Y2, Y1, Y3
	VMAXPD Y2, Y1, Y1
	VMOVUPD 16(SI)(R14*4), X2
	VINSERTF128 $1, 16(SI), Y2, Y2
	VMOVUPD 16(R8)(R13*4), X4
	VINSERTF128 $1, 16(R8)(R15*4), Y4, Y4
	VADDPD Y4, Y2, Y5
	VMAXPD Y4, Y2, Y2
	VUNPCKLPD Y5, Y3, Y3   // mSum
	VUNPCKHPD Y2, Y1, Y1   // max(gL, gR)

	// The bound without its term maxSlope*tmax ≤ 0: ((maxC + negLogNorm) + max(gL, gR)) + mSum
	// is at least the bound below, as rounding is monotone, and needs no t.
	VADDPD Y1, Y11, Y0
	VADDPD Y3, Y0, Y0
	VCMPPD $0x1d, Y12, Y0, Y0
	VTESTPD Y0, Y0
	JNE mapTmax

mapNext:
	NEXTGROUP(mapGroup, mapDone)

mapDone:
	MOVL M_XL(SP), AX
	IMUL3Q $acc__size, AX, SI
	ADDQ sc+8(FP), SI
	VMOVSD X12, acc_best(SI)
	MOVQ parentSweep_bestL(DI), AX
	MOVL AX, acc_bestL(SI)
	MOVQ parentSweep_nSlow(DI), AX
	ORQ parentSweep_over(DI), AX
	JNE mapStop

mapNextParent:
	INCL M_XL(SP)
	JMP mapParent

mapStop:
	MOVL M_XL(SP), AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET

mapTmax:
	// tmax from the {t, s} pairs, then the bound of splitsMAPGo:
	// ((maxC + maxSlope*tmax) + negLogNorm + max(gL, gR)) + mSum >= best.
	VMOVUPD (SI)(R15*4), X0
	VINSERTF128 $1, (SI)(R13*4), Y0, Y0
	VMOVUPD (R8), X2
	VINSERTF128 $1, (R8)(R14*4), Y2, Y2
	VMAXPD Y2, Y0, Y0
	VMOVUPD (SI)(R14*4), X4
	VINSERTF128 $1, (SI), Y4, Y4
	VMOVUPD (R8)(R13*4), X2
	VINSERTF128 $1, (R8)(R15*4), Y2, Y2
	VMAXPD Y2, Y4, Y4
	VUNPCKLPD Y4, Y0, Y0   // tmax
	VMULPD Y13, Y0, Y0
	VADDPD Y14, Y0, Y0
	VADDPD Y15, Y0, Y0
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y0, Y0
	VCMPPD $0x1d, Y12, Y0, Y0
	VTESTPD Y0, Y0
	JEQ mapNext

	VMOVMSKPD Y0, AX
	ANDQ M_DISTINCT(SP), AX
	MOVQ AX, M_LANES(SP)
	MAPLANEX(1, (SI)(R15*4), (R8), xt10, xslow0, xover0, xskip0, xtake0, xkeep0)
	MAPLANEX(2, (SI)(R14*4), (R8)(R13*4), xt11, xslow1, xover1, xskip1, xtake1, xkeep1)
	MAPLANEX(4, (SI)(R13*4), (R8)(R14*4), xt12, xslow2, xover2, xskip2, xtake2, xkeep2)
	MAPLANEX(8, (SI), (R8)(R15*4), xt13, xslow3, xover3, xskip3, xtake3, xkeep3)
	VBROADCASTSD X12, Y12
	JMP mapNext
