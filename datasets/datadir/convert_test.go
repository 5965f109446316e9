package datadir

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPyFloat(t *testing.T) {
	// Python 3: repr(x) for each x; json.dumps writes floats the same way.
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {1.5, "1.5"}, {-2.25, "-2.25"},
		{16, "16.0"}, {900, "900.0"}, {123456.789, "123456.789"},
		{0.1, "0.1"}, {1.0 / 3.0, "0.3333333333333333"}, {float64(float32(0.1)), "0.10000000149011612"},
		{float64(float32(243.61775)), "243.6177520751953"},
		{0.0001, "0.0001"}, {0.00012, "0.00012"}, {1e-05, "1e-05"}, {2.5e-07, "2.5e-07"}, {-1.5e-10, "-1.5e-10"},
		{1e15, "1000000000000000.0"}, {1234567890123456.0, "1234567890123456.0"},
		{1e16, "1e+16"}, {2e16, "2e+16"}, {1.5e16, "1.5e+16"}, {1e100, "1e+100"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
	}
	for _, c := range cases {
		if got := PyFloat(c.f); got != c.want {
			t.Errorf("PyFloat(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// TestPickledJetsSynthetic converts the synthetic pickle of package pickle's testdata (see
// pickle_test.go there for how it was made) and compares with the JSON Lines that Python's json
// module wrote of the same jets.
func TestPickledJetsSynthetic(t *testing.T) {
	pkl, err := os.ReadFile("pickle/testdata/synth.pkl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("pickle/testdata/synth.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := clusterTrellisJets("synth")([][]byte{pkl})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("converted synthetic pickle differs from Python's json output:\ngot:  %s\nwant: %s", got, want)
	}
}

// A synthetic miniature of UNC's files: 3 genes, 4 training samples (2 and 3 identical), 3
// example subjects.
const (
	miniTraining = "\tA\tB\tC\tD\r\n" +
		"subtype\tBasal\tLumA\tLumA\t\r\n" +
		"G1\t1.5\t-2\t-2\t0.25\r\n" +
		"G2\t\t3\t3\t-0.5\r\n" +
		"G3\t0\t4.125\t4.125\t\r\n"
	miniExample = "\tS1\tS2\tS3\r\n" +
		"T\t0\t\t1\r\n" +
		"G1\t0.25\t-2\t1.5\r\n" +
		"G2\t-0.5\t3\t\r\n" +
		"G3\t\t4.125\t0\r\n"
	miniScores = "\"\"\t\"Basal\"\t\"Call\"\t\"Confidence\"\r\n" +
		"\"S1\"\t\"0.1\"\t\"Normal\"\t\"1\"\r\n" +
		"\"S2\"\t\"0.2\"\t\"LumA\"\t\"1\"\r\n" +
		"\"S3\"\t\"0.3\"\t\"Basal\"\t\"0.9\"\r\n"
)

func TestPAM50ConvertersSynthetic(t *testing.T) {
	got, err := pam50ZeroFilled([][]byte{[]byte(miniTraining)})
	if err != nil {
		t.Fatal(err)
	}
	want := "index,sample,subtype,G1,G2,G3\n" +
		"1,A,Basal,1.5,0,0\n" +
		"2,B,LumA,-2,3,4.125\n" +
		"3,C,LumA,-2,3,4.125\n" +
		"4,D,Unknown,0.25,-0.5,0\n"
	if string(got) != want {
		t.Errorf("zero-filled:\n%s\nwant:\n%s", got, want)
	}
	got, err = pam50ExampleMatch([][]byte{[]byte(miniTraining), []byte(miniExample), []byte(miniScores)})
	if err != nil {
		t.Fatal(err)
	}
	want = "example_subject\ttrain_index\ttrain_sample\ttrain_subtype\texample_pam50_call\n" +
		"S1\t4\tD\tUnknown\tNormal\n" +
		"S2\t2;3\tB;C\tLumA\tLumA\n" +
		"S3\t1\tA\tBasal\tBasal\n"
	if string(got) != want {
		t.Errorf("example match:\n%s\nwant:\n%s", got, want)
	}
	// An example column that copies no training column (S3's G2 filled in) is an error.
	bad := strings.Replace(miniExample, "G2\t-0.5\t3\t\r\n", "G2\t-0.5\t3\t7\r\n", 1)
	if _, err := pam50ExampleMatch([][]byte{[]byte(miniTraining), []byte(bad), []byte(miniScores)}); err == nil || !strings.Contains(err.Error(), "S3 copies no training column") {
		t.Errorf("unmatched column: error %v", err)
	}
	if _, err := pam50ZeroFilled([][]byte{[]byte(strings.ReplaceAll(miniTraining, "\r\n", "\n"))}); err == nil {
		t.Error("a training file with LF line endings was read")
	}
}

func TestDebianGzipHeader(t *testing.T) {
	var src bytes.Buffer
	zw := gzip.NewWriter(&src)
	zw.Name = "digits.csv"
	zw.ModTime = time.Date(2010, 4, 19, 9, 52, 14, 0, time.UTC)
	zw.Write([]byte("0,1,2\n3,4,5\n"))
	zw.Close()
	out, err := debianGzipHeader([][]byte{src.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []byte{0x1f, 0x8b, 8, 0, 0x75, 0x5d, 0xd7, 0x63, 0, 3}
	if !bytes.Equal(out[:10], wantHeader) || !bytes.Equal(out[10:], src.Bytes()[10+len("digits.csv")+1:]) {
		t.Errorf("header % x, want % x, and the rest unchanged", out[:10], wantHeader)
	}
	zr, err := gzip.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || string(body) != "0,1,2\n3,4,5\n" || zr.Name != "" || zr.ModTime.Unix() != debianGzipMTime {
		t.Errorf("rewritten file reads %q (name %q, time %v, err %v)", body, zr.Name, zr.ModTime, err)
	}
	if _, err := debianGzipHeader([][]byte{[]byte("not gzip at all, no")}); err == nil {
		t.Error("a file that is no gzip was converted")
	}
}
