// Package pickle reads the small subset of Python's pickle format that the ClusterTrellis jet
// files (data/truth_N.pkl) use, so that hcbench converts them without Python: protocol 2 pickles
// of dicts, lists, tuples, numbers and strings, numpy arrays and scalars (numpy's _reconstruct,
// ndarray and dtype __setstate__ with raw little-endian buffers passed through _codecs.encode), and
// torch tensors as pickle.dump writes them (torch._utils._rebuild_tensor_v2 over a storage from
// torch.storage._load_from_bytes, whose bytes are a torch.save archive in torch's legacy, non-zip
// format).
//
// Nothing outside that subset is read: any other opcode, any other global (class or function) and
// any other torch archive format is refused with an error that names it. No code named by a
// pickle is ever run; the few globals above are interpreted by this package.
package pickle

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/hcbench/hcbench/internal/english"
)

// Tuple is a Python tuple.
type Tuple []any

// List is a Python list.
type List struct{ Items []any }

// Dict is a Python dict (or collections.OrderedDict) with string keys, in insertion order.
type Dict struct {
	Keys []string
	Vals map[string]any
}

// Get returns the value of key k and whether the dict holds it.
func (d *Dict) Get(k string) (any, bool) {
	v, ok := d.Vals[k]
	return v, ok
}

func (d *Dict) set(k string, v any) {
	if d.Vals == nil {
		d.Vals = map[string]any{}
	}
	if _, ok := d.Vals[k]; !ok {
		d.Keys = append(d.Keys, k)
	}
	d.Vals[k] = v
}

// Global is a reference to a Python class or function (module and name) that this package knows.
type Global struct{ Module, Name string }

func (g *Global) String() string { return g.Module + "." + g.Name }

// Array is a numpy array in C order. Dtype is "f8", "f4", "i8", "i4" or "O"; numbers are in
// Float (f8, f4: float32 values widened exactly) or Int (i8, i4), objects in Objects.
type Array struct {
	Shape   []int
	Dtype   string
	Float   []float64
	Int     []int64
	Objects []any
	built   bool
}

// Len returns the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// Tensor is a torch tensor, materialised in C order from its storage, offset, size and stride.
// Dtype is the storage's: "f4" (FloatStorage) or "f8" (DoubleStorage); Values holds float32
// values widened exactly to float64.
type Tensor struct {
	Shape  []int
	Dtype  string
	Values []float64
}

// Storage is a torch storage read from a legacy torch.save archive.
type Storage struct {
	Dtype  string
	Values []float64
}

// dtype is a numpy dtype while it is being built.
type dtype struct {
	str   string // "f8", "O8", ...
	order byte   // '<', '|' or '='
}

// mark is the MARK opcode's stack entry.
type mark struct{}

// Load reads one pickle that must fill data exactly (nothing may follow its STOP opcode).
func Load(data []byte) (any, error) {
	m := &machine{data: data, globals: outerGlobals}
	v, err := m.run()
	if err != nil {
		return nil, err
	}
	if m.pos != len(data) {
		return nil, fmt.Errorf("pickle: %s the end of the pickle at byte %d", english.Count(len(data)-m.pos, "byte follows", "bytes follow"), m.pos)
	}
	return v, nil
}

// outerGlobals are the globals a ClusterTrellis pickle may name.
var outerGlobals = map[string]bool{
	"numpy.core.multiarray._reconstruct": true,
	"numpy.ndarray":                      true,
	"numpy.dtype":                        true,
	"numpy.core.multiarray.scalar":       true,
	"_codecs.encode":                     true,
	"torch._utils._rebuild_tensor_v2":    true,
	"torch.storage._load_from_bytes":     true,
	"collections.OrderedDict":            true,
}

// storageGlobals are the globals a legacy torch.save archive of one storage may name.
var storageGlobals = map[string]bool{
	"torch.FloatStorage":  true,
	"torch.DoubleStorage": true,
}

