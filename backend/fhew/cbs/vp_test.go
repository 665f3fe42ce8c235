package cbs

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"
)

// gfMul multiplies in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
func gfMul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 == 1 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// sbox computes the AES S-box: inversion in GF(2^8) (0 -> 0), then the
// affine map b ^ rotl(b,1..4) ^ 0x63 (FIPS-197 Section 5.1.1).
func sbox() [256]byte {
	var s [256]byte
	for x := 0; x < 256; x++ {
		var inv byte
		for y := 1; y < 256 && x != 0; y++ {
			if gfMul(byte(x), byte(y)) == 1 {
				inv = byte(y)
				break
			}
		}
		b := inv
		r := b
		for i := 1; i <= 4; i++ {
			r ^= b<<uint(i) | b>>uint(8-i)
		}
		s[x] = r ^ 0x63
	}
	return s
}

// aes128Encrypt is a plain AES-128 block encryption with the given S-box
// (FIPS-197), used only to check sbox against crypto/aes.
func aes128Encrypt(sb *[256]byte, key, in []byte) []byte {
	var w [44][4]byte
	for i := 0; i < 4; i++ {
		copy(w[i][:], key[4*i:4*i+4])
	}
	rcon := byte(1)
	for i := 4; i < 44; i++ {
		t := w[i-1]
		if i%4 == 0 {
			t = [4]byte{sb[t[1]] ^ rcon, sb[t[2]], sb[t[3]], sb[t[0]]}
			rcon = gfMul(rcon, 2)
		}
		for j := range t {
			w[i][j] = w[i-4][j] ^ t[j]
		}
	}
	var s [16]byte
	copy(s[:], in)
	addKey := func(r int) {
		for c := 0; c < 4; c++ {
			for j := 0; j < 4; j++ {
				s[4*c+j] ^= w[4*r+c][j]
			}
		}
	}
	addKey(0)
	for r := 1; r <= 10; r++ {
		var t [16]byte
		for c := 0; c < 4; c++ { // SubBytes + ShiftRows
			for j := 0; j < 4; j++ {
				t[4*c+j] = sb[s[4*((c+j)%4)+j]]
			}
		}
		if r < 10 { // MixColumns
			for c := 0; c < 4; c++ {
				a := t[4*c : 4*c+4]
				b0 := gfMul(a[0], 2) ^ gfMul(a[1], 3) ^ a[2] ^ a[3]
				b1 := a[0] ^ gfMul(a[1], 2) ^ gfMul(a[2], 3) ^ a[3]
				b2 := a[0] ^ a[1] ^ gfMul(a[2], 2) ^ gfMul(a[3], 3)
				b3 := gfMul(a[0], 3) ^ a[1] ^ a[2] ^ gfMul(a[3], 2)
				a[0], a[1], a[2], a[3] = b0, b1, b2, b3
			}
		}
		s = t
		addKey(r)
	}
	return s[:]
}

func TestSboxAgainstCryptoAES(t *testing.T) {
	sb := sbox()
	key, in := make([]byte, 16), make([]byte, 16)
	for i := 0; i < 8; i++ {
		rand.Read(key)
		rand.Read(in)
		c, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 16)
		c.Encrypt(want, in)
		if got := aes128Encrypt(&sb, key, in); !bytes.Equal(got, want) {
			t.Fatalf("AES with the computed S-box: %x, crypto/aes: %x", got, want)
		}
	}
}

// tablesOf returns the m output tables of f (k inputs) packed as EvalTable
// wants them.
func tablesOf(k, m int, f func(x int) uint64) [][]uint64 {
	words := (1<<uint(k) + 63) / 64
	out := make([][]uint64, m)
	for t := range out {
		out[t] = make([]uint64, words)
		for x := 0; x < 1<<uint(k); x++ {
			if f(x)>>uint(t)&1 == 1 {
				out[t][x/64] |= 1 << (uint(x) % 64)
			}
		}
	}
	return out
}

