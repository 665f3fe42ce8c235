package hcc

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
)

// ClientKey is the secret side of a key pair: it encrypts inputs and
// decrypts outputs. It never leaves the client. Safe for concurrent use.
type ClientKey struct {
	keyInfo
	sk secretKey
}

// ServerKey holds the evaluation keys only (FHEW: bootstrapping and key
// switching keys; BGV: the relinearization key): what a server needs to
// run Eval, and nothing that decrypts. Safe for concurrent use.
//
// A ServerKey does not keep its encoding (on STD128_T_CMUX 96 MB beside
// the 252 MB decoded key): MarshalBinary re-encodes the key, which the
// engines' encodings make byte-identical (they are canonical: a decoder
// accepts one encoding per key), and checks that against the key id. A
// fresh key keeps the encoding its id was computed from until its first
// MarshalBinary only (key generation writes the key at once; encoding it
// again there would add 96 MB to hcc keygen's peak).
type ServerKey struct {
	keyInfo
	ek    serverKey
	fresh atomic.Pointer[[]byte] // a new key's encoding, until MarshalBinary takes it
}

// keyInfo is what both halves of a key pair know about it.
type keyInfo struct {
	engine Engine
	scheme scheme
	id     KeyID
	origin string // the file path given, if read from a file (messages)
}

func (k *keyInfo) name() string {
	if k.origin == "" {
		return "the key"
	}
	return k.origin
}

// Engine is the key's engine name.
func (k *keyInfo) Engine() string { return k.engine.Name() }

// Params is the key's parameter-set name.
func (k *keyInfo) Params() string { return k.scheme.name() }

// KeyID identifies the key pair (the same for both halves).
func (k *keyInfo) KeyID() KeyID { return k.id }

// SecurityWarning is a one-line warning when the key's set is below
// hcc's 128-bit target (a paper-reproduction set), else "".
func (k *keyInfo) SecurityWarning() string { return k.scheme.warning() }

// Insecure reports whether the key's set is an insecure (Toy) one.
func (k *keyInfo) Insecure() bool { return k.scheme.insecure() }

// Slots is the number of instances one ciphertext under this key carries.
func (k *keyInfo) Slots() int { return k.scheme.slots() }

// matches reports whether the key's set is the program's.
func (k *keyInfo) matches(p *Program) error {
	if k.engine.Name() != p.target.Engine || k.scheme.name() != p.target.Params {
		return fmt.Errorf("%s is compiled for %s/%s, %s is %s/%s: make keys for the program (GenerateKeys; hcc keygen --for PROGRAM)",
			p.originName(), p.target.Engine, p.target.Params, k.name(), k.engine.Name(), k.scheme.name())
	}
	return nil
}

// GenerateKeys draws a fresh key pair for the program's engine and
// parameter set. An insecure (Toy) set needs the program to have been
// compiled (or its file loaded by Compile) with Target.Insecure: a program
// file recording a Toy set does not by itself allow insecure keys.
func GenerateKeys(p *Program) (*ClientKey, *ServerKey, error) {
	if err := p.checkInsecure("generate keys"); err != nil {
		return nil, nil, err
	}
	return newKeys(p.engine, p.scheme)
}

// GenerateKeysFor draws a fresh key pair for a target without a program:
// its engine, and its Params or the engine's DefaultParams (BGV: M65537,
// the deepest secure set, since no circuit says what depth it needs).
// Toy sets need t.Insecure.
func GenerateKeysFor(t Target) (*ClientKey, *ServerKey, error) {
	return GenerateKeysForWith(t, KeyOptions{})
}

func newKeys(e Engine, s scheme) (*ClientKey, *ServerKey, error) {
	sk, ek, err := s.newKeys()
	if err != nil {
		return nil, nil, err
	}
	return wrapKeys(e, s, sk, ek)
}

// wrapKeys wraps a fresh engine key pair: the key id is the digest of the
// encoded server key, which both halves record.
func wrapKeys(e Engine, s scheme, sk secretKey, ek serverKey) (*ClientKey, *ServerKey, error) {
	enc, err := ek.marshal()
	if err != nil {
		return nil, nil, err
	}
	info := keyInfo{engine: e, scheme: s, id: keyIDOf(enc)}
	server := &ServerKey{keyInfo: info, ek: ek}
	server.fresh.Store(&enc)
	return &ClientKey{keyInfo: info, sk: sk}, server, nil
}

// MarshalBinary encodes the secret key as a key file (versioned,
// checksummed, bound to its engine, set and key id).
func (k *ClientKey) MarshalBinary() ([]byte, error) {
	body, err := k.sk.marshal()
	if err != nil {
		return nil, err
	}
	return marshalKey(fileHeader{kind: kindSecretKey, engine: k.engine.Name(), params: k.scheme.name(), key: k.id}, body), nil
}

// MarshalBinary encodes the server key as a key file.
func (k *ServerKey) MarshalBinary() ([]byte, error) {
	if p := k.fresh.Swap(nil); p != nil {
		return k.marshal(*p), nil
	}
	body, err := k.encode()
	if err != nil {
		return nil, err
	}
	return k.marshal(body), nil
}

