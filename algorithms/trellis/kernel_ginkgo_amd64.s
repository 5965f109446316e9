// The split loops of kernel_ginkgo.go (splitsFullGo, splitsMAPGo) in amd64 assembly, SSE2 only.
// Each floating-point operation is the Go loop's, on the same operands in the same order, so the
// results are identical bit for bit (TestAssemblyMatchesGo); the assembly only keeps every loop
// value in a register, which the Go compiler does not manage here.

#include "go_asm.h"
#include "textflag.h"

#include "kernel_ginkgo_amd64.h"

// Registers of both loops:
//   DI p          BX nodes      CX counts (0: no count)
//   R8 lb|lowO    R9 rb         R11 restO     R12 uO      R13 lO      R14 rO
//   R10 asmConsts on the fast path; AX DX SI R15 (and R10 elsewhere): scratch
//   X6 sP   X7 maxInt   X8 maxSlope   X9 maxLeaf   X10 minInt   X11 lam
//   X12 best   X13 zref (MAP-only: negLogNorm)   X14 zsum   X15 cnt   X0-X5: scratch
// A node is {t, s, m, z} at byte offsets 0, 8, 16, 24; a split's count index is its node
// offset >> 2. ABI0 code may use R14 and X15; the Go wrappers restore them.

// SELECTS loads the children's t and s and computes, branch-free, AX = hiT, DX = loT (t bits of
// the child of larger and of smaller t), SI = hiS (s bits of the larger), R15 = the select mask.
#define SELECTS \
	MOVQ (BX)(R13*1), AX \
	MOVQ (BX)(R14*1), DX \
	CMPQ AX, DX \
	SBBQ R15, R15 \
	MOVQ AX, SI \
	XORQ DX, SI \
	ANDQ R15, SI \
	XORQ SI, AX \
	XORQ SI, DX \
	MOVQ 8(BX)(R13*1), SI \
	MOVQ 8(BX)(R14*1), R10 \
	XORQ SI, R10 \
	ANDQ R15, R10 \
	XORQ R10, SI

// T1 sets X2 = hiT != 0 ? maxInt + maxSlope*tmax : maxLeaf.
#define T1(done) \
	MOVAPD X9, X2 \
	TESTQ AX, AX \
	JEQ done \
	MOVQ AX, X2 \
	MULSD X8, X2 \
	ADDSD X7, X2 \
done:

// FASTCHECK jumps to slow unless loT != 0 and T's biased exponent is in [923, 1123). In: DX loT,
// SI tb. Uses R10.
#define FASTCHECK(slow) \
	TESTQ DX, DX \
	JEQ slow \
	MOVQ SI, R10 \
	SHRQ $52, R10 \
	SUBQ $923, R10 \
	CMPQ R10, $200 \
	JCC slow

// MAPUPDATE adds the split to the MAP when it can beat the best: the table bound of log T first,
// then the exact log. In: SI tb, X2 av, X4 mSum, R10 asmConsts, R13 lO. Keeps X2, X3. Uses AX, DX,
// R15, X0, X1, X4, X5 and the local ms.
#define MAPUPDATE(skip, take) \
	MOVQ SI, AX \
	SHRQ $52, AX \
	SUBQ $1023, AX \
	CVTSQ2SD AX, X5 \
	MOVQ SI, R15 \
	SHRQ $42, R15 \
	ANDQ $1023, R15 \
	MOVAPD X5, X0 \
	MULSD C_LN2(R10), X0 \
	LEAQ ·logTable(SB), AX \
	ADDSD (AX)(R15*8), X0 \
	SUBSD C_SLACK(R10), X0 \
	MOVAPD X2, X1 \
	ADDSD X4, X1 \
	SUBSD X0, X1 \
	UCOMISD X12, X1 \
	JCS skip \
	MOVSD X4, ms-8(SP) \
	MOVQ SI, AX \
	MOVQ $0x000fffffffffffff, DX \
	ANDQ DX, AX \
	MOVQ $0x3ff0000000000000, DX \
	ORQ DX, AX \
	MOVQ AX, X0 \
	LEAQ ·invTable(SB), AX \
	MULSD (AX)(R15*8), X0 \
	SUBSD C_ONE(R10), X0 \
	MOVAPD X0, X1 \
	MULSD C_QUARTER(R10), X1 \
	MOVSD C_THIRD(R10), X4 \
	SUBSD X1, X4 \
	MULSD X0, X4 \
	MOVSD C_HALF(R10), X1 \
	SUBSD X4, X1 \
	MOVAPD X0, X4 \
	MULSD X0, X4 \
	MULSD X1, X4 \
	SUBSD X4, X0 \
	MOVAPD X5, X1 \
	MULSD C_LN2LO(R10), X1 \
	LEAQ ·logTable(SB), AX \
	ADDSD (AX)(R15*8), X1 \
	ADDSD X0, X1 \
	MULSD C_LN2HI(R10), X5 \
	ADDSD X1, X5 \
	MOVAPD X2, X1 \
	SUBSD X5, X1 \
	ADDSD ms-8(SP), X1 \
	UCOMISD X12, X1 \
	JCS skip \
	JHI take \
	MOVQ R13, AX \
	SHRQ $5, AX \
	CMPQ AX, parentSweep_bestL(DI) \
	JCC skip \