type machine struct {
	data    []byte
	pos     int
	stack   []any
	memo    map[int64]any
	globals map[string]bool
	// persistent resolves a BINPERSID id; nil where the opcode is not allowed.
	persistent func(id any) (any, error)
}

// opcode names for messages
var opNames = map[byte]string{
	0x80: "PROTO", '.': "STOP", '(': "MARK", 'c': "GLOBAL", 'q': "BINPUT", 'r': "LONG_BINPUT",
	'h': "BINGET", 'j': "LONG_BINGET", 'J': "BININT", 'K': "BININT1", 'M': "BININT2",
	0x8a: "LONG1", 'G': "BINFLOAT", 'X': "BINUNICODE", 'N': "NONE", 0x88: "NEWTRUE",
	0x89: "NEWFALSE", ')': "EMPTY_TUPLE", 't': "TUPLE", 0x85: "TUPLE1", 0x86: "TUPLE2",
	0x87: "TUPLE3", ']': "EMPTY_LIST", 'a': "APPEND", 'e': "APPENDS", '}': "EMPTY_DICT",
	's': "SETITEM", 'u': "SETITEMS", 'R': "REDUCE", 'b': "BUILD", 'Q': "BINPERSID",
}

func (m *machine) errf(at int, format string, args ...any) error {
	return fmt.Errorf("pickle: byte %d: %s", at, fmt.Sprintf(format, args...))
}

// uint reads an opcode's argument: an unsigned little-endian integer of n bytes (1, 2 or 4).
func (m *machine) uint(n int) (uint64, error) {
	b, err := m.take(n)
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// memoIndex reads the argument of a memo opcode: one byte for the short form, four for the long.
func (m *machine) memoIndex(short bool) (int64, error) {
	n := 4
	if short {
		n = 1
	}
	v, err := m.uint(n)
	return int64(v), err
}

func (m *machine) take(n int) ([]byte, error) {
	if n < 0 || m.pos+n > len(m.data) {
		return nil, m.errf(m.pos, "truncated: %d bytes wanted, %d left", n, len(m.data)-m.pos)
	}
	b := m.data[m.pos : m.pos+n]
	m.pos += n
	return b, nil
}

func (m *machine) line() (string, error) {
	for i := m.pos; i < len(m.data); i++ {
		if m.data[i] == '\n' {
			s := string(m.data[m.pos:i])
			m.pos = i + 1
			return s, nil
		}
	}
	return "", m.errf(m.pos, "truncated: no end of line")
}

func (m *machine) push(v any) { m.stack = append(m.stack, v) }

func (m *machine) pop() (any, error) {
	if len(m.stack) == 0 {
		return nil, m.errf(m.pos, "stack underflow")
	}
	v := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	if _, ok := v.(mark); ok {
		return nil, m.errf(m.pos, "unexpected MARK on the stack")
	}
	return v, nil
}

func (m *machine) top() (any, error) {
	if len(m.stack) == 0 {
		return nil, m.errf(m.pos, "stack underflow")
	}
	return m.stack[len(m.stack)-1], nil
}

// popMark pops the items above the topmost MARK, and the MARK.
func (m *machine) popMark() ([]any, error) {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if _, ok := m.stack[i].(mark); ok {
			items := append([]any(nil), m.stack[i+1:]...)
			m.stack = m.stack[:i]
			return items, nil
		}
	}
	return nil, m.errf(m.pos, "no MARK on the stack")
}

