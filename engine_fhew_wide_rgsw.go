package hcc

import (
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew/cbs"
)

// Client-side input RGSWs on the wide-table sets (EncryptOptions.InputRGSW;
// docs/fhew-cbs.md, "Client-side RGSW inputs"). The client, who holds the
// secret key, sends every input bit twice: as its wide bit and as an RGSW
// under the ring key (cbs.Encryptor.EncryptInputRGSW). The executor then
// builds the RGSW of every table input that reads only input bits (at most
// cbs.Params.InputFormMaxTerms of them) by a few external products instead
// of a circuit bootstrap: AES-128 runs 1440 bootstraps instead of 1600.
// The cost is the size: 96 KiB + 32 B more per input bit encoded (the RGSW's
// uniform halves are expanded from a seed), 192 KiB more in memory, at
// STD128_CBS, against 16 KiB for the wide bit.
//
// Such an input bit is a wideInput (one backend.Ciphertext, so that packs,
// Split, Join and the file format carry it like any ciphertext). Its
// encoding is the wide bit's (cbs.AppendWideBit) followed by the RGSW's
// (cbs.AppendInputRGSW); a ciphertext file holds ciphertexts of one size,
// so the size in its header tells the two encodings apart and files
// written before the option decode as they always did.

// EncryptOptions configure ClientKey.EncryptWith.
type EncryptOptions struct {
	// InputRGSW also encrypts every input bit as an RGSW ciphertext (the
	// wide-table sets STD128_CBS, STD128_CBS_595 and ToyCBS only; other
	// sets refuse it). Eval then builds the table inputs that read only
	// input bits from them instead of circuit-bootstrapping them (AES-128:
	// 1440 bootstraps instead of 1600, about 0.9x the CPU), for inputs
	// about 7 times larger (per bit at STD128_CBS 16 KiB + 96 KiB encoded,
	// + 192 KiB in memory). Outputs are the same either way.
	InputRGSW bool
}

// rgswEncrypter is a secret key that can encrypt input RGSWs.
type rgswEncrypter interface {
	encryptInputRGSW(p *Program, bits []bool) ([]backend.Ciphertext, error)
}

// errNoInputRGSW is the error for EncryptOptions.InputRGSW on a set
// without input RGSWs.
func errNoInputRGSW(engine, params string) error {
	return fmt.Errorf("parameter set %s (%s) has no client-side input RGSWs: EncryptOptions.InputRGSW (hcc --input-rgsw) needs a wide-table set such as %s; encrypt without it", params, engine, wideCostReference)
}

// wideInput is an input bit encrypted with EncryptOptions.InputRGSW.
type wideInput struct {
	bit  *cbs.WideBit
	rgsw *cbs.InputRGSW
}

// encryptInputRGSW is encrypt with the input RGSWs: per bit its wide bit
// and its RGSW, from one encryptor (fresh seeds per call).
func (k *wideSecret) encryptInputRGSW(p *Program, bits []bool) ([]backend.Ciphertext, error) {
	if err := p.checkInsecure("encrypt"); err != nil {
		return nil, err
	}
	if cbs.InputRGSWSize(k.s.p) == 0 {
		return nil, errNoInputRGSW("fhew", k.s.name())
	}
	enc, err := cbs.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	ws, err := enc.EncryptBits(bits)
	if err != nil {
		return nil, err
	}
	rs, err := enc.EncryptInputRGSW(bits)
	if err != nil {
		return nil, fmt.Errorf("encrypting the input RGSWs: %w", err)
	}
	out := make([]backend.Ciphertext, len(bits))
	for i := range ws {
		out[i] = &wideInput{bit: ws[i], rgsw: rs[i]}
	}
	return out, nil
}

var _ rgswEncrypter = (*wideSecret)(nil)

// encodeWide is wideScheme.encode: bare wide bits, or wide bits with their
// RGSWs when the first carries one (then all must: one size per file).
func (s *wideScheme) encodeWide(cts []backend.Ciphertext) (int, [][]byte, error) {
	bit := cbs.WideBitSize(s.p)
	size := bit
	withRGSW := len(cts) > 0 && isWideInput(cts[0])
	if withRGSW {
		size += cbs.InputRGSWSize(s.p)
	}
	out := make([][]byte, len(cts))
	for i, ct := range cts {
		w, r := wideOf(ct)
		if w == nil || len(w.A) != s.p.N() {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d is %T, not a wide bit of %s", i, ct, s.name())
		}
		if (r != nil) != withRGSW {
			return 0, nil, fmt.Errorf("ciphertext %d: %w", i, errMixedInputRGSW)
		}
		b := cbs.AppendWideBit(make([]byte, 0, size), w)
		if r != nil {
			var err error
			if b, err = cbs.AppendInputRGSW(b, r); err != nil {
				return 0, nil, fmt.Errorf("ciphertext %d: %w", i, err)
			}
		}
		if len(b) != size {
			return 0, nil, fmt.Errorf("internal error: ciphertext %d encodes to %d bytes, want %d", i, len(b), size)
		}
		out[i] = b
	}
	return size, out, nil
}

