package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/hcc-fhe/hcc"
)

// HCC is the Engine over the hcc library: FHEW and BGV, its key, program and
// ciphertext files.
var HCC Engine = hccEngine{}

// hccEngine reads key headers for Submit (hcc submit relies on it).
var _ KeyInspector = hccEngine{}

type hccEngine struct{}

type hccKey struct {
	k  *hcc.ServerKey
	id string
}

func (k hccKey) ID() string     { return k.id }
func (k hccKey) Slots() int     { return k.k.Slots() }
func keyID(id hcc.KeyID) string { return hex.EncodeToString(id[:]) }

type hccProgram struct {
	p           *hcc.Program
	id, circuit string
}

func (p hccProgram) ID() string      { return p.id }
func (p hccProgram) Circuit() string { return p.circuit }

// ParseKey parses a server key file and refuses a client (secret) key file.
func (hccEngine) ParseKey(data []byte) (EvalKey, error) {
	k, err := hcc.UnmarshalServerKey(data)
	if err != nil {
		return nil, keyError(data, err)
	}
	return hccKey{k, keyID(k.KeyID())}, nil
}

// InspectKey reads a server key file's header (hcc.InspectServerKey): the
// key's id and slots, without decoding the key. It refuses a client
// (secret) key file like ParseKey.
func (hccEngine) InspectKey(data []byte) (EvalKey, error) {
	info, err := hcc.InspectServerKey(data)
	if err != nil {
		return nil, keyError(data, err)
	}
	return hccKeyHeader{info.Slots(), keyID(info.KeyID())}, nil
}

// keyError is err, or for a secret key file a message saying what the
// cluster takes instead.
func keyError(data []byte, err error) error {
	if _, cerr := hcc.UnmarshalClientKey(data); cerr == nil {
		return errors.New("this is a secret (client) key: the cluster takes the evaluation key (eval.key); the secret key never leaves the client")
	}
	return err
}

// hccKeyHeader is what InspectKey read: enough to submit, not to evaluate.
type hccKeyHeader struct {
	slots int
	id    string
}

func (k hccKeyHeader) ID() string { return k.id }
func (k hccKeyHeader) Slots() int { return k.slots }

// ParseProgram parses a compiled program file (.hcp).
func (hccEngine) ParseProgram(data []byte) (Program, error) {
	p, err := hcc.UnmarshalProgram(data)
	if err != nil {
		return nil, err
	}
	h, c := p.Hash(), p.CircuitHash()
	return hccProgram{p, hex.EncodeToString(h[:]), hex.EncodeToString(c[:])}, nil
}

// Inspect reads a ciphertext file's header and checks all of it.
func (hccEngine) Inspect(ct []byte) (Batch, error) {
	c, err := hcc.UnmarshalCiphertexts(ct)
	if err != nil {
		return Batch{}, err
	}
	h := c.CircuitHash()
	return Batch{Instances: c.Instances(), KeyID: keyID(c.KeyID()), Circuit: hex.EncodeToString(h[:]), InputRGSW: c.HasInputRGSW()}, nil
}

// Split is Ciphertexts.Split on the file (BGV: between packs only).
func (hccEngine) Split(ct []byte, perPart int) ([][]byte, []int, error) {
	c, err := hcc.UnmarshalCiphertexts(ct)
	if err != nil {
		return nil, nil, err
	}
	parts, err := c.Split(perPart)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]byte, len(parts))
	sizes := make([]int, len(parts))
	for i, p := range parts {
		if out[i], err = p.MarshalBinary(); err != nil {
			return nil, nil, err
		}
		sizes[i] = p.Instances()
	}
	return out, sizes, nil
}

// Join is JoinCiphertexts on the files.
func (hccEngine) Join(parts [][]byte) ([]byte, error) {
	cs := make([]*hcc.Ciphertexts, len(parts))
	for i, p := range parts {
		c, err := hcc.UnmarshalCiphertexts(p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		cs[i] = c
	}
	c, err := hcc.JoinCiphertexts(cs)
	if err != nil {
		return nil, err
	}
	return c.MarshalBinary()
}

// Eval runs hcc.Eval. Its failures are permanent: evaluation is
// deterministic, so a ciphertext it refuses (damaged, another key's, another
// circuit's) is refused again on any worker; only cancellation is not.
func (hccEngine) Eval(ctx context.Context, p Program, k EvalKey, in []byte, threads int) ([]byte, error) {
	hp, ok1 := p.(hccProgram)
	hk, ok2 := k.(hccKey)
	if !ok1 || !ok2 {
		return nil, Permanent(errors.New("program or key not parsed by the hcc engine"))
	}
	c, err := hcc.UnmarshalCiphertexts(in)
	if err != nil {
		return nil, Permanent(fmt.Errorf("task input: %w", err))
	}
	if c.KeyID() != hk.k.KeyID() {
		return nil, Permanent(fmt.Errorf("task input is encrypted under key %s, the job's evaluation key is %s", c.KeyID(), hk.k.KeyID()))
	}
	out, _, err := hcc.Eval(ctx, hp.p, hk.k, c, hcc.EvalOptions{Threads: threads, ReleaseInputs: true})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Permanent(err)
	}
	return out.MarshalBinary()
}