// evalEncrypted encrypts x's k bits as wide bits, circuit-bootstraps them
// and evaluates the tables; it returns the decrypted outputs as a word.
func evalEncrypted(t *testing.T, k *testKeys, x, nin int, tabs [][]uint64, sc *Scratch, rg []*RGSW, outs []*WideBit) uint64 {
	t.Helper()
	in := NewWideBit(k.p)
	for j := 0; j < nin; j++ {
		if err := k.enc.Encrypt(x>>uint(j)&1 == 1, in); err != nil {
			t.Fatal(err)
		}
		if err := k.ev.CBS(in, rg[j], sc); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.ev.EvalTable(rg[:nin], tabs, outs[:len(tabs)], sc); err != nil {
		t.Fatal(err)
	}
	var got uint64
	for o := range tabs {
		b, err := k.sk.Decrypt(outs[o])
		if err != nil {
			t.Fatal(err)
		}
		if b {
			got |= 1 << uint(o)
		}
	}
	return got
}

func newBuffers(k *testKeys, nin, nout int) ([]*RGSW, []*WideBit) {
	rg := make([]*RGSW, nin)
	for i := range rg {
		rg[i] = k.ev.NewRGSW()
	}
	outs := make([]*WideBit, nout)
	for i := range outs {
		outs[i] = NewWideBit(k.p)
	}
	return rg, outs
}

func TestSboxVerticalPacking(t *testing.T) {
	k := keysFor(t, ToyCBS)
	sb := sbox()
	tabs := tablesOf(8, 8, func(x int) uint64 { return uint64(sb[x]) })
	sc := NewScratch(k.p)
	rg, outs := newBuffers(k, 8, 8)
	for x := 0; x < 256; x++ {
		if got := evalEncrypted(t, k, x, 8, tabs, sc, rg, outs); got != uint64(sb[x]) {
			t.Fatalf("S(%#02x) = %#02x, want %#02x", x, got, sb[x])
		}
	}
}

func TestRandomTables(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	for _, lit := range []ParamsLiteral{ToyCBS, ToyCBS3} {
		k := keysFor(t, lit)
		sc := NewScratch(k.p)
		rg, outs := newBuffers(k, 6, 24)
		for nin := 3; nin <= 6; nin++ {
			// Enough outputs to need two packed polynomials at 6 inputs
			// (N/2^6 = 8 per polynomial at N = 512).
			m := 1 + rng.IntN(3)
			if nin == 6 {
				m = 11
			}
			f := make([]uint64, 1<<uint(nin))
			for x := range f {
				f[x] = rng.Uint64() & (1<<uint(m) - 1)
			}
			tabs := tablesOf(nin, m, func(x int) uint64 { return f[x] })
			for rep := 0; rep < 6; rep++ {
				x := rng.IntN(1 << uint(nin))
				if got := evalEncrypted(t, k, x, nin, tabs, sc, rg, outs); got != f[x] {
					t.Fatalf("%s: %d inputs, %d outputs: T(%d) = %#x, want %#x", lit.Name, nin, m, x, got, f[x])
				}
			}
		}
	}
}

func TestXorThenCBS(t *testing.T) {
	k := keysFor(t, ToyCBS)
	rng := mrand.New(mrand.NewPCG(3, 4))
	sc := NewScratch(k.p)
	out := k.ev.NewRGSW()
	acc, in := NewWideBit(k.p), NewWideBit(k.p)
	for _, terms := range []int{1, 2, 5, 18, 40} {
		for rep := 0; rep < 2; rep++ {
			for j := range acc.A {
				acc.A[j] = 0
			}
			acc.B = 0
			par := 0
			for i := 0; i < terms; i++ {
				b := rng.IntN(2)
				par ^= b
				if err := k.enc.Encrypt(b == 1, in); err != nil {
					t.Fatal(err)
				}
				if err := XorInto(k.p, acc, in); err != nil {
					t.Fatal(err)
				}
			}
			if rep == 1 {
				NotInPlace(k.p, acc)
				par ^= 1
			}
			if err := k.ev.CBS(acc, out, sc); err != nil {
				t.Fatal(err)
			}
			if e := checkRGSW(t, k, out, par); e > float64(k.p.q)/(1<<12) {
				t.Fatalf("XOR of %d terms: row error 2^%.1f", terms, log2(e))
			}
		}
	}
}