// run executes opcodes from m.pos up to and including STOP and returns the pickled value.
func (m *machine) run() (any, error) {
	m.stack = m.stack[:0]
	m.memo = map[int64]any{}
	for {
		at := m.pos
		if m.pos >= len(m.data) {
			return nil, m.errf(at, "truncated: no STOP opcode")
		}
		op := m.data[m.pos]
		m.pos++
		switch op {
		case 0x80: // PROTO
			b, err := m.take(1)
			if err != nil {
				return nil, err
			}
			if b[0] != 2 {
				return nil, m.errf(at, "pickle protocol %d: hcbench reads protocol 2 only", b[0])
			}
		case '.': // STOP
			v, err := m.pop()
			if err != nil {
				return nil, err
			}
			if len(m.stack) != 0 {
				return nil, m.errf(at, "STOP with %d items left on the stack", len(m.stack))
			}
			return v, nil
		case '(':
			m.push(mark{})
		case 'c': // GLOBAL
			mod, err := m.line()
			if err != nil {
				return nil, err
			}
			name, err := m.line()
			if err != nil {
				return nil, err
			}
			g := &Global{Module: mod, Name: name}
			if !m.globals[g.String()] {
				return nil, m.errf(at, "global %s is outside the subset hcbench reads (numpy arrays and scalars, torch tensors, dicts and lists)", g)
			}
			m.push(g)
		case 'q', 'r': // BINPUT, LONG_BINPUT
			idx, err := m.memoIndex(op == 'q')
			if err != nil {
				return nil, err
			}
			v, err := m.top()
			if err != nil {
				return nil, err
			}
			m.memo[idx] = v
		case 'h', 'j': // BINGET, LONG_BINGET
			idx, err := m.memoIndex(op == 'h')
			if err != nil {
				return nil, err
			}
			v, ok := m.memo[idx]
			if !ok {
				return nil, m.errf(at, "memo %d read before it was written", idx)
			}
			m.push(v)
		case 'J', 'K', 'M': // BININT (signed, 4 bytes), BININT1 (1), BININT2 (2)
			n := map[byte]int{'J': 4, 'K': 1, 'M': 2}[op]
			v, err := m.uint(n)
			if err != nil {
				return nil, err
			}
			if op == 'J' {
				m.push(int64(int32(uint32(v))))
			} else {
				m.push(int64(v))
			}
		case 0x8a: // LONG1
			n, err := m.uint(1)
			if err != nil {
				return nil, err
			}
			raw, err := m.take(int(n))
			if err != nil {
				return nil, err
			}
			m.push(decodeLong(raw))
		case 'G':
			b, err := m.take(8)
			if err != nil {
				return nil, err
			}
			m.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		case 'X':
			b, err := m.take(4)
			if err != nil {
				return nil, err
			}
			s, err := m.take(int(binary.LittleEndian.Uint32(b)))
			if err != nil {
				return nil, err
			}
			if !utf8.Valid(s) {
				return nil, m.errf(at, "string is not valid UTF-8")
			}
			m.push(string(s))
		case 'N':
			m.push(nil)
		case 0x88:
			m.push(true)
		case 0x89:
			m.push(false)
		case ')':
			m.push(Tuple{})
		case 't':
			items, err := m.popMark()
			if err != nil {
				return nil, err
			}
			m.push(Tuple(items))
		case 0x85, 0x86, 0x87:
			n := int(op-0x85) + 1
			if len(m.stack) < n {
				return nil, m.errf(at, "stack underflow")
			}
			items := make(Tuple, n)
			for i := n - 1; i >= 0; i-- {
				v, err := m.pop()
				if err != nil {
					return nil, err
				}
				items[i] = v
			}
			m.push(items)
		case ']':
			m.push(&List{})
		case 'a', 'e': // APPEND, APPENDS
			var items []any
			if op == 'a' {
				v, err := m.pop()
				if err != nil {
					return nil, err
				}
				items = []any{v}
			} else {
				var err error
				if items, err = m.popMark(); err != nil {
					return nil, err
				}
			}
			t, err := m.top()
			if err != nil {
				return nil, err
			}
			l, ok := t.(*List)
			if !ok {
				return nil, m.errf(at, "%s to a %T, not a list", opNames[op], t)
			}
			l.Items = append(l.Items, items...)
		case '}':
			m.push(&Dict{Vals: map[string]any{}})
		case 's', 'u': // SETITEM, SETITEMS
			var items []any
			if op == 's' {
				v, err := m.pop()
				if err != nil {
					return nil, err
				}
				k, err := m.pop()
				if err != nil {
					return nil, err
				}
				items = []any{k, v}
			} else {
				var err error
				if items, err = m.popMark(); err != nil {
					return nil, err
				}
			}
			if len(items)%2 != 0 {
				return nil, m.errf(at, "SETITEMS with an odd number of items")
			}
			t, err := m.top()
			if err != nil {
				return nil, err
			}
			d, ok := t.(*Dict)
			if !ok {
				return nil, m.errf(at, "%s on a %T, not a dict", opNames[op], t)
			}
			for i := 0; i < len(items); i += 2 {
				k, ok := items[i].(string)
				if !ok {
					return nil, m.errf(at, "dict key of type %T: hcbench reads string keys only", items[i])
				}
				d.set(k, items[i+1])
			}
		case 'R': // REDUCE
			args, err := m.pop()
			if err != nil {
				return nil, err
			}
			f, err := m.pop()
			if err != nil {
				return nil, err
			}
			g, ok := f.(*Global)
			targs, ok2 := args.(Tuple)
			if !ok || !ok2 {
				return nil, m.errf(at, "REDUCE of %T with %T arguments", f, args)
			}
			v, err := call(g, targs)
			if err != nil {
				return nil, m.errf(at, "%v", err)
			}
			m.push(v)
		case 'b': // BUILD
			state, err := m.pop()
			if err != nil {
				return nil, err
			}
			t, err := m.top()
			if err != nil {
				return nil, err
			}
			if err := build(t, state); err != nil {
				return nil, m.errf(at, "%v", err)
			}
		case 'Q': // BINPERSID
			if m.persistent == nil {
				return nil, m.errf(at, "persistent id outside a torch storage archive")
			}
			id, err := m.pop()
			if err != nil {
				return nil, err
			}
			v, err := m.persistent(id)
			if err != nil {
				return nil, m.errf(at, "%v", err)
			}
			m.push(v)
		default:
			name := opNames[op]
			if name == "" {
				name = "unknown"
			}
			return nil, m.errf(at, "opcode 0x%02x (%s) is outside the subset hcbench reads", op, name)
		}
	}
}

