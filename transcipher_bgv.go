package hcc

import (
	"context"
	"fmt"
	goruntime "runtime"

	"github.com/hcc-fhe/hcc/backend"
	"github.com/hcc-fhe/hcc/backend/bgv"
	"github.com/hcc-fhe/hcc/backend/bgv/bgvaes"
)

// BGV transciphering: package bgvaes's byte-sliced AES-128 (GF(2^8) in the
// slots, one record per slot), whose CTR output is split into slot bits,
// the bit-sliced executor's layout (bgvaes.Evaluator.TranscipherCTR).

// canTranscipher: AES needs GF(2^8) inside the slot field, so the slot
// degree must be a multiple of 8.
func (s *bgvScheme) canTranscipher() error {
	if d := s.pr.SlotDegree(); d%8 != 0 {
		return fmt.Errorf("parameter set %s cannot transcipher: its slots are GF(2^%d), which does not contain AES's GF(2^8) (use M65537, slots GF(2^32))", s.pr.Name(), d)
	}
	return nil
}

// newAES prepares bgvaes for the set (cheap until a run builds its
// constants).
func (s *bgvScheme) newAES() (*bgvaes.AES, error) {
	enc, err := bgv.NewEncoder(s.pr)
	if err != nil {
		return nil, err
	}
	return bgvaes.New(s.pr, enc)
}

// newTranscipherKeys is newKeys plus the automorphism keys of the S-box.
func (s *bgvScheme) newTranscipherKeys() (secretKey, serverKey, error) {
	a, err := s.newAES()
	if err != nil {
		return nil, nil, err
	}
	kg := bgv.NewKeyGenerator(s.pr, bgv.NewSampler())
	sk := kg.GenSecretKey()
	client, err := newBGVSecret(s, sk)
	if err != nil {
		return nil, nil, err
	}
	keys := bgv.NewEvaluationKeySet(kg.GenRelinKey(sk))
	if err := kg.AddAutoKeys(sk, keys, a.GaloisElements()); err != nil {
		return nil, nil, err
	}
	return client, &bgvServer{s: s, keys: keys}, nil
}

