package fhew

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Key-file parts of the CMux gadget (serialize.go's format). A set with
// the gadget marks its literal with flag bit 2 (value 4) and appends the
// CBS literal field by field, so a key file names the whole combined set.
// Bodies gain, after the gate parts:
//
//	evaluation key: the lower keys' b rows (uint32, NTT domain; the a rows
//	  regenerate from the Seed, labels (domainLower, h)), then the CBS
//	  gate-mode key as a u64 length and package cbs's own file (versioned,
//	  checksummed; cbs.UnmarshalEvaluationKey refuses damage);
//	secret key: a u64 length and package cbs's secret-key file (z_c and s).
//
// Files of sets without the gadget are byte for byte what they were.

// flagCMux marks a literal with a CMux part.
const flagCMux = 4

func writeCBSLiteral(b *bytes.Buffer, c *cbs.ParamsLiteral) {
	le := binary.LittleEndian
	b.Write(le.AppendUint16(nil, uint16(len(c.Name))))
	b.WriteString(c.Name)
	ins := byte(0)
	if c.Insecure {
		ins = 1
	}
	b.WriteByte(ins)
	for _, v := range []uint64{uint64(c.LogN), uint64(c.Q0), uint64(c.Q1), math.Float64bits(c.Sigma),
		uint64(c.LWEDim), uint64(c.LogQKS), uint64(c.LogBKS)} {
		b.Write(le.AppendUint64(nil, v))
	}
	for _, g := range []cbs.Gadget{c.BR, c.Trace, c.CBS} {
		for _, v := range []int{g.LogB, g.Digits, g.Drop} {
			b.Write(le.AppendUint64(nil, uint64(v)))
		}
	}
}

func readCBSLiteral(r *reader) *cbs.ParamsLiteral {
	c := &cbs.ParamsLiteral{}
	c.Name = string(r.take(int(r.u16())))
	ins := r.take(1)
	if ins == nil {
		return c
	}
	if ins[0] > 1 {
		r.err = fmt.Errorf("%w: CBS literal flag %d", ErrKeyFormat, ins[0])
		return c
	}
	c.Insecure = ins[0] == 1
	c.LogN = int(r.u64())
	c.Q0, c.Q1 = r.u32(), r.u32()
	c.Sigma = math.Float64frombits(r.u64())
	c.LWEDim, c.LogQKS, c.LogBKS = int(r.u64()), int(r.u64()), int(r.u64())
	for _, g := range []*cbs.Gadget{&c.BR, &c.Trace, &c.CBS} {
		g.LogB, g.Digits, g.Drop = int(r.u64()), int(r.u64()), int(r.u64())
	}
	return c
}

// appendBlob writes a u64 length and data.
func appendBlob(b *bytes.Buffer, data []byte) {
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(data))))
	b.Write(data)
}

// readBlob reads appendBlob's encoding (bounded by what is left).
func (r *reader) blob() []byte {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.buf)) {
		r.err = fmt.Errorf("%w: truncated CMux part", ErrKeyFormat)
		return nil
	}
	return r.take(int(n))
}

// writeCMuxEvalKey appends the evaluation key's CMux parts.
func writeCMuxEvalKey(b *bytes.Buffer, ek *EvaluationKey, putRows func([]uint32)) error {
	if !ek.params.HasCMux() {
		return nil
	}
	putRows(ek.lower)
	data, err := ek.cbs.MarshalBinary()
	if err != nil {
		return fmt.Errorf("fhew: CMux key: %w", err)
	}
	appendBlob(b, data)
	return nil
}

// readCMuxEvalKey reads the evaluation key's CMux parts; getRows fills b
// rows from the file and regenerates the a rows from the given stream.
func readCMuxEvalKey(r *reader, ek *EvaluationKey, getRows func([]uint32, *prng)) error {
	p := ek.params
	if !p.HasCMux() {
		return nil
	}
	pp := p.params
	l := pp.autoKeyLen()
	ek.lower = make([]uint32, pp.lowerKeyLen())
	for h := 0; h < pp.cmux.parts; h++ {
		getRows(ek.lower[h*l:(h+1)*l], newPRNG(ek.Seed.derive(domainLower, uint64(h))))
	}
	data := r.blob()
	if r.err != nil {
		return r.err
	}
	g, err := cbs.UnmarshalEvaluationKey(pp.cmux.cp, data)
	if err != nil {
		return fmt.Errorf("%w: CMux key: %v", ErrKeyFormat, err)
	}
	if ok, ng, logQ := g.GateMode(); !ok || ng != pp.N || logQ != uint(pp.logQKS) {
		return fmt.Errorf("%w: CMux key is not a gate-mode key for N = %d mod 2^%d", ErrKeyFormat, pp.N, pp.logQKS)
	}
	for _, v := range ek.lower {
		if v >= pp.Q {
			return fmt.Errorf("%w: lower key entry not reduced mod Q", ErrKeyFormat)
		}
	}
	ek.cbs = g
	return nil
}

// writeCMuxSecret appends the secret key's CBS part.
func writeCMuxSecret(b *bytes.Buffer, sk *SecretKey) error {
	if !sk.params.HasCMux() {
		return nil
	}
	data, err := sk.cbs.MarshalBinary()
	if err != nil {
		return fmt.Errorf("fhew: CMux secret key: %w", err)
	}
	appendBlob(b, data)
	return nil
}

// readCMuxSecret reads the secret key's CBS part; its LWE secret must be
// the gate key's s.
func readCMuxSecret(r *reader, sk *SecretKey) error {
	p := sk.params
	if !p.HasCMux() {
		return nil
	}
	data := r.blob()
	if r.err != nil {
		return r.err
	}
	c, err := cbs.UnmarshalSecretKey(p.cmux.cp, data)
	if err != nil {
		return fmt.Errorf("%w: CMux secret key: %v", ErrKeyFormat, err)
	}
	s := c.LWESecret()
	if len(s) != len(sk.s) {
		return fmt.Errorf("%w: CMux secret key has another LWE dimension", ErrKeyFormat)
	}
	for i := range s {
		if s[i] != sk.s[i] {
			return fmt.Errorf("%w: CMux secret key's LWE secret is not the gate key's", ErrKeyFormat)
		}
	}
	sk.cbs = c
	return nil
}
