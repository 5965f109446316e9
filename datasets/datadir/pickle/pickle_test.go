package pickle

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// testdata/synth.pkl is synthetic: made-up numbers in the structure of ClusterTrellis's
// data/truth_N.pkl (a numpy object array of jet dicts holding numpy arrays, numpy float64
// scalars, torch float32 scalars, two of them views of one storage, and an object array of torch
// scalars), written by testdata/make_synthetic.py with Debian bookworm's python3-numpy 1.24.2 and
// python3-torch 1.13.1 (`python3 make_synthetic.py synth`, which also writes synth.jsonl, the
// JSON Lines that package datadir must make of it).
func loadSynth(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/synth.pkl")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadSynthetic(t *testing.T) {
	v, err := Load(loadSynth(t))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := v.(*Array)
	if !ok || a.Dtype != "O" || len(a.Shape) != 1 || a.Shape[0] != 2 {
		t.Fatalf("top level: %#v, want an object array of 2 jets", v)
	}
	d, ok := a.Objects[1].(*Dict)
	if !ok {
		t.Fatalf("jet 1 is a %T", a.Objects[1])
	}
	wantKeys := "root_id tree content LambdaRoot Lambda Delta_0 pt_cut algorithm deltas draws leaves M_Hard logLH dij ConstPhi PhiDelta PhiDeltaRel sumlogLH"
	if got := strings.Join(d.Keys, " "); got != wantKeys {
		t.Errorf("keys %q, want %q", got, wantKeys)
	}
	get := func(k string) any {
		v, ok := d.Get(k)
		if !ok {
			t.Fatalf("no key %q", k)
		}
		return v
	}
	if tree := get("tree").(*Array); tree.Dtype != "i8" || len(tree.Shape) != 2 || tree.Shape[0] != 5 || tree.Int[0] != 1 || tree.Int[1] != 4 || tree.Int[9] != -1 {
		t.Errorf("tree %+v", tree)
	}
	leaves := get("leaves").(*Array)
	if leaves.Dtype != "f8" || leaves.Shape[0] != 3 || leaves.Shape[1] != 4 || leaves.Float[0] != 123456.789 || leaves.Float[5] != 2e16 || leaves.Float[7] != -1.0/3.0 {
		t.Errorf("leaves %+v", leaves)
	}
	// Lambda and LambdaRoot are views at offsets 1 and 0 of one float32 storage [2.5, 0.2].
	lam, root := get("Lambda").(*Tensor), get("LambdaRoot").(*Tensor)
	if len(lam.Shape) != 0 || lam.Values[0] != float64(float32(0.2)) || root.Values[0] != 2.5 || lam.Dtype != "f4" {
		t.Errorf("Lambda %+v, LambdaRoot %+v", lam, root)
	}
	if d0 := get("Delta_0").(*Tensor); d0.Values[0] != 800 {
		t.Errorf("Delta_0 %+v", d0)
	}
	if pt := get("pt_cut"); pt != 4.0 {
		t.Errorf("pt_cut %v", pt)
	}
	if s := get("algorithm"); s != "truth" {
		t.Errorf("algorithm %v", s)
	}
	if s := get("sumlogLH"); s != -3.3 {
		t.Errorf("sumlogLH %v (numpy float64 scalar)", s)
	}
	draws := get("draws").(*Array)
	if draws.Dtype != "O" || draws.Objects[0] != nil || draws.Objects[2].(*Tensor).Values[0] != float64(float32(1.2)) {
		t.Errorf("draws %+v", draws)
	}
	dij := get("dij").(*List)
	if row := dij.Items[0].(*List); row.Items[0] != -1.5 || row.Items[1] != 0.25 {
		t.Errorf("dij %+v", row)
	}
}

func TestLoadRefusesOutsideTheSubset(t *testing.T) {
	synth := loadSynth(t)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"other global", bytes.Replace(synth, []byte("numpy\nndarray\n"), []byte("posix\nsystem1\n"), 1), "global posix.system1 is outside the subset"},
		{"protocol 4", append([]byte{0x80, 4}, synth[2:]...), "pickle protocol 4"},
		{"unknown opcode", []byte{0x80, 2, 'S', '\'', 'x', '\'', '\n', '.'}, "opcode 0x53 (unknown) is outside the subset"},
		{"truncated", synth[:len(synth)/2], "truncated"},
		{"trailing bytes", append(append([]byte{}, synth...), 'N'), "1 byte follows the end"},
		{"zip storage", zipStoragePickle(), "zip format of torch.save"},
	}
	for _, c := range cases {
		_, err := Load(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// zipStoragePickle is a protocol 2 pickle of torch.storage._load_from_bytes(b"PK\x03\x04...").
func zipStoragePickle() []byte {
	var b bytes.Buffer
	b.Write([]byte{0x80, 2})
	b.WriteString("ctorch.storage\n_load_from_bytes\n")
	b.WriteString("c_codecs\nencode\n")
	payload := "PK\x03\x04rest"
	b.WriteByte('X')
	b.Write([]byte{byte(len(payload)), 0, 0, 0})
	b.WriteString(payload)
	b.WriteByte('X')
	b.Write([]byte{6, 0, 0, 0})
	b.WriteString("latin1")
	b.Write([]byte{0x86, 'R', 0x85, 'R', '.'})
	return b.Bytes()
}

func TestDecodeLong(t *testing.T) {
	if v := decodeLong([]byte{0xff}); v != int64(-1) {
		t.Errorf("0xff: %v", v)
	}
	if v := decodeLong([]byte{0xe9, 0x03}); v != int64(1001) {
		t.Errorf("e9 03: %v", v)
	}
	// torch's legacy magic number, as LONG1 writes it.
	raw := []byte{0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19}
	if v, ok := decodeLong(raw).(interface{ Text(int) string }); !ok || v.Text(16) != "1950a86a20f9469cfc6c" {
		t.Errorf("magic: %v", decodeLong(raw))
	}
}
