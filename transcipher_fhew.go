package hcc

import (
	"context"
	"fmt"
	"sync"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/fhew"
	aescircuit "github.com/hcc-fhe/hcc/circuits/aes"
)

// FHEW transciphering: the AES circuit of circuits/aes (aes128.hdl, the
// small S-box) on one block at a time. The counter block and the AES-CTR
// data are public, so they enter as noiseless (trivial) ciphertexts; the
// key is the client's 128 encrypted bits. Every gate is a bootstrap (about
// 15000 after LUT mapping), so one record costs what one AES block does.

// ctrBlockHDL is one CTR block: the keystream AES_key(ctr) plus the data,
// bytes in record order (rec[i] is byte i).
const ctrBlockHDL = `import "aes128.hdl";

circuit ctr_block(key: u128, ctr: u128, data: u8[16]) -> rec: u8[16] {
    let ks = bytes_of(aes128_encrypt(key, ctr, 0));
    for i in 0..16 {
        rec[i] = ks[i] ^ data[i];
    }
}
`

// fhewCTRPrograms caches the compiled ctr_block program per parameter set
// (LUT mapping takes seconds; programs are immutable).
var fhewCTRPrograms sync.Map // set name -> *Program

func fhewCTRProgram(s *fhewScheme) (*Program, error) {
	if p, ok := fhewCTRPrograms.Load(s.name()); ok {
		return p.(*Program), nil
	}
	src := Source{Name: "ctr_block.hdl", Text: []byte(ctrBlockHDL), FS: aescircuit.FS}
	p, err := Compile(src, Target{Engine: "fhew", Params: s.name(), Insecure: true}) // the key's set: chosen at keygen
	if err != nil {
		return nil, fmt.Errorf("compiling the AES-CTR block circuit: %w", err)
	}
	actual, _ := fhewCTRPrograms.LoadOrStore(s.name(), p)
	return actual.(*Program), nil
}

// blockBits are the bits of a u128 bus holding b (byte 0 most significant).
func blockBits(b [16]byte) []bool {
	out := make([]bool, 128)
	for k := range out {
		out[k] = b[15-k/8]>>uint(k%8)&1 == 1
	}
	return out
}

func (s *fhewScheme) canTranscipher() error { return nil }

// newTranscipherKeys: the bootstrapping keys are all FHEW needs.
func (s *fhewScheme) newTranscipherKeys() (secretKey, serverKey, error) { return s.newKeys() }

// encryptAESKey encrypts the key's 128 bits (the ctr_block key bus).
func (k *fhewSecret) encryptAESKey(key [16]byte, _ *Program) ([]backend.Ciphertext, error) {
	enc, err := fhew.NewEncryptor(k.sk)
	if err != nil {
		return nil, err
	}
	return enc.EncryptBits(blockBits(key)), nil
}

func (k *fhewServer) transcipherCheck(_ *Program, key []backend.Ciphertext) error {
	if len(key) != 128 {
		return fmt.Errorf("an encrypted FHEW AES key holds 128 ciphertexts, not %d", len(key))
	}
	return nil
}

// transcipherer evaluates ctr_block on one record per call.
func (k *fhewServer) transcipherer(ctx context.Context, sk *ServerKey, key []backend.Ciphertext, threads int) (func(ctr [16]byte, msg []byte) ([]backend.Ciphertext, error), error) {
	p, err := fhewCTRProgram(k.s)
	if err != nil {
		return nil, err
	}
	return func(ctr [16]byte, msg []byte) ([]backend.Ciphertext, error) {
		if len(msg) > RecordBytes {
			return nil, fmt.Errorf("internal error: %d bytes for one FHEW record", len(msg))
		}
		var data [16]byte
		copy(data[:], msg) // a short record: zeros, so the rest is keystream as on BGV
		cts := append([]backend.Ciphertext(nil), key...)
		public := append(blockBits(ctr), make([]bool, 128)...)
		for q := range 128 {
			public[128+q] = data[q/8]>>uint(q%8)&1 == 1
		}
		for _, v := range public {
			ct := fhew.NewCiphertext(k.s.p)
			fhew.TrivialCiphertext(k.s.p, v, ct)
			cts = append(cts, ct)
		}
		in := &Ciphertexts{kind: ctInputs, engine: sk.engine, scheme: sk.scheme, key: sk.id,
			circuitHash: p.sourceHash, circuitName: p.name, layout: layoutOf(p.circuit.Inputs), packs: []pack{{n: 1, cts: cts}}}
		out, _, err := Eval(ctx, p, sk, in, EvalOptions{Threads: threads})
		if err != nil {
			return nil, err
		}
		return out.packs[0].cts, nil
	}, nil
}
