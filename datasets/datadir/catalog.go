package datadir

// Set is a data set of the catalog: one folder of the data directory, named Name, holding Files.
type Set struct {
	Name    string
	Title   string // what it is, in one line
	Licence string // its licence and whom to cite, in one line
	Files   []File
}

// File is one file of a set, installed as SET/Name and checked against SHA256 (hex).
type File struct {
	Name   string
	SHA256 string
}

// Catalog lists every data set that `hcbench data` knows: those the shipped configs and the
// tests read.
var Catalog = []Set{
	{
		Name:    "pam50",
		Title:   "UNC PAM50 training matrix: 232 breast-cancer samples × 50 genes, 139 with an intrinsic subtype (Parker et al. 2009)",
		Licence: "MIT (github.com/hoadley-lab/pam50); cite Parker et al., J Clin Oncol 27(8), 2009",
		Files: []File{
			{Name: "220arrays_nonUBCcommon+12normal_50g.txt", SHA256: "67dd4ba00a9bf42a07104c0656c4a45122ce40ec8f86f0714ce84a0624dd92c9"},
			{Name: "pam50_232x50_zerofilled.csv", SHA256: "d726545d587d5faf23051abaf7bca618026ee7300c23b171fc7c475af8d5558f"},
			{Name: "pam50_centroids.txt", SHA256: "2b9756a4fed5ebcf25c331ba25583bdcfd6b71d743ec78a939ac1f004c97f344"},
			{Name: "pam50_annotation.txt", SHA256: "9284c51605011e5601006d615350204dce76bd7fa39f641b528e3ec15c514beb"},
			{Name: "sampleInputFile_200subjects_to_train232.tsv", SHA256: "1691b7c9819510e8e9f85b073cac01286661758696083cf53545f8c29a6c527c"},
		},
	},
	{
		Name:    "uci",
		Title:   "iris, wine, breast cancer (Wisconsin diagnostic) and 8×8 digits: the UCI sets as scikit-learn 1.2.1 bundles them",
		Licence: "UCI Machine Learning Repository (wine, breast cancer and digits CC BY 4.0); cite UCI and the original authors",
		Files: []File{
			{Name: "iris.csv", SHA256: "f13ffa8fdd56fd8e6c8d16d4081a3fbd3114bcd0aae4256c43205169cd9d1449"},
			{Name: "wine_data.csv", SHA256: "10e8a802908b34f86e5da8ce962f3c806694bc98450a18f61851af59f324bede"},
			{Name: "breast_cancer.csv", SHA256: "fed3eb72d0575ef6192293f5093c6e801b1476b577d0386bf4455504522172ed"},
			{Name: "digits.csv.gz", SHA256: "46abec6b12486ad9e51943373abcf22bbea1b5a51a1619b361570d8893f1464a"},
		},
	},
	{
		Name:    "clustertrellis",
		Title:   "the 30 public Ginkgo QCD jets of ClusterTrellis (10 each of 4, 5 and 9 leaves), as JSON Lines",
		Licence: "MIT (github.com/SebastianMacaluso/ClusterTrellis); cite Greenberg, Macaluso et al., AISTATS 2021",
		Files: []File{
			{Name: "truth_4.jsonl", SHA256: "af53f6d07063d7b3663ff7ffc9f96978ae33ae8bbac300aafbe2565042a6a623"},
			{Name: "truth_5.jsonl", SHA256: "a9dfe3fdee9ea2fa7c1c667747f689dc3f122423a00adec59455daa938fa6db4"},
			{Name: "truth_9.jsonl", SHA256: "dbfd066e54f516c7c19b5393f2f61b2622d91fbcf78cc25c35ff3ce1b493169c"},
		},
	},
}
