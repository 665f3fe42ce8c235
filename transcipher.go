package hcc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/ir"
)

// Transciphering: a client encrypts its data with AES-128-CTR (any
// standard tool: 16 bytes per block, no expansion) and, once, its AES key
// under its hcc key (EncryptAESKey). The server computes the CTR keystream
// homomorphically under the encrypted AES key and adds the public AES
// ciphertext (Transcipher), which leaves hcc ciphertexts of the data, laid
// out as the inputs of a program whose input is one 16-byte record (a
// 128-bit bus or a u8[16] array): one record per instance. Eval then runs
// the program on every record, and the client decrypts the results, or
// the records themselves (DecryptRecords). The server never holds the
// secret key or the AES key in the clear.
//
// Engines: bgv (byte-sliced AES in GF(2^8) slots, package bgvaes, one
// record per slot), on parameter sets whose slot field contains GF(2^8)
// (M65537; ToyM257Deep for tests); its server key needs the seven
// Frobenius (Galois) keys of the S-box, which GenerateKeysWith adds with
// KeyOptions.Transcipher. fhew: circuits/aes's aes128.hdl on one record
// at a time (about 15000 bootstraps per record), with the counter and the
// data as noiseless constants; any FHEW key pair transciphers.

// kindAESKey is a file holding an AES-128 key encrypted under an hcc key.
const kindAESKey fileKind = 6

// RecordBytes is the size of one transciphered record: one AES block.
const RecordBytes = 16

// KeyOptions choose what GenerateKeysWith adds to the evaluation keys.
type KeyOptions struct {
	// Transcipher adds the keys Transcipher needs (BGV: the automorphism
	// keys κ_(2^j), j = 1..7, of the S-box; about 94 MB each at M65537,
	// 1.5 MB at ToyM257Deep).
	Transcipher bool
}

// GenerateKeysWith is GenerateKeys with options.
func GenerateKeysWith(p *Program, o KeyOptions) (*ClientKey, *ServerKey, error) {
	if err := p.checkInsecure("generate keys"); err != nil {
		return nil, nil, err
	}
	return newKeysWith(p.engine, p.scheme, o)
}

// GenerateKeysForWith is GenerateKeysFor with options.
func GenerateKeysForWith(t Target, o KeyOptions) (*ClientKey, *ServerKey, error) {
	t, err := t.normalized()
	if err != nil {
		return nil, nil, err
	}
	e, err := LookupEngine(t.Engine)
	if err != nil {
		return nil, nil, err
	}
	name := t.Params
	if name == "" {
		name = e.DefaultParams()
	}
	s, err := e.scheme(name, t.Insecure)
	if err != nil {
		return nil, nil, err
	}
	return newKeysWith(e, s, o)
}

// transcipherScheme is a parameter set on which Transcipher runs.
type transcipherScheme interface {
	// newTranscipherKeys is newKeys plus the keys transciphering needs.
	newTranscipherKeys() (secretKey, serverKey, error)
	// canTranscipher reports why the set cannot transcipher, or nil.
	canTranscipher() error
}

// transcipherSecret encrypts an AES key.
type transcipherSecret interface {
	// encryptAESKey encrypts key at the top level, or with p at the lowest
	// level from which transciphering feeds p's inputs.
	encryptAESKey(key [16]byte, p *Program) ([]backend.Ciphertext, error)
}

// transcipherServer runs the AES-CTR keystream.
type transcipherServer interface {
	// transcipherer returns the function that runs one evaluation: the
	// record bits of at most slots() records of msg, whose first record
	// has counter ctr (bit j, LSB first, of byte i at index 8i+j).
	transcipherer(ctx context.Context, sk *ServerKey, key []backend.Ciphertext, threads int) (func(ctr [16]byte, msg []byte) ([]backend.Ciphertext, error), error)
	// transcipherCheck refuses a program whose inputs transciphering with
	// key cannot feed (too few levels left), before any work.
	transcipherCheck(p *Program, key []backend.Ciphertext) error
}

func errNoTranscipher(engine string) error {
	return fmt.Errorf("engine %s cannot transcipher (bgv and fhew can)", engine)
}

func newKeysWith(e Engine, s scheme, o KeyOptions) (*ClientKey, *ServerKey, error) {
	if !o.Transcipher {
		return newKeys(e, s)
	}
	ts, ok := s.(transcipherScheme)
	if !ok {
		return nil, nil, errNoTranscipher(e.Name())
	}
	if err := ts.canTranscipher(); err != nil {
		return nil, nil, err
	}
	sk, ek, err := ts.newTranscipherKeys()
	if err != nil {
		return nil, nil, err
	}
	return wrapKeys(e, s, sk, ek)
}

