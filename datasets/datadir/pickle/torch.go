package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/hcbench/hcbench/internal/english"
)

// legacyMagic is the magic number that opens torch's legacy (non-zip) torch.save format.
var legacyMagic, _ = new(big.Int).SetString("1950a86a20f9469cfc6c", 16)

// legacyProtocol is the only version of the legacy format that hcbench reads.
const legacyProtocol = 1001

// loadStorage reads the bytes that torch.storage._load_from_bytes receives when a tensor is
// pickled: a torch.save archive of one storage in the legacy format, which is five pickles in a
// row (the magic number, the format version, a dict of system facts, the storage as a persistent
// id, the list of storage keys) and then, per key, the element count (int64, little-endian) and
// the raw little-endian elements.
func loadStorage(b []byte) (*Storage, error) {
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
		return nil, fmt.Errorf("torch storage in the zip format of torch.save: hcbench reads the legacy format only (the one the ClusterTrellis pickles use)")
	}
	m := &machine{data: b, globals: map[string]bool{}}
	magic, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("torch legacy archive, magic number: %w", err)
	}
	if n, ok := magic.(*big.Int); !ok || n.Cmp(legacyMagic) != 0 {
		return nil, fmt.Errorf("torch storage bytes open with %v, not the magic number of torch's legacy format", magic)
	}
	proto, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("torch legacy archive, version: %w", err)
	}
	if proto != int64(legacyProtocol) {
		return nil, fmt.Errorf("torch legacy archive version %v: hcbench reads %d", proto, legacyProtocol)
	}
	info, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("torch legacy archive, system facts: %w", err)
	}
	d, ok := info.(*Dict)
	if !ok {
		return nil, fmt.Errorf("torch legacy archive: system facts are a %T", info)
	}
	if le, _ := d.Get("little_endian"); le != true {
		return nil, fmt.Errorf("torch legacy archive written on a big-endian machine: not read by hcbench")
	}

	type declared struct {
		st *Storage
		n  int64
	}
	storages := map[string]*declared{}
	m.globals = storageGlobals
	m.persistent = func(id any) (any, error) {
		t, ok := id.(Tuple)
		if !ok || len(t) != 6 || t[0] != "storage" {
			return nil, fmt.Errorf("torch persistent id %v: hcbench reads ('storage', type, key, location, size, None) only", id)
		}
		g, ok := t[1].(*Global)
		key, ok2 := t[2].(string)
		n, ok3 := t[4].(int64)
		if !ok || !ok2 || !ok3 || n < 0 {
			return nil, fmt.Errorf("torch persistent id %v", id)
		}
		if t[3] != "cpu" {
			return nil, fmt.Errorf("torch storage on %v: hcbench reads cpu storages only", t[3])
		}
		if t[5] != nil {
			return nil, fmt.Errorf("torch storage view: not read by hcbench")
		}
		if s, ok := storages[key]; ok {
			return s.st, nil
		}
		st := &Storage{Dtype: map[string]string{"FloatStorage": "f4", "DoubleStorage": "f8"}[g.Name]}
		storages[key] = &declared{st: st, n: n}
		return st, nil
	}
	obj, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("torch legacy archive, object: %w", err)
	}
	st, ok := obj.(*Storage)
	if !ok {
		return nil, fmt.Errorf("torch legacy archive holds a %T, not a storage", obj)
	}
	m.globals, m.persistent = map[string]bool{}, nil
	keysV, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("torch legacy archive, storage keys: %w", err)
	}
	keys, ok := keysV.(*List)
	if !ok || len(keys.Items) != len(storages) {
		return nil, fmt.Errorf("torch legacy archive: storage keys %v do not match the storages declared", keysV)
	}
	for _, k := range keys.Items {
		key, _ := k.(string)
		s, ok := storages[key]
		if !ok {
			return nil, fmt.Errorf("torch legacy archive: data for undeclared storage %v", k)
		}
		hdr, err := m.take(8)
		if err != nil {
			return nil, fmt.Errorf("torch legacy archive, storage %s: %w", key, err)
		}
		n := int64(binary.LittleEndian.Uint64(hdr))
		if n != s.n {
			return nil, fmt.Errorf("torch legacy archive: storage %s holds %d elements, declared %d", key, n, s.n)
		}
		size := 4
		if s.st.Dtype == "f8" {
			size = 8
		}
		raw, err := m.take(int(n) * size)
		if err != nil {
			return nil, fmt.Errorf("torch legacy archive, storage %s: %w", key, err)
		}
		s.st.Values = make([]float64, n)
		for i := range s.st.Values {
			if size == 4 {
				s.st.Values[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
			} else {
				s.st.Values[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
	}
	if m.pos != len(m.data) {
		return nil, fmt.Errorf("torch legacy archive: %s the storage data", english.Count(len(m.data)-m.pos, "byte follows", "bytes follow"))
	}
	return st, nil
}
