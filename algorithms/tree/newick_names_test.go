package tree

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostileNames are leaf names that Newick readers get wrong: the standard's punctuation, what
// some readers take specially (_ " = \ { }), quotes, blanks at either end, line breaks, non-ASCII
// text, names that read as numbers, and the empty name.
var hostileNames = []string{
	"a", "a b", "it's", "'", "''", `a"b`, `"`, "(x)", "a:b", "a,b", "a;b", "[c]", "[", "]",
	"a[&&NHX:x=1]", "é", "日本", "🙂", "a_b", "_", "-1.5", "0", "1e3", "NaN", `a\b`, `\`, `x\`,
	`a\'b`, "a\tb", "a\nb", "a\r\nb", "", "&", "#", "a  b", " lead", "trail ", "a=b", "{x}", "a/b",
	"a|b", "\x01", "TCGA-A1-A0SB", "Normal_Breast-10", "100%",
}

// randomNames returns n distinct names drawn from an alphabet of Newick's troublemakers, plain
// letters and non-ASCII text.
func randomNames(rng *rand.Rand, n int) []string {
	alphabet := []string{"a", "b", "Z", "0", "7", ".", "-", " ", "_", "'", `"`, "(", ")", "[", "]", ":", ";", ",",
		"=", `\`, "{", "}", "\t", "é", "日", "🙂", "&", "#", "!", "|"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// randomTree returns a random binary tree over n ≥ 1 items.
func randomTree(t *testing.T, rng *rand.Rand, n int) *Tree {
	t.Helper()
	roots := make([]int, n)
	for i := range roots {
		roots[i] = i
	}
	var merges [][2]int
	for k := n; len(roots) > 1; k++ {
		i := rng.IntN(len(roots))
		a := roots[i]
		roots = slices.Delete(roots, i, i+1)
		j := rng.IntN(len(roots))
		merges = append(merges, [2]int{a, roots[j]})
		roots[j] = k
	}
	tr, err := FromMerges(n, merges)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestNewickNamesRoundTrip: every hostile or random name, written by Newick, reads back as the
// same name and the same tree, through ParseNewick and ParseNewickItems; a name is left unquoted
// only when it is a plain one.
func TestNewickNamesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 8))
	sets := [][]string{hostileNames, append(randomNames(rng, 300), "a\xffb", "\xc3")} // invalid UTF-8 too
	for _, names := range sets {
		for start := 0; start < len(names); start += 30 {
			nm := names[start:min(start+30, len(names))]
			tr := randomTree(t, rng, len(nm))
			s := tr.Newick(nm)
			back, err := ParseNewick(s, nm)
			if err != nil || !SameClusters(tr, back) {
				t.Fatalf("ParseNewick(%q): %v, tree %v", s, err, back)
			}
			if back, err := ParseNewickItems(s, len(nm), nm, ByName); err != nil || !SameClusters(tr, back) {
				t.Fatalf("ParseNewickItems(%q): %v", s, err)
			}
		}
	}
	for _, name := range hostileNames {
		got := Leaf(0).Newick([]string{name})
		want := name + ";"
		if !plainLabel(name) {
			want = "'" + strings.ReplaceAll(name, "'", "''") + "';"
		}
		if got != want {
			t.Errorf("name %q written %q, want %q", name, got, want)
		}
	}
	for name, plain := range map[string]bool{"a_b": false, `a"b`: false, "a=b": false, "{x}": false, `a\b`: false, "é": true, "日本": true, "🙂": false, "TCGA-A1-A0SB": true, "": false, "100%": true} {
		if plainLabel(name) != plain {
			t.Errorf("plainLabel(%q) = %v, want %v", name, !plain, plain)
		}
	}
}

// FuzzNewickName: any name, beside two others made from it, round-trips through Newick and
// ParseNewick in every binary tree over the three.
func FuzzNewickName(f *testing.F) {
	for _, s := range hostileNames {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		names := []string{name, name + "'", "_" + name}
		for tr := range AllBinary(3) {
			s := tr.Newick(names)
			back, err := ParseNewick(s, names)
			if err != nil || !SameClusters(tr, back) {
				t.Fatalf("ParseNewick(%q): %v", s, err)
			}
		}
	})
}