func (k *ServerKey) marshal(body []byte) []byte {
	return marshalKey(fileHeader{kind: kindEvalKey, engine: k.engine.Name(), params: k.scheme.name(), key: k.id}, body)
}

// encode re-encodes the engine key. The key id hashes the encoding the key
// was made or read with; a re-encoding that hashes differently (an engine
// whose encoding is not canonical) is an error rather than a key file whose
// id does not match its content.
func (k *ServerKey) encode() ([]byte, error) {
	body, err := k.ek.marshal()
	if err != nil {
		return nil, err
	}
	if keyIDOf(body) != k.id {
		return nil, fmt.Errorf("internal error: %s re-encodes differently from the encoding its key id %v hashes (%s/%s)", k.name(), k.id, k.engine.Name(), k.scheme.name())
	}
	return body, nil
}

func marshalKey(h fileHeader, body []byte) []byte {
	buf := h.append(make([]byte, 0, len(body)+128), keyMagic)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(body)))
	buf = append(buf, body...)
	return seal(buf)
}

// UnmarshalClientKey decodes MarshalBinary's encoding of a secret key.
// Damaged, truncated or foreign data is an error, never a different key.
// A key of an insecure set is accepted: that choice was made when the key
// was generated.
func UnmarshalClientKey(data []byte) (*ClientKey, error) {
	return decodeClientKey("secret key data", data)
}

// UnmarshalServerKey decodes MarshalBinary's encoding of a server key.
func UnmarshalServerKey(data []byte) (*ServerKey, error) {
	return decodeServerKey("server key data", data)
}

// KeyInfo is what an evaluation key file's header says about its key:
// engine, parameter set and key id (InspectServerKey).
type KeyInfo struct {
	keyInfo
}

// InspectServerKey reads a server key file's header without decoding the
// key: what a client that only passes the key on (hcc submit uploads it to
// the cluster, whose workers decode it) needs to know, at the cost of
// hashing the data (checksum and key id) instead of decoding 250 MB of key
// on STD128_T_CMUX. It checks what UnmarshalServerKey checks first: the
// frame and its checksum, the kind (an evaluation key), a known engine and
// parameter set, and that the key id is the hash of the key material. It
// does not check the engine's encoding of the key itself (UnmarshalServerKey
// refuses a key that InspectServerKey accepts only if the file was made to
// pass these checks with a body that is not a key).
func InspectServerKey(data []byte) (*KeyInfo, error) {
	const name = "server key data"
	h, e, s, body, err := readKeyBody(name, data, kindEvalKey)
	if err != nil {
		return nil, err
	}
	if keyIDOf(body) != h.key {
		return nil, fmt.Errorf("%s: key id %v does not match its key material", name, h.key)
	}
	return &KeyInfo{keyInfo{engine: e, scheme: s, id: h.key}}, nil
}

// readKeyBody checks a key file's frame and returns its header and body.
func readKeyBody(name string, data []byte, want fileKind) (fileHeader, Engine, scheme, []byte, error) {
	h, r, err := openFile(name, data, keyMagic, "an hcc key file")
	if err != nil {
		return h, nil, nil, nil, err
	}
	if h.kind != want {
		return h, nil, nil, nil, fmt.Errorf("%s holds %v, not %v", name, h.kind, want)
	}
	n := r.u64()
	body := r.take(int(min(n, uint64(len(r.buf)+1))))
	r.end()
	if r.err != nil {
		return h, nil, nil, nil, fmt.Errorf("%s: malformed key file: %w", name, r.err)
	}
	e, err := LookupEngine(h.engine)
	if err != nil {
		return h, nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := e.scheme(h.params, true)
	if err != nil {
		return h, nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return h, e, s, body, nil
}

func decodeClientKey(name string, data []byte) (*ClientKey, error) {
	h, e, s, body, err := readKeyBody(name, data, kindSecretKey)
	if err != nil {
		return nil, err
	}
	sk, err := s.readSecretKey(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &ClientKey{keyInfo: keyInfo{engine: e, scheme: s, id: h.key, origin: fileOrigin(name)}, sk: sk}, nil
}

func decodeServerKey(name string, data []byte) (*ServerKey, error) {
	h, e, s, body, err := readKeyBody(name, data, kindEvalKey)
	if err != nil {
		return nil, err
	}
	if keyIDOf(body) != h.key {
		return nil, fmt.Errorf("%s: key id %v does not match its key material", name, h.key)
	}
	ek, err := s.readServerKey(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// body (a slice of data) is not kept: the decoded key holds copies.
	return &ServerKey{keyInfo: keyInfo{engine: e, scheme: s, id: h.key, origin: fileOrigin(name)}, ek: ek}, nil
}

// fileOrigin is name when it is a path (not a description of bytes).
func fileOrigin(name string) string {
	if name == "secret key data" || name == "server key data" {
		return ""
	}
	return name
}
