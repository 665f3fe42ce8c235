package cbs

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Input RGSW encoding (AppendInputRGSW), little endian, no header (like a
// wide bit's: the container that holds them carries the parameter set and
// a checksum): the 32-byte seed of the A parts, then the B polynomial of
// each of the 2ℓ_in rows in order, each as its two residue slices of N
// uint32 (NTT domain, each residue below its prime). The A parts are
// regenerated from the seed, so the encoding is half of SizeBytes: 96 KiB
// + 32 B per input bit at STD128_CBS.

// InputRGSWSize returns the size of one input RGSW's encoding under p (0
// if p has no input gadget).
func InputRGSWSize(p Params) int {
	g, err := inputGadget(p)
	if err != nil {
		return 0
	}
	return 32 + 2*g.Digits*2*4*p.ringN
}

// AppendInputRGSW appends c's encoding to buf.
func AppendInputRGSW(buf []byte, c *InputRGSW) ([]byte, error) {
	if c == nil || c.rows == nil {
		return buf, errors.New("cbs: AppendInputRGSW: nil input RGSW")
	}
	buf = append(buf, c.seed[:]...)
	le := binary.LittleEndian
	for _, b := range c.rows.B {
		for _, res := range b {
			for _, v := range res {
				buf = le.AppendUint32(buf, v)
			}
		}
	}
	return buf, nil
}

// DecodeInputRGSW decodes AppendInputRGSW's encoding of an input RGSW of
// p, regenerating its A parts from the seed.
func DecodeInputRGSW(p Params, data []byte) (*InputRGSW, error) {
	if !p.valid() {
		return nil, errors.New("cbs: DecodeInputRGSW: zero Params (use NewParams)")
	}
	g, err := inputGadget(p)
	if err != nil {
		return nil, err
	}
	if len(data) != InputRGSWSize(p) {
		return nil, fmt.Errorf("%w: input RGSW of %d bytes, want %d for %s", ErrFormat, len(data), InputRGSWSize(p), p.lit.Name)
	}
	c := &InputRGSW{lit: p.lit, rows: newRGSW(p.ring, g.Digits)}
	copy(c.seed[:], data)
	data = data[32:]
	le := binary.LittleEndian
	qs := [2]uint32{p.ring.Q0, p.ring.Q1}
	for j, b := range c.rows.B {
		for k, res := range b {
			for i := range res {
				v := le.Uint32(data)
				if v >= qs[k] {
					return nil, fmt.Errorf("%w: input RGSW row %d residue %d coefficient %d is %d, not below %d", ErrFormat, j, k, i, v, qs[k])
				}
				res[i] = v
				data = data[4:]
			}
		}
	}
	expandInputA(p, c)
	return c, nil
}
