package reports

// The algorithms' roles (the exact method, the truth, the baseline) are fields of registry's
// table, which passes them to results as its entries register.
import (
	_ "github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// setMetrics sets computed metrics of a record: key, value, key, value, ….
func setMetrics(r *results.Record, kv ...any) {
	if r.Metrics == nil {
		r.Metrics = map[string]float64{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Metrics[kv[i].(string)] = kv[i+1].(float64)
	}
}
