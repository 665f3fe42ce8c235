package cluster

import (
	"context"
	"errors"
)

// Engine is what the cluster needs from an FHE library: parse evaluation keys
// and programs, cut a ciphertext set into parts and join them again, and
// evaluate. Every method works on the library's marshalled, checksummed
// file formats, so nothing but bytes crosses the network; HCC is the
// implementation over the hcc package.
type Engine interface {
	// ParseKey parses a marshalled evaluation (server) key, verifying its
	// checksum. It must refuse a secret key.
	ParseKey(data []byte) (EvalKey, error)
	// ParseProgram parses a marshalled compiled program, verifying its checksum.
	ParseProgram(data []byte) (Program, error)
	// Inspect parses a marshalled ciphertext set, verifying its checksum.
	Inspect(ct []byte) (Batch, error)
	// Split cuts a ciphertext set into parts of at most perPart instances (an
	// engine with packed slots may only cut between packs), in order, and
	// says how many instances each part holds.
	Split(ct []byte, perPart int) (parts [][]byte, instances []int, err error)
	// Join is the inverse of Split: the parts' instances in order.
	Join(parts [][]byte) ([]byte, error)
	// Eval evaluates p on the ciphertext set in with threads threads and
	// returns the output set. Errors that retrying cannot fix (a damaged
	// ciphertext, another key's ciphertext) are wrapped with Permanent.
	Eval(ctx context.Context, p Program, k EvalKey, in []byte, threads int) ([]byte, error)
}

// KeyInspector is an Engine that can also read an evaluation key's id and
// slot count from its header, verifying its checksum and refusing a secret
// key like ParseKey, but without decoding the key. Submit uses it when the
// engine has it: the submitter only uploads the key, and decoding it there
// cost hcc submit 350 MB on STD128_T_CMUX; the workers decode it (ParseKey).
type KeyInspector interface {
	InspectKey(data []byte) (EvalKey, error)
}

// EvalKey is a parsed evaluation key.
type EvalKey interface {
	// ID is the key's id, the hash of its content.
	ID() string
	// Slots is the number of instances one ciphertext carries (1 on FHEW,
	// the slot count on BGV): the natural task size, since a task can only
	// hold whole ciphertexts.
	Slots() int
}

// Program is a parsed compiled program.
type Program interface {
	// ID is the program's hash (the compiled form: target and mapping).
	ID() string
	// Circuit identifies the source circuit that ciphertexts record; programs
	// compiled differently from one circuit share it.
	Circuit() string
}

// Batch describes a ciphertext set.
type Batch struct {
	Instances int    // circuit instances in the set
	KeyID     string // the evaluation key it was encrypted for
	Circuit   string // the circuit it is an input or output of (Program.Circuit)
	// InputRGSW says its ciphertexts carry client-side input RGSWs
	// (hcc.EncryptOptions.InputRGSW: about 7x larger, fewer bootstraps).
	InputRGSW bool
}

// permanentError marks an error that a retry cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as one that retrying the task cannot fix: the worker
// terminates the task instead of letting it be redelivered, and the job fails
// with err's message.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