take: \
	MOVAPD X1, X12 \
	MOVQ R13, AX \
	SHRQ $5, AX \
	MOVQ AX, parentSweep_bestL(DI) \
skip:

// DEFER records the split (lO, rO) as slow, or notes that the buffer is full.
#define DEFER(over, next) \
	MOVQ parentSweep_nSlow(DI), AX \
	CMPQ AX, $const_slowBufLen \
	JCC over \
	MOVQ R13, DX \
	SHRQ $5, DX \
	SHLQ $32, DX \
	MOVQ R14, R10 \
	SHRQ $5, R10 \
	ORQ R10, DX \
	MOVQ DX, parentSweep_slow(DI)(AX*8) \
	INCQ AX \
	MOVQ AX, parentSweep_nSlow(DI) \
	JMP next \
over: \
	MOVQ $1, parentSweep_over(DI) \
	JMP next

// COUNT adds count[l]*count[r] to X15. Uses AX, X0.
#define COUNT \
	MOVQ R13, AX \
	SHRQ $2, AX \
	MOVSD (CX)(AX*1), X0 \
	MOVQ R14, AX \
	SHRQ $2, AX \
	MULSD (CX)(AX*1), X0 \
	ADDSD X0, X15

#define LOADCOMMON \
	MOVQ p+0(FP), DI \
	MOVQ parentSweep_nodes(DI), BX \
	MOVQ parentSweep_counts(DI), CX \
	MOVQ parentSweep_lb(DI), R8 \
	ORQ parentSweep_lowO(DI), R8 \
	MOVQ parentSweep_rb(DI), R9 \
	MOVQ parentSweep_restO(DI), R11 \
	MOVSD P_SP(DI), X6 \
	MOVSD P_MAXINT(DI), X7 \
	MOVSD P_MAXSLOPE(DI), X8 \
	MOVSD P_MAXLEAF(DI), X9 \
	MOVSD P_MININT(DI), X10 \
	MOVSD P_LAM(DI), X11 \
	MOVSD parentSweep_best(DI), X12 \
	MOVSD parentSweep_cnt(DI), X15 \
	MOVQ R11, R12

// NEXTSPLIT steps uO to the next submask of restO (in node offsets), or jumps to done after 0.
#define NEXTSPLIT(loop, done) \
	TESTQ R12, R12 \
	JEQ done \
	SUBQ $32, R12 \
	ANDQ R11, R12 \
	JMP loop

// func splitsFullAsm(p *parentSweep)
TEXT ·splitsFullAsm(SB), NOSPLIT, $8-8
	LOADCOMMON
	MOVSD parentSweep_zref(DI), X13
	MOVSD parentSweep_zsum(DI), X14

