package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// toyEngine is a deterministic stand-in for the FHE library, for transport
// tests only: a "ciphertext" is a checksummed list of uint64 values bound to a
// key and a program, and evaluation computes v*mul + key (mod 2^64), taking
// delay per instance so that tests can kill a worker mid-task.
type toyEngine struct {
	// failValue makes Eval fail (transiently) on an instance with this value.
	failValue uint64
}

type toyKey struct {
	id  string
	add uint64
}

func (k toyKey) ID() string { return k.id }
func (k toyKey) Slots() int { return 1 }

type toyProgram struct {
	id    string
	mul   uint64
	delay time.Duration
}

func (p toyProgram) ID() string      { return p.id }
func (p toyProgram) Circuit() string { return p.id }

func toyID(data []byte) string { s := sha256.Sum256(data); return hex.EncodeToString(s[:8]) }

func toyKeyFile(add uint64) []byte {
	return binary.LittleEndian.AppendUint64([]byte("TOYEVAL "), add)
}

func toySecretFile() []byte { return []byte("TOYSECRET....") }

func toyProgramFile(mul uint64, delay time.Duration) []byte {
	b := binary.LittleEndian.AppendUint64([]byte("TOYPROG "), mul)
	return binary.LittleEndian.AppendUint64(b, uint64(delay))
}

// toyCT encodes values for key and program: magic, ids, count, values, SHA-256.
func toyCT(key, prog string, vals []uint64) []byte {
	b := []byte("TOYCT   ")
	b = append(b, key...)
	b = append(b, prog...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	s := sha256.Sum256(b)
	return append(b, s[:]...)
}

func parseToyCT(ct []byte) (key, prog string, vals []uint64, err error) {
	if len(ct) < 8+32+4+32 || !bytes.HasPrefix(ct, []byte("TOYCT   ")) {
		return "", "", nil, errors.New("not a toy ciphertext")
	}
	body, sum := ct[:len(ct)-32], ct[len(ct)-32:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return "", "", nil, errors.New("checksum mismatch (damaged ciphertext)")
	}
	key, prog = string(body[8:24]), string(body[24:40])
	n := int(binary.LittleEndian.Uint32(body[40:]))
	if len(body) != 44+8*n {
		return "", "", nil, errors.New("truncated ciphertext")
	}
	for i := range n {
		vals = append(vals, binary.LittleEndian.Uint64(body[44+8*i:]))
	}
	return key, prog, vals, nil
}

func (toyEngine) ParseKey(data []byte) (EvalKey, error) {
	if bytes.HasPrefix(data, []byte("TOYSECRET")) {
		return nil, errors.New("this is a secret key: give the evaluation key")
	}
	if len(data) != 16 || !bytes.HasPrefix(data, []byte("TOYEVAL ")) {
		return nil, errors.New("not a toy evaluation key")
	}
	return toyKey{toyID(data), binary.LittleEndian.Uint64(data[8:])}, nil
}

func (toyEngine) ParseProgram(data []byte) (Program, error) {
	if len(data) != 24 || !bytes.HasPrefix(data, []byte("TOYPROG ")) {
		return nil, errors.New("not a toy program")
	}
	return toyProgram{toyID(data), binary.LittleEndian.Uint64(data[8:]), time.Duration(binary.LittleEndian.Uint64(data[16:]))}, nil
}

func (toyEngine) Inspect(ct []byte) (Batch, error) {
	k, p, v, err := parseToyCT(ct)
	if err != nil {
		return Batch{}, err
	}
	return Batch{Instances: len(v), KeyID: k, Circuit: p}, nil
}

func (toyEngine) Split(ct []byte, per int) ([][]byte, []int, error) {
	k, p, v, err := parseToyCT(ct)
	if err != nil {
		return nil, nil, err
	}
	var parts [][]byte
	var sizes []int
	for i := 0; i < len(v); i += per {
		part := v[i:min(i+per, len(v))]
		parts = append(parts, toyCT(k, p, part))
		sizes = append(sizes, len(part))
	}
	return parts, sizes, nil
}

func (toyEngine) Join(parts [][]byte) ([]byte, error) {
	var key, prog string
	var all []uint64
	for i, part := range parts {
		k, p, v, err := parseToyCT(part)
		if err != nil {
			return nil, fmt.Errorf("part %d: %v", i, err)
		}
		if i > 0 && (k != key || p != prog) {
			return nil, fmt.Errorf("part %d: another key or program", i)
		}
		key, prog = k, p
		all = append(all, v...)
	}
	return toyCT(key, prog, all), nil
}

func (e toyEngine) Eval(ctx context.Context, p Program, k EvalKey, in []byte, threads int) ([]byte, error) {
	key, prog, vals, err := parseToyCT(in)
	if err != nil {
		return nil, Permanent(err)
	}
	if key != k.ID() {
		return nil, Permanent(fmt.Errorf("ciphertext is for key %s, not %s", key, k.ID()))
	}
	if prog != p.ID() {
		return nil, Permanent(fmt.Errorf("ciphertext is for program %s, not %s", prog, p.ID()))
	}
	tp, tk := p.(toyProgram), k.(toyKey)
	if os.Getenv("HCC_TOY_ANNOUNCE") != "" {
		fmt.Println("eval start")
	}
	out := make([]uint64, len(vals))
	for i, v := range vals {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(tp.delay):
		}
		if e.failValue != 0 && v == e.failValue {
			return nil, errors.New("toy transient failure")
		}
		out[i] = v*tp.mul + tk.add
	}
	return toyCT(key, prog, out), nil
}

// toyJob is a batch of n instances with its key, program and expected output.
type toyJob struct {
	key, prog, in []byte
	want          []uint64
}

func newToyJob(n int, delay time.Duration) toyJob {
	const add, mul = 1000, 3
	key, prog := toyKeyFile(add), toyProgramFile(mul, delay)
	vals := make([]uint64, n)
	want := make([]uint64, n)
	for i := range vals {
		vals[i] = uint64(i*7 + 1)
		want[i] = vals[i]*mul + add
	}
	return toyJob{key, prog, toyCT(toyID(key), toyID(prog), vals), want}
}

// check decodes out and compares it with the expected values.
func (j toyJob) check(out []byte) error {
	_, _, got, err := parseToyCT(out)
	if err != nil {
		return err
	}
	if len(got) != len(j.want) {
		return fmt.Errorf("got %d instances, want %d", len(got), len(j.want))
	}
	for i := range got {
		if got[i] != j.want[i] {
			return fmt.Errorf("instance %d: got %d, want %d", i, got[i], j.want[i])
		}
	}
	return nil
}
