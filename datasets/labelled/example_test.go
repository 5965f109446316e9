package labelled_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/hcbench/hcbench/datasets/labelled"
)

// A CSV laid out like the derived pam50_232x50_zerofilled.csv, but with missing cells left empty:
// pick the columns by name, keep the missing mask as NaN, take the first item of each subtype and of
// the unknown ones (as pam50.md §6's first_two, with one per label), then apply the paper's zero fill.
func ExampleReadCSV() {
	const text = "index,sample,subtype,ESR1,ERBB2\n" +
		"1,s1,Basal,-3.1,0.2\n" +
		"2,s2,Basal,,0.4\n" +
		"3,s3,LumA,3.3,NA\n" +
		"4,s4,Unknown,1.0,4.1\n"
	o := labelled.CSVOptions{Header: "names", LabelColumn: "subtype", NameColumn: "sample", Ignore: []string{"index"}, Unknown: "Unknown"}
	d, err := labelled.ReadCSV(strings.NewReader(text), "example.csv", o)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Len(), "items,", d.Features, "missing cells:", d.Missing)
	fmt.Println("labels:", d.LabelCounts())

	rows, err := labelled.FirstPerLabel(d, 1, 1)
	if err != nil {
		log.Fatal(err)
	}
	sub := d.Subset(rows)
	sub.FillMissing(0)
	for i, name := range sub.Names {
		fmt.Printf("row %d %s %q %v\n", rows[i], name, sub.Labels[i], sub.X[i])
	}
	fmt.Println("missing in the subset:", sub.Missing)

	_, err = labelled.ReadCSV(strings.NewReader(strings.Replace(text, "0.4", "O.4", 1)), "example.csv", o)
	fmt.Println(err)
	// Output:
	// 4 items, [ESR1 ERBB2] missing cells: 2
	// labels: map[:1 Basal:2 LumA:1]
	// row 0 s1 "Basal" [-3.1 0.2]
	// row 2 s3 "LumA" [3.3 0]
	// row 3 s4 "" [1 4.1]
	// missing in the subset: 1
	// example.csv:3: column 5 (ERBB2): "O.4" is not a number
}
