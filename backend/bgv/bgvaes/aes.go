package bgvaes

import (
	"fmt"
	"sync"

	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/ring"
)

// AES is byte-sliced AES-128 prepared for one BGV parameter set whose
// slot degree d is a multiple of 8: the embedding of GF(2^8), the derived
// linear maps as prepared constants, and the constants the rounds add.
// One AES state is 16 ciphertexts (Blocks() blocks, one per slot). Safe
// for concurrent use.
type AES struct {
	pr  *bgv.Params
	enc *bgv.Encoder
	f   *Field
	p   *program

	mu     sync.Mutex
	consts map[uint64]*bgv.ConstPlaintext // map coefficients, by slot value
	adds   map[byte]*bgv.PlainConst       // added constants, lifted on use
	maps   map[*linMap]*bgv.LinearMaps
}

// New prepares AES for pr with its encoder. The prepared constants (each
// about 15 MB at m = 65537: one row per prime) are built on first use and
// shared by value, so a run holds only the ones its direction needs.
func New(pr *bgv.Params, enc *bgv.Encoder) (*AES, error) {
	f, err := NewField(enc.Field())
	if err != nil {
		return nil, fmt.Errorf("bgvaes on %s: %w", pr.Name(), err)
	}
	p, err := newProgram(f)
	if err != nil {
		return nil, err
	}
	return &AES{pr: pr, enc: enc, f: f, p: p, consts: map[uint64]*bgv.ConstPlaintext{}, adds: map[byte]*bgv.PlainConst{}, maps: map[*linMap]*bgv.LinearMaps{}}, nil
}

// linear returns m prepared for ciphertexts (built once).
func (a *AES) linear(m *linMap) (*bgv.LinearMaps, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if lm, ok := a.maps[m]; ok {
		return lm, nil
	}
	cs := make([][]*bgv.ConstPlaintext, len(m.coeffs))
	for k, co := range m.coeffs {
		cs[k] = make([]*bgv.ConstPlaintext, 8)
		for j, c := range co {
			if c == 0 {
				continue
			}
			var err error
			if cs[k][j], err = a.replicatedLocked(c); err != nil {
				return nil, err
			}
		}
	}
	lm, err := a.pr.NewLinearMaps(a.frobeniusElements(), cs)
	if err != nil {
		return nil, fmt.Errorf("bgvaes %s: %w", m.name, err)
	}
	a.maps[m] = lm
	return lm, nil
}

// Prepare builds the constants a direction needs (about 0.25 GB at
// m = 65537 for encryption), which runs otherwise build on first use:
// call it before a measured run, or to pay the cost up front.
func (a *AES) Prepare(dir Direction) error {
	ms := []*linMap{a.p.enc, a.p.last}
	cs := []byte{sboxConst}
	for _, r := range rcon[1:] {
		cs = append(cs, sboxConst^r)
	}
	if dir == Decrypt {
		ms = []*linMap{a.p.dec0, a.p.dec, a.p.last}
		cs = append(cs, affineLinearInv(sboxConst))
	}
	for _, m := range ms {
		if _, err := a.linear(m); err != nil {
			return err
		}
	}
	for _, c := range cs {
		if _, err := a.constant(c); err != nil {
			return err
		}
	}
	return nil
}

// frobeniusElements returns 2^j mod m, j = 0..7 (κ_(2^j) raises every slot
// to the power 2^j).
func (a *AES) frobeniusElements() []uint64 {
	out := make([]uint64, 8)
	for j := range out {
		out[j] = ring.PowMod(2, uint64(j), uint64(a.pr.M()))
	}
	return out
}

// GaloisElements returns the automorphisms whose keys the evaluator needs
// besides the relinearization key: κ_(2^j), j = 1..7 (pass them to
// bgv.KeyGenerator.AddAutoKeys). Only these seven: the full Frobenius set
// of GF(2^32) would be 31 keys (94 MB each at m = 65537).
func (a *AES) GaloisElements() []uint64 { return a.frobeniusElements()[1:] }

// Params returns the BGV parameters.
func (a *AES) Params() *bgv.Params { return a.pr }

// Field returns the embedding of GF(2^8).
func (a *AES) Field() *Field { return a.f }

// Blocks returns the number of blocks per evaluation (the slot count).
func (a *AES) Blocks() int { return a.enc.Slots() }

