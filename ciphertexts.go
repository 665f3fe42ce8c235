package hcc

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Ciphertexts are the encrypted inputs or outputs of one program for one
// or more instances (input sets). They are grouped in packs: on FHEW a
// pack is one instance (one ciphertext per bit); on BGV a pack is one
// ciphertext per bit whose slots hold up to Slots instances. They record
// the key (KeyID), the source circuit (CircuitHash) and the bus layout, so
// that a wrong key, another circuit's ciphertexts or outputs passed as
// inputs are refused before any work.
type Ciphertexts struct {
	kind        fileKind
	engine      Engine
	scheme      scheme
	key         KeyID
	circuitHash [32]byte
	circuitName string
	layout      []ir.Bus
	packs       []pack
	pos         batchPos
	origin      string // the file path given, or "ciphertexts" (messages)
}

// batchPos is where ciphertexts sit in the batch they were encrypted as,
// so that JoinCiphertexts can refuse parts that are duplicated, missing,
// reordered or from another batch (they would decrypt to a plausible wrong
// batch). Evaluated outputs keep their inputs' position.
type batchPos struct {
	id    [16]byte // random per Encrypt; a content hash for sets made without one
	first int      // the batch index of the first instance held
	total int      // the batch's instance count; 0: not recorded (the whole batch)
}

// errReleased is the error for ciphertexts emptied by Eval's ReleaseInputs.
var errReleased = errors.New("no input instances (released by an earlier Eval with ReleaseInputs?)")

// usable reports whether c can be encoded or evaluated: not nil, made by
// this package, and not released.
func (c *Ciphertexts) usable() error {
	if c == nil {
		return errors.New("nil Ciphertexts")
	}
	if c.engine == nil || c.scheme == nil {
		return errors.New("zero Ciphertexts (make them with Encrypt, Eval or UnmarshalCiphertexts)")
	}
	if len(c.packs) == 0 {
		return errReleased
	}
	for _, p := range c.packs {
		if p.released {
			return errReleased
		}
	}
	return nil
}

// position is c's batch position; for a set made without one (the
// transcipherer's), the whole batch, identified by the encoded ciphertexts
// enc (computed when nil).
func (c *Ciphertexts) position(enc [][]byte) (batchPos, error) {
	if c.pos.total > 0 {
		return c.pos, nil
	}
	if enc == nil {
		var err error
		if _, enc, err = c.scheme.encode(c.all()); err != nil {
			return batchPos{}, err
		}
	}
	h := sha256.New()
	h.Write(c.key[:])
	h.Write(c.circuitHash[:])
	for _, e := range enc {
		h.Write(e)
	}
	pos := batchPos{total: c.Instances()}
	copy(pos.id[:], h.Sum(nil))
	return pos, nil
}

func (c *Ciphertexts) all() []backend.Ciphertext {
	var all []backend.Ciphertext
	for _, p := range c.packs {
		all = append(all, p.cts...)
	}
	return all
}

// describe names instances first..first+n-1 of the batch, 1-based.
func (p batchPos) describe(n int) string {
	return fmt.Sprintf("instances %d..%d of %s", p.first+1, p.first+n, p.batch())
}

func (p batchPos) batch() string {
	return fmt.Sprintf("batch %s (%d instances)", hex.EncodeToString(p.id[:4]), p.total)
}

// pack is one group of ciphertexts evaluated together.
type pack struct {
	// n is the instance count: 0 for one input set replicated into every
	// slot of a packed engine (decryption checks that the slots agree).
	n   int
	cts []backend.Ciphertext
	// released: Eval's ReleaseInputs took cts (a circuit without inputs
	// has packs of no ciphertexts that are not released).
	released bool
}

func (p pack) instances() int { return max(p.n, 1) }

// Instances is the number of input sets the ciphertexts hold.
func (c *Ciphertexts) Instances() int {
	n := 0
	for _, p := range c.packs {
		n += p.instances()
	}
	return n
}

// Packs is the number of packs (FHEW: instances; BGV: slot batches).
func (c *Ciphertexts) Packs() int { return len(c.packs) }

