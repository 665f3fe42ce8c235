package bgvaes

import (
	"fmt"
	"math/big"

	"github.com/hcc-fhe/hcc/backend/bgv"
)

// Transciphering (GHS's motivation): a client sends data encrypted with
// AES-128-CTR (16 bytes per block, any standard tool) and, once, its AES
// key encrypted under BGV; the server computes the keystream
// homomorphically and adds the public AES ciphertext, which leaves BGV
// ciphertexts of the data. Counter blocks are public, so the first
// AddRoundKey adds them to the encrypted key as constants; the data bytes
// are added the same way at the end. Byte-sliced: block b of an
// evaluation (record b) sits in slot b.
//
// Bit layout for circuits: hcc's BGV executor runs a Boolean circuit on
// ciphertexts of bits, one instance per slot. The GF(2^8) bytes become
// bits by eight more linear maps (bit j of b is a GF(2)-linear function of
// b, so a linearized polynomial with values in GF(2) ⊂ K), from one
// hoisted decomposition per byte: Bits[8·i + j] holds bit j (LSB = 0) of
// byte i of every record, 0 or 1 per slot.

// ctrBlocks returns the counter blocks iv + first, ..., iv + first + n - 1
// (the standard 128-bit big-endian increment, wrapping mod 2^128, as
// crypto/cipher.NewCTR and openssl enc -aes-128-ctr).
func ctrBlocks(iv [16]byte, first, n int) [][16]byte {
	out := make([][16]byte, n)
	c := new(big.Int).SetBytes(iv[:])
	c.Add(c, big.NewInt(int64(first)))
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	one := big.NewInt(1)
	for i := range out {
		c.Mod(c, mod)
		c.FillBytes(out[i][:])
		c.Add(c, one)
	}
	return out
}

// transcipher is the program: keystream blocks AES_K(ctr[b]) plus the
// public data bytes, and optionally the bits.
func transcipher[T any](e *engine[T], p *program, ctr, data *[16]slotConst, keys roundKeys[T], bits bool) ([]T, error) {
	ks, err := encryptWith(e, p, func(ar arith[T], i int, rk T) (T, error) { return ar.addVec(rk, &ctr[i]) }, keys)
	if err != nil {
		return nil, err
	}
	ar := e.ars[0]
	out := make([]T, 16)
	for i := range out {
		out[i], err = ar.addVec(ks[i], &data[i])
		ar.free(ks[i])
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
	}
	if !bits {
		return out, nil
	}
	bs := make([]T, 128)
	err = e.par(16, func(ar arith[T], i int) error {
		b, err := ar.lin(out[i], p.bits)
		ar.free(out[i])
		copy(bs[8*i:], b)
		return err
	})
	if err != nil {
		return nil, err // names the step (the map's name)
	}
	return bs, nil
}

// slotConsts prepares the 16 byte-sliced public vectors of blocks (zero in
// the slots past the last block).
func (a *AES) slotConsts(blocks [][16]byte, plain bool) (*[16]slotConst, error) {
	return a.slotConstsFor(blocks, a.Blocks(), plain)
}

// slotConstsN is slotConsts for the plaintext engine on n slots.
func (a *AES) slotConstsN(blocks [][16]byte, n int) (*[16]slotConst, error) {
	return a.slotConstsFor(blocks, n, true)
}

func (a *AES) slotConstsFor(blocks [][16]byte, slots int, plain bool) (*[16]slotConst, error) {
	var out [16]slotConst
	for i := range out {
		vals := make([]uint64, slots)
		for b, blk := range blocks {
			vals[b] = a.f.Embed(blk[i])
		}
		out[i].vals = vals
		if !plain {
			pc, err := a.enc.EncodePlainConst(vals)
			if err != nil {
				return nil, err
			}
			out[i].pc = pc
		}
	}
	return &out, nil
}

// CTRBatch is one evaluation of transciphered data: records First,
// First+1, ..., First+Records-1 of the message, record b in slot b-First.
type CTRBatch struct {
	First, Records int
	// Bytes[i] holds φ(byte i) of each record (Bits false), or nil.
	Bytes []*bgv.Ciphertext
	// Bits[8i+j] holds bit j of byte i of each record (Bits true), or nil.
	Bits []*bgv.Ciphertext
	// Budget is the noise model's account of the AES part.
	Budget *Budget
}