// decodeWide is wideScheme.decode: by its size, a bare wide bit or a wide
// bit followed by its input RGSW.
func (s *wideScheme) decodeWide(data []byte) (backend.Ciphertext, error) {
	bit, rgsw := cbs.WideBitSize(s.p), cbs.InputRGSWSize(s.p)
	switch {
	case len(data) == bit:
		return cbs.DecodeWideBit(s.p, data)
	case rgsw > 0 && len(data) == bit+rgsw:
		w, err := cbs.DecodeWideBit(s.p, data[:bit])
		if err != nil {
			return nil, err
		}
		r, err := cbs.DecodeInputRGSW(s.p, data[bit:])
		if err != nil {
			return nil, err
		}
		return &wideInput{bit: w, rgsw: r}, nil
	}
	if rgsw == 0 {
		return nil, fmt.Errorf("a %s ciphertext of %d bytes, want %d (a wide bit)", s.name(), len(data), bit)
	}
	return nil, fmt.Errorf("a %s ciphertext of %d bytes, want %d (a wide bit) or %d (a wide bit and its input RGSW)", s.name(), len(data), bit, bit+rgsw)
}

// isWideInput reports whether ct carries an input RGSW.
func isWideInput(ct backend.Ciphertext) bool {
	_, ok := ct.(*wideInput)
	return ok
}

// wideOf returns ct's wide bit and its input RGSW (nil without one); a nil
// wide bit when ct is neither.
func wideOf(ct backend.Ciphertext) (*cbs.WideBit, *cbs.InputRGSW) {
	switch x := ct.(type) {
	case *cbs.WideBit:
		return x, nil
	case *wideInput:
		if x == nil {
			return nil, nil
		}
		return x.bit, x.rgsw
	}
	return nil, nil
}

// errMixedInputRGSW is the error for inputs of which some carry an RGSW.
var errMixedInputRGSW = errors.New("some input bits carry an input RGSW and some do not: encrypt every instance of the run in one call, all with EncryptOptions.InputRGSW (hcc encrypt --input-rgsw) or all without")

// wideParts splits a run's packs into their wide bits and, when every bit
// carries one, their input RGSWs (nil when none does; mixed is an error,
// reported before anything runs).
func wideParts(packs [][]backend.Ciphertext) (bits [][]*cbs.WideBit, rgsw [][]*cbs.InputRGSW, err error) {
	with, without := 0, 0
	bits = make([][]*cbs.WideBit, len(packs))
	rgsw = make([][]*cbs.InputRGSW, len(packs))
	for i, pk := range packs {
		bits[i] = make([]*cbs.WideBit, len(pk))
		rgsw[i] = make([]*cbs.InputRGSW, len(pk))
		for j, ct := range pk {
			w, r := wideOf(ct)
			if w == nil {
				return nil, nil, fmt.Errorf("ciphertext %d is %T, not a wide bit", j, ct)
			}
			bits[i][j], rgsw[i][j] = w, r
			if r != nil {
				with++
			} else {
				without++
			}
		}
	}
	if with > 0 && without > 0 {
		return nil, nil, fmt.Errorf("%d of %d input bits: %w", with, with+without, errMixedInputRGSW)
	}
	if with == 0 {
		rgsw = nil
	}
	return bits, rgsw, nil
}

// wideInputRGSWBytes is one input RGSW in memory (cbs.InputRGSW.SizeBytes:
// 2·digits rows of a B and an A polynomial with the input gadget's digits;
// 192 KiB at STD128_CBS), 0 on a set without input RGSWs.
func wideInputRGSWBytes(p cbs.Params) int64 {
	if cbs.InputRGSWSize(p) == 0 {
		return 0
	}
	return 2 * int64(p.InputGadget().Digits) * 2 * widePolyBytes(p)
}

// HasInputRGSW reports whether the ciphertexts carry client-side input
// RGSWs (encrypted with EncryptOptions.InputRGSW), for pricing their run
// (MemoryOptions.InputRGSW).
func (c *Ciphertexts) HasInputRGSW() bool {
	if c == nil {
		return false
	}
	for _, p := range c.packs {
		for _, ct := range p.cts {
			if isWideInput(ct) {
				return true
			}
		}
	}
	return false
}