// decodeLong decodes a little-endian two's-complement integer: int64 when it fits, else *big.Int.
func decodeLong(raw []byte) any {
	if len(raw) == 0 {
		return int64(0)
	}
	if len(raw) <= 8 {
		var u uint64
		for i := len(raw) - 1; i >= 0; i-- {
			u = u<<8 | uint64(raw[i])
		}
		shift := uint(64 - 8*len(raw))
		return int64(u<<shift) >> shift
	}
	be := make([]byte, len(raw))
	for i := range raw {
		be[len(raw)-1-i] = raw[i]
	}
	n := new(big.Int).SetBytes(be)
	if raw[len(raw)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(raw))))
	}
	return n
}

// call applies a known global to its arguments.
func call(g *Global, args Tuple) (any, error) {
	switch g.String() {
	case "_codecs.encode":
		if len(args) != 2 || args[1] != "latin1" {
			return nil, fmt.Errorf("_codecs.encode%v: hcbench reads encode(str, 'latin1') only", args)
		}
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("_codecs.encode of a %T", args[0])
		}
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				return nil, fmt.Errorf("_codecs.encode: character U+%04X is not latin-1", r)
			}
			b = append(b, byte(r))
		}
		return b, nil
	case "numpy.core.multiarray._reconstruct":
		if len(args) != 3 {
			return nil, fmt.Errorf("numpy _reconstruct with %d arguments", len(args))
		}
		if c, ok := args[0].(*Global); !ok || c.String() != "numpy.ndarray" {
			return nil, fmt.Errorf("numpy _reconstruct of %v: hcbench reads numpy.ndarray only", args[0])
		}
		return &Array{}, nil
	case "numpy.dtype":
		if len(args) != 3 {
			return nil, fmt.Errorf("numpy.dtype with %d arguments", len(args))
		}
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("numpy.dtype of a %T", args[0])
		}
		switch s {
		case "f8", "f4", "i8", "i4", "O8", "O4":
		default:
			return nil, fmt.Errorf("numpy dtype %q: hcbench reads f8, f4, i8, i4 and object arrays only", s)
		}
		return &dtype{str: s}, nil
	case "numpy.core.multiarray.scalar":
		if len(args) != 2 {
			return nil, fmt.Errorf("numpy scalar with %d arguments", len(args))
		}
		dt, ok := args[0].(*dtype)
		b, ok2 := args[1].([]byte)
		if !ok || !ok2 {
			return nil, fmt.Errorf("numpy scalar of (%T, %T)", args[0], args[1])
		}
		a := &Array{}
		if err := a.fill(dt, b); err != nil {
			return nil, err
		}
		if a.Len() != 1 {
			return nil, fmt.Errorf("numpy scalar of %d bytes for dtype %s", len(b), dt.str)
		}
		if a.Float != nil {
			return a.Float[0], nil
		}
		return a.Int[0], nil
	case "collections.OrderedDict":
		if len(args) != 0 {
			return nil, fmt.Errorf("collections.OrderedDict with arguments: hcbench reads empty ones only")
		}
		return &Dict{Vals: map[string]any{}}, nil
	case "torch.storage._load_from_bytes":
		if len(args) != 1 {
			return nil, fmt.Errorf("torch _load_from_bytes with %d arguments", len(args))
		}
		b, ok := args[0].([]byte)
		if !ok {
			return nil, fmt.Errorf("torch _load_from_bytes of a %T", args[0])
		}
		return loadStorage(b)
	case "torch._utils._rebuild_tensor_v2":
		return rebuildTensor(args)
	}
	return nil, fmt.Errorf("%s cannot be called here", g)
}

