package results

// Thresholds are the largest changes that compare accepts, per data set and algorithm, between
// the means of an earlier and a later run over the tasks both finished. A quality metric that
// gets worse by more than its threshold is a regression (exit 1), as is a task that succeeded
// before and fails now.
type Thresholds struct {
	LogLikelihood float64 `yaml:"log_likelihood" json:"log_likelihood" default:"1e-6" help:"largest drop of the mean log-likelihood (nats)"`
	ExactGap      float64 `yaml:"exact_gap" json:"exact_gap" default:"1e-6" help:"largest rise of the mean gap to the exact MAP (nats; items where a trellis ran)"`
	LogEvidence   float64 `yaml:"log_evidence" json:"log_evidence" default:"1e-6" help:"largest drop of the mean log evidence of the Bayesian algorithms (nats)"`
	Purity        float64 `yaml:"purity" json:"purity" default:"0.001" help:"largest drop of the mean dendrogram purity (leaf-weighted)"`
	Time          float64 `yaml:"time" json:"time" default:"0" help:"largest slowdown of the median task time, as a fraction (0.2: 20% slower), counted only when a Mann-Whitney U test finds the change significant (p < 0.05) and the slower median is at least 1 ms; counted only over at least 8 tasks of the row in both runs, with both runs on one machine (host, CPUs and workers of their sessions); 0: time is reported, never a regression"`
}