// AESKey is an AES-128 key encrypted under an hcc key pair (EncryptAESKey):
// what a server needs, with the server key, to transcipher AES-CTR data
// of that client. It marshals to a ciphertext file of its own kind.
type AESKey struct {
	engine Engine
	scheme scheme
	key    KeyID
	cts    []backend.Ciphertext
	origin string
}

// KeyID is the key pair the AES key is encrypted under.
func (a *AESKey) KeyID() KeyID { return a.key }

func (a *AESKey) name() string {
	if a.origin == "" {
		return "the encrypted AES key"
	}
	return a.origin
}

// EncryptAESKey encrypts an AES-128 key under k for Transcipher (BGV: byte
// i of the key in every slot of ciphertext i, at the top level of the
// chain, so that transciphering leaves as many levels as it can for the
// program run on the records).
func (k *ClientKey) EncryptAESKey(key [16]byte) (*AESKey, error) {
	return k.encryptAESKey(key, nil)
}

// EncryptAESKeyFor is EncryptAESKey at the lowest level from which
// transciphering still feeds p's inputs (by the noise model): every AES
// operation is then cheaper (at ToyM257Deep about 6 times for a shallow
// circuit), but the key serves only programs at most as deep as p.
func (k *ClientKey) EncryptAESKeyFor(key [16]byte, p *Program) (*AESKey, error) {
	if err := k.matches(p); err != nil {
		return nil, err
	}
	return k.encryptAESKey(key, p)
}

func (k *ClientKey) encryptAESKey(key [16]byte, p *Program) (*AESKey, error) {
	ts, ok := k.scheme.(transcipherScheme)
	if !ok {
		return nil, errNoTranscipher(k.engine.Name())
	}
	if err := ts.canTranscipher(); err != nil {
		return nil, err
	}
	sk, ok := k.sk.(transcipherSecret)
	if !ok {
		return nil, errNoTranscipher(k.engine.Name())
	}
	cts, err := sk.encryptAESKey(key, p)
	if err != nil {
		return nil, err
	}
	return &AESKey{engine: k.engine, scheme: k.scheme, key: k.id, cts: cts}, nil
}

// MarshalBinary encodes the encrypted AES key as a file (the ciphertext
// file frame, kind "an encrypted AES key": ciphertext size u32, count u32,
// the ciphertexts).
func (a *AESKey) MarshalBinary() ([]byte, error) {
	size, enc, err := a.scheme.encode(a.cts)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	h := fileHeader{kind: kindAESKey, engine: a.engine.Name(), params: a.scheme.name(), key: a.key}
	buf := h.append(make([]byte, 0, 128+size*len(enc)), ctMagic)
	buf = le.AppendUint32(buf, uint32(size))
	buf = le.AppendUint32(buf, uint32(len(enc)))
	for _, e := range enc {
		buf = append(buf, e...)
	}
	return seal(buf), nil
}

// UnmarshalAESKey decodes MarshalBinary's encoding. Damaged, truncated or
// foreign data is an error.
func UnmarshalAESKey(data []byte) (*AESKey, error) { return decodeAESKey("AES key data", data) }

// ReadAESKeyFile reads an encrypted AES key file. Errors name path.
func ReadAESKeyFile(path string) (*AESKey, error) {
	data, err := readFile(path, ctMagic)
	if err != nil {
		return nil, err
	}
	return decodeAESKey(path, data)
}

func decodeAESKey(name string, data []byte) (*AESKey, error) {
	h, r, err := openFile(name, data, ctMagic, "an hcc ciphertext file")
	if err != nil {
		return nil, err
	}
	if h.kind != kindAESKey {
		return nil, fmt.Errorf("%s holds %v, not an encrypted AES key", name, h.kind)
	}
	size := int(r.u32())
	count := int(r.u32())
	if r.err == nil && (size <= 0 || count <= 0 || count > len(r.buf)/size) {
		r.err = fmt.Errorf("%d ciphertexts of %d bytes do not fit in %d bytes", count, size, len(r.buf))
	}
	var raw [][]byte
	for i := 0; i < count && r.err == nil; i++ {
		raw = append(raw, r.take(size))
	}
	r.end()
	if r.err != nil {
		return nil, fmt.Errorf("%s: malformed AES key file: %w", name, r.err)
	}
	a := &AESKey{key: h.key, origin: name}
	if name == "AES key data" {
		a.origin = ""
	}
	if a.engine, err = LookupEngine(h.engine); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if a.scheme, err = a.engine.scheme(h.params, true); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, b := range raw {
		ct, err := a.scheme.decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s: ciphertext %d: %w", name, i, err)
		}
		a.cts = append(a.cts, ct)
	}
	return a, nil
}

