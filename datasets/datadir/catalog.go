package datadir

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// Set is a data set of the catalog: one folder of the data directory, named Name, holding Files
// and a README.md that `hcbench data fetch` writes from the fields below.
type Set struct {
	Name    string
	Title   string // what it is, in one line
	Licence string // its licence and whom to cite, in one line
	About   string // a paragraph for the README: what the files are, where they come from
	Files   []File
}

// File is one file of a set, installed as SET/Name and checked against SHA256 (hex) of its bytes
// as installed. It comes from the sources From: a file without Convert is its one source,
// downloaded and installed byte for byte (the source's sum is then SHA256); a derived file is
// Convert applied to the bytes of its sources, in order, each checked against its sum first.
type File struct {
	Name    string
	SHA256  string
	From    []Source
	Convert func(src [][]byte) ([]byte, error)
	How     string // for a derived file: what Convert does, in one line
	// Optional says why the file may be absent ("" for a file every copy of the set holds): a
	// missing optional file is no problem of its set. An optional file without SHA256 is neither
	// fetched nor mirrored, and is not checked when present.
	Optional string
}

// Derived reports whether the file is made by a converter rather than downloaded as is.
func (f *File) Derived() bool { return f.Convert != nil }

// Source is a file of a public GitHub repository at a fixed commit, with the SHA-256 of its bytes.
// It is downloaded from BASE/Repo/Commit/Path, where BASE is DefaultBase or a mirror.
type Source struct {
	Repo   string // OWNER/NAME
	Commit string // the full commit hash
	Path   string // slash-separated, inside the repository
	SHA256 string
}

// DefaultBase is where sources are downloaded from unless a mirror replaces it.
const DefaultBase = "https://raw.githubusercontent.com"

// URL returns the address of the source under base (DefaultBase or a mirror): base/OWNER/NAME/
// COMMIT/PATH, each element of PATH escaped.
func (s Source) URL(base string) string {
	segs := strings.Split(s.Path, "/")
	for i, p := range segs {
		segs[i] = url.PathEscape(p)
	}
	return strings.TrimRight(base, "/") + "/" + s.Repo + "/" + s.Commit + "/" + strings.Join(segs, "/")
}

// MirrorPath is where a mirror holds the source: OWNER/NAME/COMMIT/PATH, slash-separated and not
// escaped (a folder laid out so that a static file server serves it at URL).
func (s Source) MirrorPath() string { return s.Repo + "/" + s.Commit + "/" + s.Path }

// SourcesDir is the folder of a set's folder that keeps the sources of its derived files that no
// file of the set installs byte for byte (KeptSources), so that the data directory holds every
// source it was made from and `hcbench data mirror` can serve them all again.
const SourcesDir = "sources"

// Sources returns every source of the set's files once, in the order of the files; those
// without a sum (optional files) are left out, as nothing could check them.
func (s *Set) Sources() []Source {
	var out []Source
	for _, f := range s.Files {
		for _, src := range f.From {
			if src.SHA256 == "" {
				continue
			}
			if !slices.Contains(out, src) {
				out = append(out, src)
			}
		}
	}
	return out
}

// KeptSources returns the files that keep the sources no file of the set installs byte for byte:
// each a download of its source named SourcesDir/BASE, where BASE is the last element of the
// source's path (unique within a set; TestCatalogWellFormed checks it).
func (s *Set) KeptSources() []File {
	var out []File
	for _, src := range s.Sources() {
		if s.copyOf(src) == nil {
			out = append(out, download(SourcesDir+"/"+path.Base(src.Path), src))
		}
	}
	return out
}

// SourceFile returns the file of the set's folder that holds src byte for byte: a downloaded file
// of the set, else its kept copy in SourcesDir.
func (s *Set) SourceFile(src Source) File {
	if f := s.copyOf(src); f != nil {
		return *f
	}
	return download(SourcesDir+"/"+path.Base(src.Path), src)
}

// copyOf returns the file of the set downloaded byte for byte from src, or nil.
func (s *Set) copyOf(src Source) *File {
	for i := range s.Files {
		if f := &s.Files[i]; !f.Derived() && len(f.From) == 1 && f.From[0] == src {
			return f
		}
	}
	return nil
}

// The repositories and commits the sources come from.
const (
	pam50Repo     = "hoadley-lab/pam50"
	pam50Commit   = "17837fa54cfe7264e45d8aa3f02e16278ee1fb9a" // HEAD of 2024-07-09
	sklearnRepo   = "scikit-learn/scikit-learn"
	sklearnCommit = "e58f36c73bd524ad87b05126a4e5b50dc4b24fcc" // the 1.2.1 release (2023-01-24)
	trellisRepo   = "SebastianMacaluso/ClusterTrellis"
	trellisCommit = "ab931e86d8b2a0205f2ac9822f738c012f112a26" // "version updated", 2021-01-27
)