// encryptAESKey encrypts byte i of the key into every slot of ciphertext
// i at the top level, or with p at the lowest level whose transciphered
// records reach p's input level.
func (k *bgvSecret) encryptAESKey(key [16]byte, p *Program) ([]backend.Ciphertext, error) {
	a, err := bgvaes.New(k.s.pr, k.enc)
	if err != nil {
		return nil, err
	}
	level := k.s.pr.MaxLevel()
	if p != nil {
		if level, err = aesKeyLevel(a, k.s.pr, p); err != nil {
			return nil, err
		}
	}
	pts, err := a.EncodeKey(key)
	if err != nil {
		return nil, err
	}
	en := bgv.NewSymmetricEncryptor(k.s.pr, k.sk, bgv.NewSampler())
	out := make([]backend.Ciphertext, len(pts))
	for i, pt := range pts {
		if out[i], err = en.EncryptAtLevel(pt, level); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// aesKeyLevel is the lowest key level from which transciphering leaves
// the records one level above p's input level (transciphered bits carry
// more noise than the fresh encryptions LevelForCircuit assumes, and their
// level is estimated on representative data), else the top level if that
// reaches p's input level at all; Eval checks the actual states.
func aesKeyLevel(a *bgvaes.AES, pr *bgv.Params, p *Program) (int, error) {
	need, err := p.level.get(func() (int, error) { return pr.LevelForCircuit(p.circuit) })
	if err != nil {
		return 0, err
	}
	for t := need; t <= pr.MaxLevel(); t++ {
		if b, err := a.TranscipherLevel(t, true); err == nil && b.OutputLevel >= need+1 {
			return t, nil
		}
	}
	b, err := a.TranscipherLevel(pr.MaxLevel(), true)
	if err != nil {
		return 0, fmt.Errorf("%s cannot run after transciphering on %s: %w", p.originName(), pr.Name(), err)
	}
	if b.OutputLevel < need {
		return 0, fmt.Errorf("%s needs its inputs at level %d of %s, but transciphering from the top level leaves the records at level %d: "+
			"the circuit is too deep to run after transciphering on this set (try -style depth)", p.originName(), need, pr.Name(), b.OutputLevel)
	}
	return pr.MaxLevel(), nil
}

// aesKeyCts checks and converts an encrypted AES key's ciphertexts.
func aesKeyCts(key []backend.Ciphertext) ([16]*bgv.Ciphertext, error) {
	var out [16]*bgv.Ciphertext
	if len(key) != len(out) {
		return out, fmt.Errorf("an encrypted AES key holds %d ciphertexts, want %d", len(key), len(out))
	}
	cts, err := concreteCiphertexts[*bgv.Ciphertext](key, "internal error: AES key ciphertext", "BGV")
	copy(out[:], cts)
	return out, err
}

// missingAutoKeys returns an error unless the keys hold every
// automorphism key of the S-box.
func (k *bgvServer) missingAutoKeys(a *bgvaes.AES) error {
	for _, g := range a.GaloisElements() {
		if _, ok := k.keys.AutoKey(g); !ok {
			return fmt.Errorf("the evaluation key has no transciphering keys (the Frobenius automorphism keys of the AES S-box); " +
				"generate the keys with hcc keygen --transcipher (Go: GenerateKeysWith with KeyOptions{Transcipher: true})")
		}
	}
	return nil
}

// transcipherCheck compares the level transciphering leaves (by the
// noise model, from the key's level) with the level p's inputs need.
func (k *bgvServer) transcipherCheck(p *Program, key []backend.Ciphertext) error {
	if err := k.s.canTranscipher(); err != nil {
		return err
	}
	kc, err := aesKeyCts(key)
	if err != nil {
		return err
	}
	a, err := k.s.newAES()
	if err != nil {
		return err
	}
	if err := k.missingAutoKeys(a); err != nil {
		return err
	}
	lvl := kc[0].Level()
	for _, ct := range kc {
		lvl = min(lvl, ct.Level())
	}
	b, err := a.TranscipherLevel(lvl, true)
	if err != nil {
		return fmt.Errorf("transciphering with the AES key at level %d: %w", lvl, err)
	}
	need, err := p.level.get(func() (int, error) { return k.s.pr.LevelForCircuit(p.circuit) })
	if err != nil {
		return err
	}
	if b.OutputLevel < need {
		return fmt.Errorf("%s needs its inputs at level %d of %s, but transciphering leaves the records at level %d "+
			"(AES takes %d levels from the key's %d): the circuit is too deep to run after transciphering on this set (try -style depth)",
			p.originName(), need, k.s.pr.Name(), b.OutputLevel, lvl-b.OutputLevel, lvl)
	}
	return nil
}

// transcipherer prepares AES once for a Transcipher call and returns
// the function that runs one evaluation (at most Slots records).
func (k *bgvServer) transcipherer(_ context.Context, _ *ServerKey, key []backend.Ciphertext, threads int) (func(ctr [16]byte, msg []byte) ([]backend.Ciphertext, error), error) {
	kc, err := aesKeyCts(key)
	if err != nil {
		return nil, err
	}
	a, err := k.s.newAES()
	if err != nil {
		return nil, err
	}
	if threads == 0 {
		threads = goruntime.GOMAXPROCS(0)
	}
	ev, err := a.NewEvaluator(k.evaluatorOnce(), threads)
	if err != nil {
		return nil, err
	}
	return func(ctr [16]byte, msg []byte) ([]backend.Ciphertext, error) {
		batches, err := ev.TranscipherCTR(kc, ctr, msg, true)
		if err != nil {
			return nil, err
		}
		if len(batches) != 1 {
			return nil, fmt.Errorf("internal error: %d AES evaluations for %d bytes, want 1", len(batches), len(msg))
		}
		return asCiphertexts(batches[0].Bits), nil
	}, nil
}

// levels: the lowest level among the records' bits and p's input level.
func (k *bgvServer) levels(p *Program, cts []backend.Ciphertext) (level, need int) {
	level = k.s.pr.MaxLevel()
	for _, ct := range cts {
		if x, ok := ct.(*bgv.Ciphertext); ok {
			level = min(level, x.Level())
		}
	}
	need, err := p.level.get(func() (int, error) { return k.s.pr.LevelForCircuit(p.circuit) })
	if err != nil {
		need = -1
	}
	return level, need
}