fullLoop:
	MOVQ R8, R13
	ORQ R12, R13
	MOVQ R11, R14
	XORQ R12, R14
	ORQ R9, R14
	JEQ fullNext
	SELECTS
	MOVQ SI, X0
	MOVAPD X6, X1
	SUBSD X0, X1           // d = sP - hiS
	MULSD X1, X1           // T
	MOVQ X1, SI            // tb
	FASTCHECK(fullSlow)
	T1(fullT1)
	LEAQ ·asmConsts(SB), R10
	MOVSD C_ONE(R10), X3
	DIVSD X1, X3           // inv = 1/T
	ADDSD X10, X2          // t1 + minInt
	MOVQ DX, X4
	MULSD X11, X4          // lam*tmin
	MULSD X3, X4           // *inv
	SUBSD X4, X2           // av = ℓ + log T
	MOVSD 16(BX)(R13*1), X4
	ADDSD 16(BX)(R14*1), X4 // mSum
	MAPUPDATE(fullMapSkip, fullMapTake)

	// log Z: y = (av + zL) + zR; x = y - zref; ex = e^(-|x|), 0 below -708 or for NaN.
	ADDSD 24(BX)(R13*1), X2
	ADDSD 24(BX)(R14*1), X2 // y
	MOVAPD X2, X4
	SUBSD X13, X4          // x
	MOVAPD X4, X5          // nx
	XORPS X0, X0
	UCOMISD X0, X4
	SETHI DL               // x > 0
	JLS fullNx
	XORPS X5, X5
	SUBSD X4, X5           // nx = -x
fullNx:
	XORPS X1, X1           // ex = 0
	UCOMISD C_M708(R10), X5
	JCS fullExp
	MOVAPD X5, X0
	MULSD C_64LN2(R10), X0
	SUBSD C_HALF(R10), X0
	CVTTSD2SQ X0, AX       // ki
	CVTSQ2SD AX, X0        // kf
	MOVAPD X0, X1
	MULSD C_LN2HI64(R10), X1
	SUBSD X1, X5
	MULSD C_LN2LO64(R10), X0
	SUBSD X0, X5           // rr
	// Estrin: ((1 + rr) + r2*(0.5 + rr/6)) + (r2*r2)*((1/24 + rr/120) + r2/720)
	MOVAPD X5, X0
	MULSD X5, X0           // r2
	MOVAPD X5, X1
	MULSD C_6(R10), X1
	ADDSD C_HALF(R10), X1
	MULSD X0, X1           // r2*(0.5 + rr/6)
	MOVSD C_ONE(R10), X4
	ADDSD X5, X4           // 1 + rr
	ADDSD X1, X4           // (1 + rr) + r2*(...)
	MOVAPD X5, X1
	MULSD C_120(R10), X1
	ADDSD C_24(R10), X1    // 1/24 + rr/120
	MOVAPD X0, X5
	MULSD C_720(R10), X5   // r2/720
	ADDSD X5, X1
	MULSD X0, X0           // r2*r2
	MULSD X1, X0
	ADDSD X0, X4           // e^rr
	MOVQ AX, SI
	ANDQ $63, SI
	LEAQ ·expTable(SB), R15
	MULSD (R15)(SI*8), X4
	SARQ $6, AX
	ADDQ $1023, AX
	SHLQ $52, AX
	MOVQ AX, X0
	MULSD X0, X4
	MOVAPD X4, X1          // ex
fullExp:
	TESTB DL, DL
	JEQ fullAdd
	MULSD X1, X14          // zsum = zsum*ex + inv
	ADDSD X3, X14
	MOVAPD X2, X13         // zref = y
	JMP fullCount
fullAdd:
	MULSD X3, X1           // inv*ex
	ADDSD X1, X14
fullCount:
	TESTQ CX, CX
	JEQ fullNext
	COUNT
	JMP fullNext

fullSlow:
	DEFER(fullOver, fullNext)

fullNext:
	NEXTSPLIT(fullLoop, fullDone)

fullDone:
	MOVSD X12, parentSweep_best(DI)
	MOVSD X13, parentSweep_zref(DI)
	MOVSD X14, parentSweep_zsum(DI)
	MOVSD X15, parentSweep_cnt(DI)
	RET

