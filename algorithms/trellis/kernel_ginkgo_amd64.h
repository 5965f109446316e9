// Shared by kernel_ginkgo_amd64.s and kernel_ginkgo_avx2_amd64.s.

// Byte offsets into asmConsts (kernel_ginkgo_amd64.go).
#define C_ONE 0
#define C_64LN2 8
#define C_HALF 16
#define C_LN2HI64 24
#define C_LN2LO64 32
#define C_720 40
#define C_120 48
#define C_24 56
#define C_6 64
#define C_M708 72
#define C_LN2 80
#define C_SLACK 88
#define C_QUARTER 96
#define C_THIRD 104
#define C_LN2HI 112
#define C_LN2LO 120

// Offsets of the parent's constants in parentSweep (kernel_ginkgo.go); go_asm.h comes first.
#define P_SP parentSweep_c+const_gkSP*8
#define P_MAXINT parentSweep_c+const_gkMaxInt*8
#define P_MAXSLOPE parentSweep_c+const_gkMaxSlope*8
#define P_MAXLEAF parentSweep_c+const_gkMaxLeaf*8
#define P_MAXC parentSweep_c+const_gkMaxC*8
#define P_MININT parentSweep_c+const_gkMinInt*8
#define P_LAM parentSweep_c+const_gkLambda*8
#define P_NEGLOGNORM parentSweep_c+const_gkNegLogNorm*8
