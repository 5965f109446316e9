package compare

// The algorithms' roles (the exact method, the truth, the baseline) are fields of registry's
// table, which passes them to results as its entries register.
import _ "github.com/hcbench/hcbench/experiments/registry"
