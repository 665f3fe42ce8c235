package ring

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"testing"
)

// TestPRNGIsAESCTR checks the generator against crypto/cipher's CTR mode
// directly: the keystream of AES-256 under the seed, zero IV, read as
// little-endian words, across several buffer refills and mixed Read/Uint64.
func TestPRNGIsAESCTR(t *testing.T) {
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(7*i + 1)
	}
	const total = 3*prngBuffer + 40
	want := make([]byte, total)
	block, _ := aes.NewCipher(seed[:])
	cipher.NewCTR(block, make([]byte, 16)).XORKeyStream(want, want)

	r := NewPRNG(seed)
	got := make([]byte, 0, total)
	for len(got) < total {
		if len(got)%3 == 0 && len(got)+13 <= total {
			b := make([]byte, 13)
			r.Read(b)
			got = append(got, b...)
			continue
		}
		if len(got)+8 > total {
			b := make([]byte, total-len(got))
			r.Read(b)
			got = append(got, b...)
			continue
		}
		got = binary.LittleEndian.AppendUint64(got, r.Uint64())
	}
	if !bytes.Equal(got, want) {
		t.Fatal("PRNG output differs from the AES-256-CTR keystream")
	}
}

// TestPRNGSeedsDiffer: different seeds, different streams; the same seed, the same stream.
func TestPRNGSeedsDiffer(t *testing.T) {
	a, b, c := NewPRNG([32]byte{1}), NewPRNG([32]byte{2}), NewPRNG([32]byte{1})
	for i := 0; i < 1000; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != z {
			t.Fatal("same seed gave different streams")
		}
		if x == y && i < 4 {
			t.Fatal("different seeds gave the same word")
		}
	}
}

func TestPRNGAllocs(t *testing.T) {
	r := NewPRNG([32]byte{3})
	if n := testing.AllocsPerRun(100000, func() { r.Uint64() }); n != 0 {
		t.Errorf("Uint64 allocates %v times", n)
	}
}

func BenchmarkPRNG(b *testing.B) {
	r := NewPRNG([32]byte{4})
	b.SetBytes(8)
	b.ReportAllocs()
	for b.Loop() {
		r.Uint64()
	}
}