// KeyID is the key the ciphertexts are encrypted under.
func (c *Ciphertexts) KeyID() KeyID { return c.key }

// CircuitHash is the source circuit's hash (Program.CircuitHash).
func (c *Ciphertexts) CircuitHash() [32]byte { return c.circuitHash }

// Outputs reports whether these are evaluated outputs (else inputs).
func (c *Ciphertexts) Outputs() bool { return c.kind == ctOutputs }

// Bits is the number of ciphertexts per pack (input or output bits).
func (c *Ciphertexts) Bits() int {
	n := 0
	for i := range c.layout {
		n += c.layout[i].Width * c.layout[i].Elems()
	}
	return n
}

// Encrypt encrypts input sets of p under k: one set is one instance (on
// BGV replicated into every slot); several are a batch (FHEW: one
// ciphertext per bit and instance, all evaluated in one run; BGV: one
// instance per slot, as many packs as the slots require).
func (k *ClientKey) Encrypt(p *Program, batch ...Values) (*Ciphertexts, error) {
	return k.EncryptWith(p, EncryptOptions{}, batch...)
}

// EncryptWith is Encrypt with options (EncryptOptions; the zero value is
// Encrypt). An option the parameter set cannot honour is an error.
func (k *ClientKey) EncryptWith(p *Program, opt EncryptOptions, batch ...Values) (*Ciphertexts, error) {
	if len(batch) == 0 {
		return nil, errors.New("no input sets to encrypt")
	}
	if err := k.usable(p); err != nil {
		return nil, err
	}
	if err := k.matches(p); err != nil {
		return nil, err
	}
	bits := make([][]bool, len(batch))
	for j, v := range batch {
		b, err := p.circuit.PackInputs(v)
		if err != nil {
			if len(batch) > 1 {
				return nil, fmt.Errorf("instance %d: %w", j+1, err)
			}
			return nil, err
		}
		bits[j] = b
	}
	var rgsw rgswEncrypter
	if opt.InputRGSW {
		var ok bool
		if rgsw, ok = k.sk.(rgswEncrypter); !ok {
			return nil, errNoInputRGSW(k.engine.Name(), k.scheme.name())
		}
	}
	out := &Ciphertexts{kind: ctInputs, engine: k.engine, scheme: k.scheme, key: k.id,
		circuitHash: p.sourceHash, circuitName: p.name, layout: layoutOf(p.circuit.Inputs)}
	slots := k.scheme.slots()
	for start := 0; start < len(bits); start += slots {
		chunk := bits[start:min(start+slots, len(bits))]
		replicate := len(bits) == 1 && slots > 1
		var cts []backend.Ciphertext
		var err error
		if rgsw != nil { // one-slot sets only: a pack is one instance
			cts, err = rgsw.encryptInputRGSW(p, chunk[0])
		} else {
			cts, err = k.sk.encrypt(p, chunk, replicate)
		}
		if err != nil {
			return nil, err
		}
		n := len(chunk)
		if replicate {
			n = 0
		}
		out.packs = append(out.packs, pack{n: n, cts: cts})
	}
	out.pos.total = len(batch)
	rand.Read(out.pos.id[:])
	return out, nil
}

// usable reports whether k and p are non-nil and made by this package.
func (k *ClientKey) usable(p *Program) error {
	if k == nil || k.sk == nil || k.engine == nil || k.scheme == nil {
		return errors.New("nil or zero ClientKey (make it with GenerateKeys or ReadClientKeyFile)")
	}
	return p.usable()
}

// usable reports whether p is non-nil and made by this package.
func (p *Program) usable() error {
	if p == nil || p.circuit == nil || p.engine == nil || p.scheme == nil {
		return errors.New("nil or zero Program (make it with Compile or UnmarshalProgram)")
	}
	return nil
}

// checkEvalArgs refuses nil and zero arguments to Eval.
func checkEvalArgs(p *Program, k *ServerKey, in *Ciphertexts) error {
	if err := p.usable(); err != nil {
		return err
	}
	if k == nil || k.ek == nil || k.engine == nil || k.scheme == nil {
		return errors.New("nil or zero ServerKey (make it with GenerateKeys or ReadServerKeyFile)")
	}
	return in.usable()
}

