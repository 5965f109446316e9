package compare

// Finding is one line of a gate's verdict (compare -check, history -check): a regression, or
// something that kept the gate from deciding. The plain-text form is one line per finding for a
// CI log; the Markdown form a table for a pull-request comment.
type Finding struct {
	// Undecided is true for what kept the gate from deciding (a missing run, different configs or
	// data, a failed task), false for a regression.
	Undecided bool
	// Metric is the metric's key (log_likelihood, time, counters.splits, …), "" for a finding of
	// the whole run.
	Metric string
	// Dataset and Algorithm name the row ("" for a finding of the whole run).
	Dataset, Algorithm string
	// Old and New are the values as the finding prints them ("" where there are none).
	Old, New string
	// Figure is the test's figure: "p=0.003, +12.1% (threshold 5%)", "+1 (any rise)", or the
	// reason the gate could not decide.
	Figure string
}
