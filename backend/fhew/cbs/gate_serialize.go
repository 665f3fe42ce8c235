package cbs

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend/ring"
)

// Gate-mode evaluation keys in the key file format (serialize.go, kind
// kindGateKey): seed | N_g u32 | log q_g u32 | B polynomials (bPolys
// order: blind rotation, trace, scheme switch, lift). MarshalBinary and
// UnmarshalEvaluationKey choose this layout by the key's mode and the
// file's kind byte.

// gateKeyPolys is the number of B polynomials of a gate-mode key of p.
func gateKeyPolys(p Params) int {
	l := p.lit
	return l.LWEDim*2*(2*l.BR.Digits) + (l.LogN+1)*l.Trace.Digits + p.liftGadget().Digits
}

// gateKeyBody is the body size of a gate-mode key of p.
func gateKeyBody(p Params) int { return 32 + 8 + gateKeyPolys(p)*2*p.ringN*4 }

func (ek *EvaluationKey) marshalGate() ([]byte, error) {
	p := ek.params
	if ek.ks != nil || len(ek.brk) != p.lit.LWEDim || len(ek.trace) != p.lit.LogN || len(ek.lift.B) != p.liftGadget().Digits ||
		checkGateShape(p, ek.gateN, ek.gateLogQ) != nil {
		return nil, errors.New("internal error: cbs gate-mode evaluation key of the wrong shape")
	}
	le := binary.LittleEndian
	b := header(p, kindGateKey, gateKeyBody(p))
	b = append(b, ek.seed[:]...)
	b = le.AppendUint32(b, uint32(ek.gateN))
	b = le.AppendUint32(b, uint32(ek.gateLogQ))
	ek.bPolys(func(x ring.Poly2) {
		for _, res := range x {
			for _, v := range res[:p.ringN] {
				b = le.AppendUint32(b, v)
			}
		}
	})
	return seal(b), nil
}

func unmarshalGate(p Params, data []byte) (*EvaluationKey, error) {
	var ng int
	var lq uint
	body, err := openSized(p, data, kindGateKey, func(rest []byte) (int, error) {
		if len(rest) < 40 {
			return 0, fmt.Errorf("%w: gate-mode evaluation key truncated in its header", ErrFormat)
		}
		n, q := binary.LittleEndian.Uint32(rest[32:]), binary.LittleEndian.Uint32(rest[36:])
		if n > uint32(p.ringN) || q > MaxGateLogQ {
			return 0, fmt.Errorf("%w: gate-mode evaluation key for N_g = %d mod 2^%d", ErrFormat, n, q)
		}
		ng, lq = int(n), uint(q)
		if err := checkGateShape(p, ng, lq); err != nil {
			return 0, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return gateKeyBody(p), nil
	}, "gate-mode evaluation key")
	if err != nil {
		return nil, err
	}
	var seed [32]byte
	copy(seed[:], body)
	ek := newEvaluationKeyShape(p, seed, ng)
	ek.gateLogQ = lq
	if err := ek.readBPolys(body[40:]); err != nil {
		return nil, err
	}
	regenPublic(ek)
	return ek, nil
}