// Decrypt decrypts evaluated outputs of p into one Values per instance.
func (k *ClientKey) Decrypt(p *Program, out *Ciphertexts) ([]Values, error) {
	if err := k.usable(p); err != nil {
		return nil, err
	}
	if err := out.usable(); err != nil {
		return nil, err
	}
	if err := out.checkFor(p, &k.keyInfo, ctOutputs); err != nil {
		return nil, err
	}
	var res []Values
	nbits := p.circuit.NumOutputBits()
	for _, pk := range out.packs {
		got, err := k.sk.decrypt(pk.cts, pk.n)
		if err != nil {
			return nil, err
		}
		for _, bits := range got {
			if len(bits) != nbits {
				return nil, fmt.Errorf("internal error: %d output bits decrypted, program %q has %d", len(bits), p.name, nbits)
			}
			vals, err := p.circuit.UnpackOutputs(bits)
			if err != nil {
				return nil, err
			}
			res = append(res, vals)
		}
	}
	return res, nil
}

// checkFor verifies that c holds kind for program p under key k.
func (c *Ciphertexts) checkFor(p *Program, k *keyInfo, kind fileKind) error {
	if err := c.usable(); err != nil {
		return err
	}
	if err := p.usable(); err != nil {
		return err
	}
	if k.engine == nil || k.scheme == nil {
		return errors.New("zero key (make it with GenerateKeys or read it from its file)")
	}
	if c.kind != kind {
		return fmt.Errorf("%s holds %v, not %v", c.name(), c.kind, kind)
	}
	if c.key != k.id {
		return fmt.Errorf("%s was encrypted under key %v, but %s is key %v (wrong key for this ciphertext)", c.name(), c.key, k.name(), k.id)
	}
	if c.engine.Name() != k.engine.Name() || c.scheme.name() != k.scheme.name() {
		return fmt.Errorf("%s holds %s ciphertexts for parameter set %s, %s is %s/%s", c.name(), c.engine.Name(), c.scheme.name(), k.name(), k.engine.Name(), k.scheme.name())
	}
	if err := k.matches(p); err != nil {
		return err
	}
	if c.circuitHash != p.sourceHash {
		return fmt.Errorf("%s holds %v for circuit %q (hash %x), not for %s (circuit %q, hash %x)",
			c.name(), c.kind, c.circuitName, c.circuitHash[:6], p.originName(), p.name, p.sourceHash[:6])
	}
	buses := p.circuit.Inputs
	if kind == ctOutputs {
		buses = p.circuit.Outputs
	}
	if !sameLayout(c.layout, buses) {
		return fmt.Errorf("%s: the bus layout differs from program %q", c.name(), p.name)
	}
	return nil
}

func (c *Ciphertexts) name() string {
	if c.origin == "" {
		return "the ciphertext set"
	}
	return c.origin
}

// MarshalBinary encodes the ciphertexts as a ciphertext file. BGV
// ciphertexts above the lowest level among them are switched down (on
// copies) first, so that all have one size.
func (c *Ciphertexts) MarshalBinary() ([]byte, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	size, enc, err := c.scheme.encode(c.all())
	if err != nil {
		return nil, err
	}
	pos, err := c.position(enc)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	h := fileHeader{kind: c.kind, engine: c.engine.Name(), params: c.scheme.name(), key: c.key}
	buf := h.append(make([]byte, 0, 256+size*len(enc)), ctMagic)
	buf = append(buf, c.circuitHash[:]...)
	buf = appendString(buf, c.circuitName)
	buf = appendLayout(buf, c.layout)
	buf = le.AppendUint32(buf, uint32(len(c.packs)))
	for _, p := range c.packs {
		buf = le.AppendUint32(buf, uint32(p.n))
	}
	buf = append(buf, pos.id[:]...)
	buf = le.AppendUint32(buf, uint32(pos.first))
	buf = le.AppendUint32(buf, uint32(pos.total))
	buf = le.AppendUint32(buf, uint32(size))
	buf = le.AppendUint32(buf, uint32(len(enc)))
	for _, e := range enc {
		buf = append(buf, e...)
	}
	return seal(buf), nil
}