// The sources that more than one file reads.
var (
	pam50Training = Source{pam50Repo, pam50Commit, ".legacy/bioclassifier_R/220arrays_nonUBCcommon+12normal_50g.txt", "67dd4ba00a9bf42a07104c0656c4a45122ce40ec8f86f0714ce84a0624dd92c9"}
	pam50Example  = Source{pam50Repo, pam50Commit, ".legacy/bioclassifier_example/sampleInputFile_200subjects.txt", "0b72761407ee1ba24ddfe1ef60dcb2ca787010c3759c3c834b3f9f3bf1403b6f"}
	pam50Scores   = Source{pam50Repo, pam50Commit, ".legacy/bioclassifier_example/sampleOutput/sampleInputFile_pam50scores.txt", "6aa547193241e199fe72e93a7f640daa9d6063c942d86366c9ff27ac7ab85075"}
)

// download is a file installed byte for byte from src.
func download(name string, src Source) File {
	return File{Name: name, SHA256: src.SHA256, From: []Source{src}}
}

// Catalog lists every data set that `hcbench data` knows: those the shipped configs and the
// tests read.
var Catalog = []Set{
	{
		Name:    "pam50",
		Title:   "UNC PAM50 training matrix: 232 breast-cancer samples × 50 genes, 139 with an intrinsic subtype (Parker et al. 2009)",
		Licence: "MIT (github.com/hoadley-lab/pam50); cite Parker et al., J Clin Oncol 27(8), 2009",
		About: "The training matrix of UNC's PAM50 classifier (232 samples, 50 genes; 139 samples labelled Normal, Basal, Her2, " +
			"LumA or LumB, 93 unlabelled; 307 of 11,600 cells missing), its centroids and gene annotation, from the MIT-licensed " +
			"repository github.com/hoadley-lab/pam50 (folder .legacy/, UNC's original PAM50 distribution), and two files derived " +
			"from them: the matrix as one CSV row per sample with missing cells written 0, and the match of UNC's 200 example " +
			"subjects to training columns with UNC's PAM50 call for each.",
		Files: []File{
			download("220arrays_nonUBCcommon+12normal_50g.txt", pam50Training),
			{
				Name: "pam50_232x50_zerofilled.csv", SHA256: "d726545d587d5faf23051abaf7bca618026ee7300c23b171fc7c475af8d5558f",
				From: []Source{pam50Training}, Convert: pam50ZeroFilled,
				How: "the training matrix transposed to one row a sample (index,sample,subtype,50 genes), missing cells written 0, unknown subtypes Unknown, values copied as strings",
			},
			download("pam50_centroids.txt", Source{pam50Repo, pam50Commit, ".legacy/bioclassifier_R/pam50_centroids.txt", "2b9756a4fed5ebcf25c331ba25583bdcfd6b71d743ec78a939ac1f004c97f344"}),
			download("pam50_annotation.txt", Source{pam50Repo, pam50Commit, ".legacy/bioclassifier_R/pam50_annotation.txt", "9284c51605011e5601006d615350204dce76bd7fa39f641b528e3ec15c514beb"}),
			{
				Name: "sampleInputFile_200subjects_to_train232.tsv", SHA256: "1691b7c9819510e8e9f85b073cac01286661758696083cf53545f8c29a6c527c",
				From: []Source{pam50Training, pam50Example, pam50Scores}, Convert: pam50ExampleMatch,
				How: "each of UNC's 200 example subjects matched to the training columns it copies exactly, with their subtype and UNC's PAM50 call for the subject",
			},
			download("LICENSE-hoadley-lab-pam50.md", Source{pam50Repo, pam50Commit, "LICENSE.md", "5813888529ba3c2348dc6b4fea373b691e44abbea829efbe768eb998f15f624c"}),
		},
	},
	{
		Name:    "uci",
		Title:   "iris, wine, breast cancer (Wisconsin diagnostic) and 8×8 digits: the UCI sets as scikit-learn 1.2.1 bundles them",
		Licence: "UCI Machine Learning Repository (wine, breast cancer and digits CC BY 4.0); cite UCI and the original authors",
		About: "The classic UCI sets as scikit-learn 1.2.1 bundles them in sklearn/datasets/data/ (github.com/scikit-learn/scikit-learn " +
			"at the 1.2.1 release): iris (150 × 4, 3 classes), wine (178 × 13, 3), breast cancer Wisconsin diagnostic (569 × 30, 2) " +
			"and optical digits (1797 × 64, 10; gzip CSV without header). The CSV files start with n_samples,n_features,class names; " +
			"each row is the features then the 0-based class. The files equal those of Debian's python3-sklearn 1.2.1+dfsg-1; " +
			"digits.csv.gz differs from scikit-learn's only in its gzip header, which Debian's build rewrote.",
		Files: []File{
			download("iris.csv", Source{sklearnRepo, sklearnCommit, "sklearn/datasets/data/iris.csv", "f13ffa8fdd56fd8e6c8d16d4081a3fbd3114bcd0aae4256c43205169cd9d1449"}),
			download("wine_data.csv", Source{sklearnRepo, sklearnCommit, "sklearn/datasets/data/wine_data.csv", "10e8a802908b34f86e5da8ce962f3c806694bc98450a18f61851af59f324bede"}),
			download("breast_cancer.csv", Source{sklearnRepo, sklearnCommit, "sklearn/datasets/data/breast_cancer.csv", "fed3eb72d0575ef6192293f5093c6e801b1476b577d0386bf4455504522172ed"}),
			{
				Name: "digits.csv.gz", SHA256: "46abec6b12486ad9e51943373abcf22bbea1b5a51a1619b361570d8893f1464a",
				From:    []Source{{sklearnRepo, sklearnCommit, "sklearn/datasets/data/digits.csv.gz", "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"}},
				Convert: debianGzipHeader,
				How:     "scikit-learn's file with its gzip header written as in Debian's python3-sklearn 1.2.1+dfsg-1 (no file name, time 2023-01-30 06:02:29 UTC); compressed data unchanged",
			},
		},
	},
	{
		Name:    "clustertrellis",
		Title:   "the 30 public Ginkgo QCD jets of ClusterTrellis (10 each of 4, 5 and 9 leaves), as JSON Lines",
		Licence: "MIT (github.com/SebastianMacaluso/ClusterTrellis); cite Greenberg, Macaluso et al., AISTATS 2021",
		About: "The Ginkgo QCD jets (M = 30, λ = 1.5, t_cut = 16) that ClusterTrellis ships in data/truth_4.pkl, truth_5.pkl and " +
			"truth_9.pkl, 10 jets each with exactly 4, 5 and 9 leaves, converted from the pickles (numpy arrays, torch scalars) to " +
			"JSON Lines by hcbench's own pickle reader: one jet a line with the keys id (added: file stem and index), leaves, Lambda, " +
			"LambdaRoot, pt_cut, Delta_0, root_id, tree, content, deltas and logLH, numbers written as Python's json writes them.",
		Files: []File{
			trellisJets("truth_4", "af53f6d07063d7b3663ff7ffc9f96978ae33ae8bbac300aafbe2565042a6a623", "2a97ad58e9b62560bea7113c4bdef813624d628668d6acd717b80a7e91210ee3"),
			trellisJets("truth_5", "a9dfe3fdee9ea2fa7c1c667747f689dc3f122423a00adec59455daa938fa6db4", "6b64cd33018f4c172488102700f5c4c1b62119de95bef64e7d225d8eacf48ffe"),
			trellisJets("truth_9", "dbfd066e54f516c7c19b5393f2f61b2622d91fbcf78cc25c35ff3ce1b493169c", "252ed29e816988456f964c45dbff047cae32924f136abc6986806d7f660f585f"),
			download("LICENSE-ClusterTrellis.txt", Source{trellisRepo, trellisCommit, "LICENSE", "bb0cc1151bd377b2ed6d2c5a32a52db513148b81018e4959c1f0e50ce9c5bce1"}),
		},
	},
	{
		Name:  ClustBenchSetName,
		Title: "ClustBench v1.1.0 (Gagolewski): 77 benchmark data sets for clustering with their reference partitions, the 69 the suite recommends in the batteries wut, sipu, fcps, graves and other, and uci",
		Licence: "the suite's repository is AGPL-3 (LICENSE-clustering-data-v1.txt) and its data sets are for research purposes; cite Gagolewski, SoftwareX 20 (2022) 101270, " +
			"the suite's version (v1.1.0, DOI 10.5281/zenodo.7088171) and each data set's sources (BATTERY/NAME.txt)",
		About: "The benchmark suite for clustering algorithms, version 1.1.0, from github.com/gagolews/clustering-data-v1 at the tag v1.1.0 " +
			"(commit " + ClustBenchCommit + "), in its own layout: BATTERY/NAME.data.gz, a whitespace-separated matrix of one point a row; " +
			"BATTERY/NAME.labels0.gz, labels1.gz, …, reference partitions of one integer a point (1..k a cluster, 0 a noise point); " +
			"BATTERY/NAME.txt, where the data set comes from; BATTERY/README.txt; and the suite's README and licence (README-clustering-data-v1.md, " +
			"LICENSE-clustering-data-v1.txt). The batteries wut (22), sipu (20), fcps (9), graves (10) and other (8) are the 69 data sets the suite " +
			"recommends; uci (8) is here too. sipu/worms_64.data.gz is optional: its sum is not known to hcbench, so it is not fetched.",
		Files: clustbenchFiles(),
	},
}

// trellisJets is STEM.jsonl, converted from ClusterTrellis's data/STEM.pkl (whose sum is pklSum).
func trellisJets(stem, sum, pklSum string) File {
	return File{
		Name: stem + ".jsonl", SHA256: sum,
		From:    []Source{{trellisRepo, trellisCommit, "data/" + stem + ".pkl", pklSum}},
		Convert: clusterTrellisJets(stem),
		How:     "the pickled jets (a numpy object array of dicts) read by hcbench's pickle reader and written one JSON object a line",
	}
}