// TranscipherOptions configure Transcipher.
type TranscipherOptions struct {
	// Threads is the number of workers (S-boxes of a round in parallel);
	// 0 is GOMAXPROCS.
	Threads int
}

// TranscipherStats describe a Transcipher run.
type TranscipherStats struct {
	// Records is the number of 16-byte records (the last may be partial).
	Records int
	// Evaluations is the number of AES evaluations (one per pack of at
	// most Slots records).
	Evaluations int
	// Wall is the time taken.
	Wall time.Duration
	// Level is the lowest BGV level the records arrive at, and NeedLevel
	// the level the program's inputs need (LevelForCircuit; the margin is
	// what the records' noise may take); both -1 on FHEW (bootstrapped).
	Level, NeedLevel int
}

// levelReporter is a server key whose ciphertexts have levels (BGV).
type levelReporter interface {
	// levels returns the lowest level among cts and the level p's inputs need.
	levels(p *Program, cts []backend.Ciphertext) (level, need int)
}

// recordMap returns, for a program whose inputs are one 16-byte record
// (a 128-bit bus, read big-endian: byte 0 is the most significant, as
// --in x=0x0011.. writes it; or an 8-bit array of 16 elements, element i =
// byte i), the record bit feeding each input bit: input bit q is bit
// m[q]%8 of byte m[q]/8. Other layouts are an error naming the program's.
func recordMap(p *Program, buses []ir.Bus, what string) ([]int, error) {
	if len(buses) == 1 {
		b := &buses[0]
		m := make([]int, 8*RecordBytes)
		switch {
		case b.Width == 8*RecordBytes && len(b.Dims) == 0:
			for k := range m {
				m[k] = 8*(RecordBytes-1-k/8) + k%8
			}
			return m, nil
		case b.Width == 8 && b.Elems() == RecordBytes:
			for q := range m {
				m[q] = q
			}
			return m, nil
		}
	}
	var names []string
	for i := range buses {
		names = append(names, buses[i].Name+": "+buses[i].TypeString())
	}
	return nil, fmt.Errorf("%s has %s %v; records need exactly one %s of 16 bytes: a 128-bit bus or an 8-bit array of 16 (u8[16])",
		p.originName(), what, names, what[:len(what)-1])
}

// counterAt returns iv + n as a 128-bit big-endian integer (mod 2^128),
// the counter block of record n.
func counterAt(iv [16]byte, n uint64) [16]byte {
	hi, lo := binary.BigEndian.Uint64(iv[:8]), binary.BigEndian.Uint64(iv[8:])
	lo2 := lo + n
	if lo2 < lo {
		hi++
	}
	var out [16]byte
	binary.BigEndian.PutUint64(out[:8], hi)
	binary.BigEndian.PutUint64(out[8:], lo2)
	return out
}