// UnmarshalCiphertexts decodes MarshalBinary's encoding, checking the
// frame, the layout and every ciphertext's encoding. Damaged, truncated
// or foreign data is an error.
func UnmarshalCiphertexts(data []byte) (*Ciphertexts, error) {
	return decodeCiphertexts("ciphertext data", data)
}

func decodeCiphertexts(name string, data []byte) (*Ciphertexts, error) {
	h, r, err := openFile(name, data, ctMagic, "an hcc ciphertext file")
	if err != nil {
		return nil, err
	}
	if h.kind != ctInputs && h.kind != ctOutputs {
		return nil, fmt.Errorf("%s holds %v, not ciphertexts", name, h.kind)
	}
	c := &Ciphertexts{kind: h.kind, key: h.key, origin: name}
	if name == "ciphertext data" {
		c.origin = ""
	}
	copy(c.circuitHash[:], r.take(32))
	c.circuitName = r.str()
	c.layout = readLayout(r)
	bits := 0
	for i := range c.layout {
		b := &c.layout[i]
		elems := 1
		for _, d := range b.Dims {
			if d <= 0 || elems > 1<<24/d {
				r.err = fmt.Errorf("bus %q: bad dimensions %v", b.Name, b.Dims)
			}
			elems *= max(d, 1)
		}
		if b.Width <= 0 || b.Width > 1<<24 {
			r.err = fmt.Errorf("bus %q: bad width %d", b.Name, b.Width)
		}
		if r.err == nil {
			bits += b.Width * elems
		}
	}
	np := int(r.u32())
	if r.err == nil && np > len(r.buf)/4 {
		r.err = errTruncated
	}
	for i := 0; i < np && r.err == nil; i++ {
		c.packs = append(c.packs, pack{n: int(r.u32())})
	}
	copy(c.pos.id[:], r.take(len(c.pos.id)))
	c.pos.first = int(r.u32())
	c.pos.total = int(r.u32())
	size := int(r.u32())
	count := int(r.u32())
	if r.err == nil && (size <= 0 || count < 0 || count > len(r.buf)/size) {
		r.err = fmt.Errorf("%d ciphertexts of %d bytes do not fit in %d bytes", count, size, len(r.buf))
	}
	if r.err == nil && (np == 0 || count != np*bits) {
		r.err = fmt.Errorf("%d ciphertexts for %d packs of %d bits", count, np, bits)
	}
	var raw [][]byte
	for i := 0; i < count && r.err == nil; i++ {
		raw = append(raw, r.take(size))
	}
	r.end()
	if r.err != nil {
		return nil, fmt.Errorf("%s: malformed ciphertext file: %w", name, r.err)
	}
	if c.engine, err = LookupEngine(h.engine); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if c.scheme, err = c.engine.scheme(h.params, true); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range c.packs {
		if n := c.packs[i].n; n > c.scheme.slots() || (c.scheme.slots() == 1 && n != 1) {
			return nil, fmt.Errorf("%s: pack %d holds %d instances in %d slots", name, i, n, c.scheme.slots())
		}
		cts := make([]backend.Ciphertext, bits)
		for j := range cts {
			ct, err := c.scheme.decode(raw[i*bits+j])
			if err != nil {
				return nil, fmt.Errorf("%s: ciphertext %d: %w", name, i*bits+j, err)
			}
			cts[j] = ct
		}
		c.packs[i].cts = cts
	}
	if n := c.Instances(); c.pos.total < 1 || c.pos.first < 0 || c.pos.first > c.pos.total-n {
		return nil, fmt.Errorf("%s: malformed ciphertext file: %d instances at %d of a batch of %d", name, n, c.pos.first, c.pos.total)
	}
	return c, nil
}