// replicatedLocked prepares the constant with v in every slot (cached by
// value; a.mu held).
func (a *AES) replicatedLocked(v uint64) (*bgv.ConstPlaintext, error) {
	if k, ok := a.consts[v]; ok {
		return k, nil
	}
	vals := make([]uint64, a.enc.Slots())
	for i := range vals {
		vals[i] = v
	}
	k, err := a.enc.EncodeConst(vals)
	if err != nil {
		return nil, err
	}
	a.consts[v] = k
	return k, nil
}

// constant returns φ(c) in every slot as a constant to add (cached): kept
// as plaintext bits and lifted per addition (bgv.PlainConst), since the
// eleven such constants are each added only a few dozen times per run.
func (a *AES) constant(c byte) (*bgv.PlainConst, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k, ok := a.adds[c]; ok {
		return k, nil
	}
	vals := make([]uint64, a.enc.Slots())
	for i := range vals {
		vals[i] = a.f.Embed(c)
	}
	k, err := a.enc.EncodePlainConst(vals)
	if err != nil {
		return nil, err
	}
	a.adds[c] = k
	return k, nil
}

// EncodeBlocks returns the 16 byte-sliced plaintexts of up to Blocks()
// blocks: plaintext i holds φ(byte i of block b) in slot b; slots past the
// last block hold zero.
func (a *AES) EncodeBlocks(blocks [][16]byte) ([16]bgv.BinaryPoly, error) {
	var out [16]bgv.BinaryPoly
	if len(blocks) > a.Blocks() {
		return out, fmt.Errorf("bgvaes: %d blocks, at most %d per evaluation on %s", len(blocks), a.Blocks(), a.pr.Name())
	}
	vals := make([]uint64, a.Blocks())
	for i := range out {
		clear(vals)
		for b, blk := range blocks {
			vals[b] = a.f.Embed(blk[i])
		}
		out[i] = bgv.NewBinaryPoly(a.pr.N())
		if err := a.enc.Encode(vals, out[i]); err != nil {
			return out, err
		}
	}
	return out, nil
}

// EncodeKey returns the 16 plaintexts of an AES key: byte i in every slot
// of plaintext i (the same key for every block).
func (a *AES) EncodeKey(key [16]byte) ([16]bgv.BinaryPoly, error) {
	blocks := make([][16]byte, a.Blocks())
	for i := range blocks {
		blocks[i] = key
	}
	return a.EncodeBlocks(blocks)
}

// EncodeRoundKeys returns the plaintexts of the 11 round keys of key
// (expanded in the clear by the client: the round-keys-supplied case).
func (a *AES) EncodeRoundKeys(key [16]byte) ([11][16]bgv.BinaryPoly, error) {
	var out [11][16]bgv.BinaryPoly
	for r, rk := range ExpandKey(key) {
		var err error
		if out[r], err = a.EncodeKey(rk); err != nil {
			return out, err
		}
	}
	return out, nil
}

// DecodeBlocks returns the first n blocks of a byte-sliced state given as
// its 16 decrypted plaintexts; a slot outside GF(2^8) (a ciphertext that
// did not decrypt) is an error.
func (a *AES) DecodeBlocks(pts [16]bgv.BinaryPoly, n int) ([][16]byte, error) {
	if n < 0 || n > a.Blocks() {
		return nil, fmt.Errorf("bgvaes: %d blocks requested, %d slots", n, a.Blocks())
	}
	out := make([][16]byte, n)
	vals := make([]uint64, a.Blocks())
	for i, pt := range pts {
		a.enc.Decode(pt, vals)
		for b := range out {
			v, ok := a.f.Extract(vals[b])
			if !ok {
				return nil, fmt.Errorf("bgvaes: byte %d of block %d decodes to %#x, outside GF(2^8) (noise overflow?)", i, b, vals[b])
			}
			out[b][i] = v
		}
	}
	return out, nil
}

// ExpandKey returns the 11 round keys of key (FIPS-197 5.2) in the clear,
// in state byte order (i = 4·column + row).
func ExpandKey(key [16]byte) [11][16]byte {
	var rk [11][16]byte
	rk[0] = key
	for r := 1; r <= 10; r++ {
		p := rk[r-1]
		for row := range 4 {
			rk[r][row] = p[row] ^ sboxRef(p[12+(row+1)%4])
		}
		rk[r][0] ^= rcon[r]
		for i := 4; i < 16; i++ {
			rk[r][i] = p[i] ^ rk[r][i-4]
		}
	}
	return rk
}
