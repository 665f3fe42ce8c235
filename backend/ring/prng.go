package ring

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
)

// PRNG is a deterministic cryptographic pseudo-random generator: the AES-256
// keystream in counter mode under a 32-byte seed (NIST SP 800-38A CTR with a
// zero initial counter block). Both schemes draw every secret and every
// seed-expanded public value (the uniform parts of keys that files store as a
// seed) from it.
//
// Why AES-256-CTR: the generator must keep a full security margin (the
// ChaCha8 of math/rand/v2, used before, has 8 of ChaCha's 20 rounds), and with
// AES-NI it is at least as fast as ChaCha8 here, so no measurement argues for
// a reduced-round cipher. The output is a fixed function of the seed, so files
// that store seeds depend on it: changing the generator needs a file-format
// version bump (fhew fileVersion 3; bgv key files hold whole keys, no seeds).
//
// A PRNG is not safe for concurrent use: each goroutine owns one.
type PRNG struct {
	stream cipher.Stream
	buf    [prngBuffer]byte
	off    int
}

// prngBuffer is how many keystream bytes one refill produces; large enough
// that the per-refill call overhead vanishes, small enough to stay in L1.
const prngBuffer = 4096

// NewPRNG returns the generator for seed.
func NewPRNG(seed [32]byte) *PRNG {
	block, err := aes.NewCipher(seed[:])
	if err != nil {
		panic("ring: internal error: AES-256 with a 32-byte key: " + err.Error())
	}
	var iv [aes.BlockSize]byte
	r := &PRNG{stream: cipher.NewCTR(block, iv[:])}
	r.off = prngBuffer
	return r
}

// Uint64 returns the next 8 keystream bytes as a little-endian integer.
func (r *PRNG) Uint64() uint64 {
	if r.off+8 > prngBuffer {
		r.refill()
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v
}

// Read fills p with keystream bytes; it never fails.
func (r *PRNG) Read(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if r.off == prngBuffer {
			r.refill()
		}
		c := copy(p, r.buf[r.off:])
		r.off += c
		p = p[c:]
	}
	return n, nil
}

// refill replaces the buffer with the next keystream block (XOR into zeros).
func (r *PRNG) refill() {
	clear(r.buf[:])
	r.stream.XORKeyStream(r.buf[:], r.buf[:])
	r.off = 0
}