// build applies BUILD's state to an object that __setstate__ of numpy fills.
func build(target, state any) error {
	switch t := target.(type) {
	case *dtype:
		st, ok := state.(Tuple)
		if !ok || len(st) != 8 {
			return fmt.Errorf("numpy dtype state %v: not the 8-tuple of version 3", state)
		}
		if v, _ := st[0].(int64); v != 3 {
			return fmt.Errorf("numpy dtype state version %v: hcbench reads version 3", st[0])
		}
		o, _ := st[1].(string)
		switch o {
		case "<", "|", "=":
			t.order = o[0]
		default:
			return fmt.Errorf("numpy dtype byte order %q: hcbench reads little-endian data only", st[1])
		}
		if st[2] != nil || st[3] != nil || st[4] != nil {
			return fmt.Errorf("numpy structured or subarray dtype: not read by hcbench")
		}
		return nil
	case *Array:
		if t.built {
			return fmt.Errorf("numpy array built twice")
		}
		st, ok := state.(Tuple)
		if !ok || len(st) != 5 {
			return fmt.Errorf("numpy array state %T: not the 5-tuple (version, shape, dtype, fortran, data)", state)
		}
		if v, _ := st[0].(int64); v != 1 {
			return fmt.Errorf("numpy array state version %v: hcbench reads version 1", st[0])
		}
		shape, ok := st[1].(Tuple)
		if !ok {
			return fmt.Errorf("numpy array shape %T", st[1])
		}
		t.Shape = make([]int, len(shape))
		for i, s := range shape {
			n, ok := s.(int64)
			if !ok || n < 0 || n > 1<<31 {
				return fmt.Errorf("numpy array shape %v", shape)
			}
			t.Shape[i] = int(n)
		}
		dt, ok := st[2].(*dtype)
		if !ok {
			return fmt.Errorf("numpy array dtype %T", st[2])
		}
		if f, _ := st[3].(bool); f && len(t.Shape) > 1 {
			return fmt.Errorf("numpy array in Fortran order: not read by hcbench")
		}
		if dt.str[0] == 'O' {
			l, ok := st[4].(*List)
			if !ok {
				return fmt.Errorf("numpy object array with data %T, not a list", st[4])
			}
			if len(l.Items) != t.Len() {
				return fmt.Errorf("numpy object array of shape %v holds %d items", t.Shape, len(l.Items))
			}
			t.Dtype, t.Objects = "O", l.Items
		} else {
			b, ok := st[4].([]byte)
			if !ok {
				return fmt.Errorf("numpy array data %T, not bytes", st[4])
			}
			n := t.Len()
			if err := t.fill(dt, b); err != nil {
				return err
			}
			if len(t.Float)+len(t.Int) != n {
				return fmt.Errorf("numpy array of shape %v and dtype %s holds %d bytes", t.Shape, dt.str, len(b))
			}
		}
		t.built = true
		return nil
	}
	return fmt.Errorf("BUILD on a %T: hcbench builds numpy arrays and dtypes only", target)
}