// newickReaders are the third-party readers that TestNewickReadByOtherTools runs where they are
// installed (Debian: python3-biopython, python3-dendropy, r-cran-ape): the program, the script
// (given the file of trees and the tool), and the names each is known not to read back.
var newickReaders = []struct {
	tool, program, check string
	script               string
	// unreadable reports the names the tool cannot read back whatever the quoting (Tree.Newick):
	// Bio.Phylo 1.80 takes a quoted label's text as it stands, reads no doubled quote, drops
	// line breaks, and takes \' for an escaped quote, so that a label ending in a backslash
	// runs on; DendroPy 4.5.2 reads a quoted label of one of ( ) , : ; as that punctuation;
	// ape 5.7 makes the label of a doubled quote NA.
	unreadable func(name string) bool
}{
	{"biopython", "python3", "import Bio.Phylo", pyReader, func(s string) bool {
		return strings.ContainsAny(s, "'\n\r") || (len(s)-len(strings.TrimRight(s, `\`)))%2 == 1
	}},
	{"dendropy", "python3", "import dendropy", pyReader, func(s string) bool { return len(s) == 1 && strings.Contains("(),:;", s) }},
	{"ape", "Rscript", "library(ape)", apeReader, func(s string) bool { return strings.Contains(s, "'") }},
}

// pyReader reads a JSON list of Newick texts and writes, for each, the tree as nested lists of
// leaf names (JSON), or {"error": …}.
const pyReader = `import io, json, sys
tool, path = sys.argv[1], sys.argv[2]
out = []
for s in json.load(open(path, encoding="utf-8")):
    try:
        if tool == "biopython":
            from Bio import Phylo
            def walk(c):
                return c.name if c.is_terminal() else [walk(k) for k in c.clades]
            out.append(walk(Phylo.read(io.StringIO(s), "newick").root))
        else:
            import dendropy
            def walk(n):
                return n.taxon.label if n.is_leaf() else [walk(k) for k in n.child_node_iter()]
            out.append(walk(dendropy.Tree.get(data=s, schema="newick", case_sensitive_taxon_labels=True,
                taxon_namespace=dendropy.TaxonNamespace(is_case_sensitive=True)).seed_node))
    except Exception as e:
        out.append({"error": repr(e)})
json.dump(out, sys.stdout)
`

// apeReader reads Newick texts, one per line in hexadecimal, and writes for each a line: the
// number of internal nodes, then each tip label in order in hexadecimal after an x ("NA" for
// NA), or ERR and the message.
const apeReader = `suppressMessages(library(ape))
args <- commandArgs(trailingOnly = TRUE)
unhex <- function(h) {
  s <- rawToChar(as.raw(strtoi(substring(h, seq(1, nchar(h), 2), seq(2, nchar(h), 2)), 16L)))
  Encoding(s) <- "UTF-8"
  s
}
tohex <- function(s) if (is.na(s)) "NA" else paste0("x", paste(charToRaw(enc2utf8(s)), collapse = ""))
for (h in readLines(args[2])) {
  line <- tryCatch({
    t <- read.tree(text = unhex(h))
    paste(c(t$Nnode, vapply(t$tip.label, tohex, "")), collapse = " ")
  }, error = function(e) paste("ERR", conditionMessage(e)), warning = function(w) paste("ERR", conditionMessage(w)))
  cat(line, "\n", sep = "")
}
`

// nested returns the subtree at v as its leaf's name or the list of its children's.
func nested(t *Tree, v int, names []string) any {
	nd := t.Nodes[v]
	if nd.IsLeaf() {
		return names[nd.Item]
	}
	out := make([]any, len(nd.Children))
	for i, c := range nd.Children {
		out[i] = nested(t, c, names)
	}
	return out
}

// readerProgram returns the program that runs a reader's check, or "" when none does: for
// Python, Debian's /usr/bin/python3 first (its packages), then python3 on PATH.
func readerProgram(program, check string) string {
	candidates := []string{program}
	if program == "python3" {
		candidates = []string{"/usr/bin/python3", "python3"}
	}
	for _, c := range candidates {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		flag := "-c"
		if program == "Rscript" {
			flag = "-e"
		}
		if exec.Command(p, flag, check).Run() == nil {
			return p
		}
	}
	return ""
}

// TestNewickReadByOtherTools writes trees over the hostile names and 300 random ones, and reads
// them with Bio.Phylo, DendroPy and R's ape where they are installed (each is skipped
// otherwise): every name comes back, in its place in the tree, except those a tool cannot read
// whatever the quoting (newickReaders). ape keeps a quoted label's quotes, which are taken off
// here, as a user of ape does (sub("^'(.*)'$", "\\1", tip.label)).
func TestNewickReadByOtherTools(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 9))
	names := append(slices.Clone(hostileNames), randomNames(rng, 300)...)
	for _, r := range newickReaders {
		t.Run(r.tool, func(t *testing.T) {
			prog := readerProgram(r.program, r.check)
			if prog == "" {
				t.Skipf("%s is not installed (%s: %s fails)", r.tool, r.program, r.check)
			}
			var usable []string
			seen := map[string]bool{}
			for _, n := range names {
				if !r.unreadable(n) && !seen[n] {
					seen[n] = true
					usable = append(usable, n)
				}
			}
			var trees []*Tree
			var groups [][]string
			var texts []string
			for start, end := 0, 0; start < len(usable); start = end {
				end = min(start+25, len(usable))
				if len(usable)-end < 2 { // no tree of one leaf, which ape does not read
					end = len(usable)
				}
				g := usable[start:end]
				tr := randomTree(t, rng, len(g))
				trees, groups, texts = append(trees, tr), append(groups, g), append(texts, tr.Newick(g))
			}
			dir := t.TempDir()
			script := filepath.Join(dir, "read")
			input := filepath.Join(dir, "trees")
			var in []byte
			if r.tool == "ape" {
				var b strings.Builder
				for _, s := range texts {
					b.WriteString(hex.EncodeToString([]byte(s)) + "\n")
				}
				in = []byte(b.String())
			} else {
				in, _ = json.Marshal(texts)
			}
			if err := os.WriteFile(script, []byte(map[bool]string{true: apeReader, false: pyReader}[r.tool == "ape"]), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(input, in, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(prog, script, r.tool, input)
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", r.tool, err, stderr.String())
			}
			if r.tool == "ape" {
				checkApe(t, string(out), trees, groups, texts)
				return
			}
			var got []json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil || len(got) != len(trees) {
				t.Fatalf("%s wrote %d trees (%v), want %d:\n%s", r.tool, len(got), err, len(trees), out)
			}
			for i, tr := range trees {
				var v any
				_ = json.Unmarshal(got[i], &v)
				gotJSON, _ := json.Marshal(v)
				wantJSON, _ := json.Marshal(nested(tr, tr.Root, groups[i]))
				if !bytes.Equal(gotJSON, wantJSON) {
					t.Errorf("%s read %q\nas %s\nwant %s", r.tool, texts[i], gotJSON, wantJSON)
				}
			}
		})
	}
}

// checkApe compares ape's tip labels, in order, and its count of internal nodes with the trees.
func checkApe(t *testing.T, out string, trees []*Tree, groups [][]string, texts []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(trees) {
		t.Fatalf("ape wrote %d lines for %d trees:\n%s", len(lines), len(trees), out)
	}
	for i, tr := range trees {
		f := strings.Split(lines[i], " ")
		var want []string
		for _, v := range tr.PostOrder() {
			if nd := tr.Nodes[v]; nd.IsLeaf() {
				want = append(want, groups[i][nd.Item])
			}
		}
		if f[0] != strconv.Itoa(len(tr.Nodes)-tr.Items()) || len(f) != 1+len(want) {
			t.Errorf("ape read %q as %q, want %d internal nodes and %d tips", texts[i], lines[i], len(tr.Nodes)-tr.Items(), len(want))
			continue
		}
		for k, name := range want {
			b, err := hex.DecodeString(strings.TrimPrefix(f[1+k], "x"))
			label := string(b)
			if !plainLabel(name) && len(label) >= 2 && label[0] == '\'' && label[len(label)-1] == '\'' {
				label = label[1 : len(label)-1]
			}
			if err != nil || label != name {
				t.Errorf("ape read tip %d of %q as %q (%s), want %q", k, texts[i], label, f[1+k], name)
			}
		}
	}
}