// The exact part of splitsMAPGo's loop body, after the g bound: jumps to next when the split
// cannot beat the best, and defers it when it is slow. In: X1 T, X2 t1, DX loT, R10 gMin, R13 lO,
// R14 rO.
#define MAPEXACT(slow, over, skip, take, next) \
	MOVSD 16(BX)(R13*1), X4 \
	ADDSD 16(BX)(R14*1), X4 \
	MOVAPD X2, X0 \
	ADDSD X13, X0 \
	MOVQ R10, X5 \
	ADDSD X5, X0 \
	ADDSD X4, X0 \
	UCOMISD X12, X0 \
	JCS next \
	INCQ parentSweep_passed(DI) \
	MOVQ X1, SI \
	FASTCHECK(slow) \
	LEAQ ·asmConsts(SB), R10 \
	ADDSD X10, X2 \
	MOVQ DX, X0 \
	MULSD X11, X0 \
	DIVSD X1, X0 \
	SUBSD X0, X2 \
	MAPUPDATE(skip, take) \
	JMP next \
slow: \
	DEFER(over, next)

// GMINT computes what MAPEXACT takes from the children: the selects, R10 = gMin, the z (bound)
// field of the child of smaller t, as rz ^ ((lz ^ rz) & m), X1 = T and X2 = t1.
#define GMINT(t1) \
	SELECTS \
	MOVQ 24(BX)(R13*1), R10 \
	XORQ 24(BX)(R14*1), R10 \
	ANDQ R15, R10 \
	XORQ 24(BX)(R14*1), R10 \
	MOVQ SI, X0 \
	MOVAPD X6, X1 \
	SUBSD X0, X1 \
	MULSD X1, X1 \
	T1(t1)

// func splitsMAPAsm(p *parentSweep)
TEXT ·splitsMAPAsm(SB), NOSPLIT, $8-8
	LOADCOMMON
	MOVSD P_NEGLOGNORM(DI), X13
	TESTQ CX, CX
	JEQ mapFast

mapLoop:
	MOVQ R8, R13
	ORQ R12, R13
	MOVQ R11, R14
	XORQ R12, R14
	ORQ R9, R14
	JEQ mapNext
	GMINT(mapT1)
	TESTQ DX, DX
	JEQ mapCount
	XORPS X0, X0
	UCOMISD X0, X1
	JLS mapNoCount         // T > 0 or a leaf child: the split is finite
mapCount:
	COUNT
mapNoCount:
	MAPEXACT(mapSlow, mapOver, mapSkip, mapTake, mapNext)

mapNext:
	NEXTSPLIT(mapLoop, mapDone)

	// Without a count: the bound of splitsMAPGo without selects first,
	// ((maxC + maxSlope*max(tL, tR)) + negLogNorm + max(gL, gR)) + (mL + mR), with the L child at
	// R8 + uO.
mapFast:
	MOVSD P_MAXC(DI), X3
	ADDQ BX, R8            // nodes + lb|lowO

mapFastLoop:
	MOVQ R11, R14
	XORQ R12, R14
	ORQ R9, R14            // rO
	JEQ mapFastNext
	MOVSD (R8)(R12*1), X0
	MAXSD (BX)(R14*1), X0
	MULSD X8, X0
	ADDSD X3, X0
	ADDSD X13, X0
	MOVSD 24(R8)(R12*1), X1
	MAXSD 24(BX)(R14*1), X1
	ADDSD X1, X0
	MOVSD 16(R8)(R12*1), X1
	ADDSD 16(BX)(R14*1), X1
	ADDSD X1, X0
	UCOMISD X12, X0
	JCS mapFastNext
	LEAQ (R8)(R12*1), R13
	SUBQ BX, R13           // lO
	GMINT(mapFastT1)
	MAPEXACT(mapFastSlow, mapFastOver, mapFastSkip, mapFastTake, mapFastNext)

mapFastNext:
	NEXTSPLIT(mapFastLoop, mapDone)

mapDone:
	MOVSD X12, parentSweep_best(DI)
	MOVSD X15, parentSweep_cnt(DI)
	RET