// fill decodes raw little-endian numbers of dtype dt into a.
func (a *Array) fill(dt *dtype, b []byte) error {
	if dt.order == 0 {
		return fmt.Errorf("numpy dtype %s used before its state was set", dt.str)
	}
	size := int(dt.str[1] - '0')
	if len(b)%size != 0 {
		return fmt.Errorf("%d bytes of data for dtype %s", len(b), dt.str)
	}
	n := len(b) / size
	a.Dtype = dt.str
	switch dt.str {
	case "f8":
		a.Float = make([]float64, n)
		for i := range a.Float {
			a.Float[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case "f4":
		a.Float = make([]float64, n)
		for i := range a.Float {
			a.Float[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case "i8":
		a.Int = make([]int64, n)
		for i := range a.Int {
			a.Int[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case "i4":
		a.Int = make([]int64, n)
		for i := range a.Int {
			a.Int[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	default:
		return fmt.Errorf("numpy dtype %s holds no numbers", dt.str)
	}
	return nil
}

// rebuildTensor is torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
// requires_grad, backward_hooks[, metadata]).
func rebuildTensor(args Tuple) (*Tensor, error) {
	if len(args) != 6 && len(args) != 7 {
		return nil, fmt.Errorf("torch _rebuild_tensor_v2 with %d arguments", len(args))
	}
	st, ok := args[0].(*Storage)
	if !ok {
		return nil, fmt.Errorf("torch _rebuild_tensor_v2 of a %T, not a storage", args[0])
	}
	off, ok := args[1].(int64)
	if !ok || off < 0 {
		return nil, fmt.Errorf("torch tensor offset %v", args[1])
	}
	size, ok1 := args[2].(Tuple)
	stride, ok2 := args[3].(Tuple)
	if !ok1 || !ok2 || len(size) != len(stride) {
		return nil, fmt.Errorf("torch tensor size %v and stride %v", args[2], args[3])
	}
	if h, ok := args[5].(*Dict); !ok || len(h.Keys) != 0 {
		return nil, fmt.Errorf("torch tensor with backward hooks: not read by hcbench")
	}
	if len(args) == 7 {
		if md, ok := args[6].(*Dict); args[6] != nil && (!ok || len(md.Keys) != 0) {
			return nil, fmt.Errorf("torch tensor with metadata: not read by hcbench")
		}
	}
	t := &Tensor{Dtype: st.Dtype, Shape: make([]int, len(size))}
	strides := make([]int64, len(size))
	n := 1
	for i := range size {
		s, ok1 := size[i].(int64)
		d, ok2 := stride[i].(int64)
		if !ok1 || !ok2 || s < 0 || d < 0 {
			return nil, fmt.Errorf("torch tensor size %v and stride %v", size, stride)
		}
		t.Shape[i], strides[i] = int(s), d
		n *= int(s)
	}
	t.Values = make([]float64, 0, n)
	idx := make([]int, len(size))
	for k := 0; k < n; k++ {
		p := off
		for i := range idx {
			p += int64(idx[i]) * strides[i]
		}
		if p >= int64(len(st.Values)) {
			return nil, fmt.Errorf("torch tensor reads element %d of a storage of %d", p, len(st.Values))
		}
		t.Values = append(t.Values, st.Values[p])
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < t.Shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return t, nil
}