// Transcipher turns data, AES-128-CTR-encrypted under the AES key that
// aesKey encrypts (iv is the initial counter block, incremented as a
// 128-bit big-endian integer per 16-byte block, as openssl enc
// -aes-128-ctr and crypto/cipher.NewCTR do), into encrypted inputs of p:
// record n (bytes 16n..16n+15 of the plaintext) is instance n. p's inputs
// must be one 16-byte record (see recordMap); p must be compiled for k's
// engine and parameter set, and k must hold the transciphering keys
// (KeyOptions.Transcipher). Each pack (Slots records) is one AES
// evaluation. A last record shorter than 16 bytes is completed with
// keystream bytes (AES of its counter), not zeros: a circuit on records
// should ignore them or the data be padded to whole records; DecryptRecords
// returns whole records. ctx is checked between evaluations.
func Transcipher(ctx context.Context, k *ServerKey, aesKey *AESKey, iv [16]byte, data []byte, p *Program, opts TranscipherOptions) (*Ciphertexts, TranscipherStats, error) {
	t0 := time.Now()
	var st TranscipherStats
	if len(data) == 0 {
		return nil, st, errors.New("no data to transcipher")
	}
	if err := k.matches(p); err != nil {
		return nil, st, err
	}
	if aesKey.key != k.id {
		return nil, st, fmt.Errorf("%s was encrypted under key %v, but %s is key %v (wrong key)", aesKey.name(), aesKey.key, k.name(), k.id)
	}
	if aesKey.scheme.name() != k.scheme.name() || aesKey.engine.Name() != k.engine.Name() {
		return nil, st, fmt.Errorf("%s is for %s/%s, %s is %s/%s", aesKey.name(), aesKey.engine.Name(), aesKey.scheme.name(), k.name(), k.engine.Name(), k.scheme.name())
	}
	m, err := recordMap(p, p.circuit.Inputs, "inputs")
	if err != nil {
		return nil, st, err
	}
	ts, ok := k.ek.(transcipherServer)
	if !ok {
		return nil, st, errNoTranscipher(k.engine.Name())
	}
	if err := ts.transcipherCheck(p, aesKey.cts); err != nil {
		return nil, st, err
	}
	if opts.Threads < 0 {
		return nil, st, fmt.Errorf("threads must be at least 1, got %d", opts.Threads)
	}
	run, err := ts.transcipherer(ctx, k, aesKey.cts, opts.Threads)
	if err != nil {
		return nil, st, err
	}
	out := &Ciphertexts{kind: ctInputs, engine: k.engine, scheme: k.scheme, key: k.id,
		circuitHash: p.sourceHash, circuitName: p.name, layout: layoutOf(p.circuit.Inputs)}
	records := (len(data) + RecordBytes - 1) / RecordBytes
	per := k.scheme.slots()
	st.Level, st.NeedLevel = -1, -1
	lr, hasLevels := k.ek.(levelReporter)
	for first := 0; first < records; first += per {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		n := min(per, records-first)
		chunk := data[RecordBytes*first : min(len(data), RecordBytes*(first+n))]
		bits, err := run(counterAt(iv, uint64(first)), chunk)
		if err != nil {
			return nil, st, fmt.Errorf("records %d-%d: %w", first, first+n-1, err)
		}
		cts := make([]backend.Ciphertext, len(m))
		for q, b := range m {
			cts[q] = bits[b]
		}
		if err := k.ek.check(p, cts); err != nil {
			return nil, st, fmt.Errorf("transciphered records %d-%d cannot feed %s: %w", first, first+n-1, p.originName(), err)
		}
		if hasLevels {
			lv, need := lr.levels(p, cts)
			if st.Level < 0 || lv < st.Level {
				st.Level = lv
			}
			st.NeedLevel = need
		}
		out.packs = append(out.packs, pack{n: n, cts: cts})
		st.Evaluations++
	}
	st.Records = records
	st.Wall = time.Since(t0)
	return out, st, nil
}

// DecryptRecords decrypts ciphertexts of p whose bus layout is one 16-byte
// record (transciphered inputs, or the outputs of a program whose output
// is a 128-bit bus or u8[16]) and returns the records' bytes, 16 per
// instance, in order. For transciphered data whose length was not a
// multiple of 16, the bytes past its end in the last record are keystream:
// trim the result to the data's length.
func (k *ClientKey) DecryptRecords(p *Program, c *Ciphertexts) ([]byte, error) {
	if err := c.checkFor(p, &k.keyInfo, c.kind); err != nil {
		return nil, err
	}
	buses, what := p.circuit.Inputs, "inputs"
	if c.kind == ctOutputs {
		buses, what = p.circuit.Outputs, "outputs"
	}
	m, err := recordMap(p, buses, what)
	if err != nil {
		return nil, err
	}
	var res []byte
	for _, pk := range c.packs {
		got, err := k.sk.decrypt(pk.cts, pk.n)
		if err != nil {
			return nil, err
		}
		for _, bits := range got {
			if len(bits) != len(m) {
				return nil, fmt.Errorf("internal error: %d bits decrypted, a record has %d", len(bits), len(m))
			}
			var rec [RecordBytes]byte
			for q, b := range m {
				if bits[q] {
					rec[b/8] |= 1 << uint(b%8)
				}
			}
			res = append(res, rec[:]...)
		}
	}
	return res, nil
}

// RecordProgram returns the built-in program "record" for t: one input
// record (u8[16]) and the same bytes as output. Transcipher into it when no
// circuit is to run yet; DecryptRecords then gives the data back.
func RecordProgram(t Target) (*Program, error) {
	b := ir.NewBuilder("record")
	x := b.Input("record", 8, false, RecordBytes)
	b.Output("out", 8, false, x, RecordBytes)
	c, err := b.Build()
	if err != nil {
		return nil, err
	}
	return Compile(FromCircuit(c), t)
}