// TranscipherCTR turns an AES-128-CTR ciphertext msg (any length; the
// initial counter block iv, incremented as a 128-bit big-endian integer
// per 16-byte block) into BGV ciphertexts of the plaintext, under the
// BGV-encrypted AES key (16 ciphertexts, EncodeKey: byte i in every slot
// of key[i]; the server never sees the key): one CTRBatch per Blocks()
// records, each checked by the noise model before it runs. With bits,
// the bytes are split into slot bits for Boolean circuits (see above).
// Bytes past the end of msg in the last record hold the keystream, not
// data: a circuit on records must ignore them (or the message be padded to
// whole blocks). The key is not consumed.
func (e *Evaluator) TranscipherCTR(key [16]*bgv.Ciphertext, iv [16]byte, msg []byte, bits bool) ([]*CTRBatch, error) {
	ks, err := states(key[:])
	if err != nil {
		return nil, err
	}
	nBlocks := (len(msg) + 15) / 16
	var out []*CTRBatch
	for first := 0; first < nBlocks; first += e.a.Blocks() {
		n := min(e.a.Blocks(), nBlocks-first)
		data := make([][16]byte, n)
		for b := range data {
			copy(data[b][:], msg[16*(first+b):min(len(msg), 16*(first+b+1))])
		}
		ctr, err := e.a.slotConsts(ctrBlocks(iv, first, n), false)
		if err != nil {
			return nil, err
		}
		dat, err := e.a.slotConsts(data, false)
		if err != nil {
			return nil, err
		}
		var k16 [16]bgv.NoiseState
		copy(k16[:], ks)
		budget, err := e.a.planTranscipher(ctr, dat, k16, bits)
		if err != nil {
			return nil, fmt.Errorf("bgvaes transcipher, records %d-%d: %w", first, first+n-1, err)
		}
		consume := e.e.consume
		e.e.consume = false // the key serves every batch
		res, err := transcipher(&e.e, e.a.p, ctr, dat, expandingKeys(&e.e, e.a.p, key), bits)
		e.e.consume = consume
		if err != nil {
			return nil, fmt.Errorf("bgvaes transcipher, records %d-%d: %w", first, first+n-1, err)
		}
		bt := &CTRBatch{First: first, Records: n, Budget: budget}
		if bits {
			bt.Bits = res
		} else {
			bt.Bytes = res
		}
		out = append(out, bt)
	}
	return out, nil
}

// planTranscipher runs the transcipher program on noise states.
func (a *AES) planTranscipher(ctr, data *[16]slotConst, key [16]bgv.NoiseState, bits bool) (*Budget, error) {
	b := &Budget{Direction: Encrypt, Expand: true}
	for _, s := range key {
		b.InputLevel = max(b.InputLevel, s.Level)
	}
	e := &engine[bgv.NoiseState]{ars: []arith[bgv.NoiseState]{&noiseArith{a: a}}}
	e.round = func(r int, s []bgv.NoiseState) {
		lv := s[0].Level
		for _, x := range s {
			lv = min(lv, x.Level)
		}
		b.Rounds[r] = lv
	}
	out, err := transcipher(e, a.p, ctr, data, expandingKeys(e, a.p, key), bits)
	if err != nil {
		return nil, fmt.Errorf("bgvaes: transciphering on %s (key at level %d) runs out of noise budget: %w", a.pr.Name(), b.InputLevel, err)
	}
	b.OutputLevel, b.MarginBits = out[0].Level, 1e9
	for _, s := range out {
		bound, q := a.pr.BoundBits(s)
		b.OutputLevel = min(b.OutputLevel, s.Level)
		b.MarginBits = min(b.MarginBits, q-2-bound)
	}
	return b, nil
}

// TranscipherLevel returns the output level of transciphering with the key
// encrypted at level t (the levels a circuit on the records has left), by
// the noise model on representative (random) data, or an error if the
// chain is too short.
func (a *AES) TranscipherLevel(t int, bits bool) (*Budget, error) {
	blocks := make([][16]byte, a.Blocks())
	for b := range blocks {
		for i := range blocks[b] {
			blocks[b][i] = byte(b*16 + i*7 + 1)
		}
	}
	ctr, err := a.slotConsts(blocks, false)
	if err != nil {
		return nil, err
	}
	var k16 [16]bgv.NoiseState
	for i := range k16 {
		k16[i] = a.pr.FreshState(t)
	}
	return a.planTranscipher(ctr, ctr, k16, bits)
}

// DecodeRecords returns the bytes of a batch's records from its decrypted
// plaintexts (16 byte plaintexts, or 128 bit plaintexts): the client's
// side, for checking.
func (a *AES) DecodeRecords(pts []bgv.BinaryPoly, records int) ([][16]byte, error) {
	switch len(pts) {
	case 16:
		var p16 [16]bgv.BinaryPoly
		copy(p16[:], pts)
		return a.DecodeBlocks(p16, records)
	case 128:
		if records < 0 || records > a.Blocks() {
			return nil, fmt.Errorf("bgvaes: %d records requested, %d slots", records, a.Blocks())
		}
		out := make([][16]byte, records)
		bs := make([]uint8, a.Blocks())
		for k, pt := range pts {
			if err := a.enc.DecodeBits(pt, bs); err != nil {
				return nil, fmt.Errorf("bgvaes: bit %d of byte %d: %w", k%8, k/8, err)
			}
			for b := range out {
				out[b][k/8] |= bs[b] << uint(k%8)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("bgvaes: %d plaintexts, want 16 (bytes) or 128 (bits)", len(pts))
}
