// Package significance compares algorithms across data sets the way a methods paper must: for
// one metric, a table of scores (data set × algorithm) becomes pairwise rows (wins, ties and
// losses; the Wilcoxon signed-rank test with Holm's correction over all pairs; the median
// difference with a bootstrap confidence interval; the Bayesian signed-rank test with a region
// of practical equivalence) and per-algorithm rows (mean ranks and the Friedman test), the rows
// of comparison/pairs.csv and comparison/ranks.csv. It also gives the bars of a
// critical-difference diagram.
//
// The input is a plain table (Table): the package knows nothing of records, so a report, a
// command or a test can build one from anything.
//
// Honesty rules. Failed or missing cells are counted, never imputed: a pair is compared over
// the data sets both algorithms completed, and the ranks and the Friedman test over the data sets
// every algorithm completed. Ties (equal values, hence zero differences) are reported. With
// fewer than MinDatasets paired data sets no test is run: the inferential columns are NaN
// (empty in the CSV) and a note says so.
//
// Defaults: a 95 % percentile bootstrap interval from DefaultResamples (10 000) resamples; the
// Bayesian signed-rank test with DefaultBayesSamples (50 000) posterior samples and a
// pseudo-observation of strength DefaultPrior (0.5) at 0, as baycomp; critical-difference bars
// at Alpha = 0.05 on Holm-adjusted Wilcoxon p-values. Everything random is seeded
// (Options.Seed) and independent of GOMAXPROCS.
//
// The primitives follow SciPy 1.10.1 (Debian bookworm's python3-scipy), against which they are
// tested: Wilcoxon (scipy.stats.wilcoxon), Friedman (scipy.stats.friedmanchisquare) and the
// percentile bootstrap (scipy.stats.bootstrap with method='percentile'); Holm's adjustment
// follows statsmodels' multipletests(method='holm'), and the Bayesian signed-rank test the
// algorithm of the authors' baycomp library.
//
// References:
//   - F. Wilcoxon, Individual comparisons by ranking methods, Biometrics Bulletin 1(6), 1945.
//   - S. Holm, A simple sequentially rejective multiple test procedure, Scandinavian Journal of
//     Statistics 6(2), 1979.
//   - M. Friedman, The use of ranks to avoid the assumption of normality implicit in the
//     analysis of variance, JASA 32(200), 1937.
//   - B. Efron and R. J. Tibshirani, An Introduction to the Bootstrap, Chapman & Hall, 1993.
//   - J. Demšar, Statistical comparisons of classifiers over multiple data sets, JMLR 7, 2006.
//   - A. Benavoli, G. Corani and F. Mangili, Should we really use post-hoc tests based on
//     mean-ranks?, JMLR 17(5), 2016.
//   - A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, Time for a change: a tutorial for
//     comparing multiple classifiers through Bayesian analysis, JMLR 18(77), 2017.
//   - H. Ismail Fawaz, G. Forestier, J. Weber, L. Idoumghar and P.-A. Muller, Deep learning for
//     time series classification: a review, Data Mining and Knowledge Discovery 33, 2019
//     (the Wilcoxon–Holm critical-difference diagram).
package significance
