package main

// A few documented numbers are other software's, which this script cannot run: each was measured
// once by hand, and its entry says how and when. The page's text is written from here, so that the
// page, the entry and its provenance agree, and a changed number is a changed line of this file.
type manualNumber struct {
	name, text, source string
}

// manualNumbers are the documented measurements of other software, and of the go command's first
// build of hcbench, which needs empty caches and the network.
var manualNumbers = []manualNumber{
	{
		name:   "reference.trellis-python",
		text:   "4.7 CPU-seconds at N = 10 and 228 at N = 12 (measured by hand on a 2-core AMD EPYC VM, 2026-11, not the machine of the table below)",
		source: "ClusterTrellis at ab931e8 (github.com/SebastianMacaluso/ClusterTrellis), its trellis on one Ginkgo jet of 10 and of 12 leaves, timed with /usr/bin/time under Python 3.11 and numpy 1.24.2",
	},
	{
		name:   "reference.beam-python",
		text:   "about 5 CPU-seconds (by hand, 2026-11)",
		source: "ClusterTrellis's beam search (the StandardHC notebook's code at ab931e8) on a 20-leaf jet with B = 190, Python 3.11, numpy 1.24.2",
	},
	{
		name:   "reference.bhc",
		text:   "we measured Bioconductor's C++ on a 2-core AMD EPYC VM (by hand, 2026-11; not the machine of the benchmarks here) at 7.0 s for n = 1000 (12 binary features, one run at fixed cc) and pyBHC at 80.2 s for n = 100 (2-D); pyBHC took 13.4 s on our 100-point 4-D reference run",
		source: "Bioconductor BHC (R package BHC, bhc() with fixed cc) on 1000 rows of 12 binary features; stuartsale/pyBHC at 3c1ac0f on 100 2-D points and on the 100-point 4-D mixture of TestMixture100MatchesPyBHC; wall time on the 2-core development VM",
	},
	{
		name:   "reference.brt",
		text:   "we measured caponetto's BRT on a 2-core AMD EPYC VM at 6.62 s for n = 100 and 208.7 s for n = 300 (2-D) (by hand, 2026-11; not the machine of the benchmarks here)",
		source: "caponetto/bayesian-hierarchical-clustering at d6659b3, its rose-tree clustering on 100 and 300 2-D points, wall time on the 2-core development VM",
	},
	{
		name:   "reference.nightly-aa",
		text:   "Two runs of `configs/nightly.yaml` with `-count 5` on a shared 2-core machine whose load average went from 6 to 15 differed significantly on 11 and on 14 of the 40 rows (with 2 workers and with 1), some by 2 to 3 times. Even on a quiet machine two processes of one binary differ by a few per cent (memory layout, frequency): with 20 to 300 samples a row, benchstat flagged 3 of the 40 rows of such a pair, by 2.6 to 9.9 % (measured by hand, 2026-11-25)",
		source: "two runs of one hcbench binary: hcbench run configs/nightly.yaml -count 5 (-workers 2 and 1), then benchstat over their bench.txt; commit 4ee26e7",
	},
}

// manualRegions are the regions of manualNumbers.
func manualRegions() []region {
	var out []region
	for _, m := range manualNumbers {
		out = append(out, region{name: m.name, render: func(*env) (string, error) { return m.text, nil }})
	}
	return out
}