// Split cuts c into parts of at most maxInstances instances each, in
// order (for spreading a batch over several servers). FHEW ciphertexts
// split at any instance; BGV ones only between packs, so a pack holding
// more than maxInstances instances is an error. The parts share c's
// ciphertexts (nothing is copied).
func (c *Ciphertexts) Split(maxInstances int) ([]*Ciphertexts, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if maxInstances < 1 {
		return nil, fmt.Errorf("split into parts of %d instances: want at least 1", maxInstances)
	}
	pos, err := c.position(nil)
	if err != nil {
		return nil, err
	}
	var parts []*Ciphertexts
	cur, n := c.emptyLike(), 0
	cur.pos = pos
	for i, p := range c.packs {
		if p.instances() > maxInstances {
			return nil, fmt.Errorf("pack %d holds %d instances (one ciphertext's slots), more than %d per part", i, p.instances(), maxInstances)
		}
		if n+p.instances() > maxInstances {
			parts = append(parts, cur)
			next := c.emptyLike()
			next.pos = pos
			next.pos.first = cur.pos.first + n
			cur, n = next, 0
		}
		cur.packs = append(cur.packs, p)
		n += p.instances()
	}
	if len(cur.packs) > 0 {
		parts = append(parts, cur)
	}
	return parts, nil
}

func (c *Ciphertexts) emptyLike() *Ciphertexts {
	d := *c
	d.packs = nil
	return &d
}

// JoinCiphertexts is the inverse of Split: the packs of parts in order.
// All parts must be of one kind, engine, set, key, circuit and layout, and
// of one batch, each starting where the one before ends (parts of a Split,
// or the outputs of evaluating them, which keep their position):
// duplicated, reordered, foreign parts and gaps are refused, since they
// would decrypt to a plausible wrong batch. Contiguous parts that do not
// cover the whole batch join to a part of it, which keeps its position
// (so a part of a batch can itself be split, evaluated and joined, as the
// cluster does); Instances says how many it holds.
func JoinCiphertexts(parts []*Ciphertexts) (*Ciphertexts, error) {
	if len(parts) == 0 {
		return nil, errors.New("no ciphertexts to join")
	}
	var out *Ciphertexts
	var want batchPos
	for i, p := range parts {
		if err := p.usable(); err != nil {
			return nil, fmt.Errorf("part %d: %w", i+1, err)
		}
		pos, err := p.position(nil)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i+1, err)
		}
		if i == 0 {
			out, want = p.emptyLike(), pos
		}
		if p.kind != out.kind || p.engine.Name() != out.engine.Name() || p.scheme.name() != out.scheme.name() ||
			p.key != out.key || p.circuitHash != out.circuitHash || !sameLayout(p.layout, out.layout) {
			return nil, fmt.Errorf("part %d holds %v of another program, key or kind than part 1", i+1, p.kind)
		}
		n := p.Instances()
		if pos != want {
			if pos.id != want.id || pos.total != want.total {
				return nil, fmt.Errorf("part %d holds %s, another batch than part 1 (%s)", i+1, pos.describe(n), want.batch())
			}
			return nil, fmt.Errorf("part %d holds %s, want instances from %d (parts duplicated, missing or out of order)", i+1, pos.describe(n), want.first+1)
		}
		out.packs = append(out.packs, p.packs...)
		want.first += n
	}
	start, _ := parts[0].position(nil)
	out.pos = batchPos{id: want.id, first: start.first, total: want.total}
	return out, nil
}

// CheckInputs reports whether in are encrypted inputs of p under k (key,
// engine, set, circuit hash and layout): the checks Eval makes first, for
// callers that want them before other work.
func (k *ServerKey) CheckInputs(p *Program, in *Ciphertexts) error {
	if k == nil {
		return errors.New("nil ServerKey")
	}
	return in.checkFor(p, &k.keyInfo, ctInputs)
}

// CheckOutputs reports whether out are evaluated outputs of p under k.
func (k *ClientKey) CheckOutputs(p *Program, out *Ciphertexts) error {
	if k == nil {
		return errors.New("nil ClientKey")
	}
	return out.checkFor(p, &k.keyInfo, ctOutputs)
}
