package aes

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hcc-fhe/hcc/internal/testenv"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// knownAnswers are published AES-128 vectors: FIPS-197 Appendix C.1 and
// Appendix B, and NIST SP 800-38A F.1.1 (ECB-AES128.Encrypt, one block at a
// time).
// goDecrypt is the reference inverse: Go's crypto/aes.
func goDecrypt(key, ciphertext [16]byte) [16]byte {
	c, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err)
	}
	var out [16]byte
	c.Decrypt(out[:], ciphertext[:])
	return out
}

var knownAnswers = []struct{ name, key, plaintext, ciphertext string }{
	{"FIPS-197/C.1", "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"},
	{"FIPS-197/B", "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734", "3925841d02dc09fbdc118597196a0b32"},
	{"SP800-38A/F.1.1/1", "2b7e151628aed2a6abf7158809cf4f3c", "6bc1bee22e409f96e93d7e117393172a", "3ad77bb40d7a3660a89ecaf32466ef97"},
	{"SP800-38A/F.1.1/2", "2b7e151628aed2a6abf7158809cf4f3c", "ae2d8a571e03ac9c9eb76fac45af8e51", "f5d3d58503b9699de785895a96fdbaaf"},
	{"SP800-38A/F.1.1/3", "2b7e151628aed2a6abf7158809cf4f3c", "30c81c46a35ce411e5fbc1191a0a52ef", "43b1cd7f598ece23881b00e3ed030688"},
	{"SP800-38A/F.1.1/4", "2b7e151628aed2a6abf7158809cf4f3c", "f69f2445df4f9b17ad2b417be66c3710", "7b0c785e27e8ad3f8223207104725dd4"},
}

func block(t testing.TB, s string) [16]byte {
	t.Helper()
	var b [16]byte
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != 16 {
		t.Fatalf("bad block %q: %v", s, err)
	}
	copy(b[:], raw)
	return b
}

// goEncrypt is the reference: Go's crypto/aes.
func goEncrypt(key, plaintext [16]byte) [16]byte {
	c, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	var out [16]byte
	c.Encrypt(out[:], plaintext[:])
	return out
}

// compileCache holds each compiled variant/style, shared by the tests.
var compileCache sync.Map // "variant/style" -> *compiled

type compiled struct {
	once sync.Once
	c    *ir.Circuit
	err  error
}

// circuit compiles (once per test binary) a variant in a lowering style.
func circuit(t testing.TB, v Variant, style stdlib.Style) *ir.Circuit {
	t.Helper()
	e, _ := compileCache.LoadOrStore(fmt.Sprint(v, "/", style), &compiled{})
	cc := e.(*compiled)
	cc.once.Do(func() { cc.c, cc.err = CompileStyle(v, style) })
	if cc.err != nil {
		t.Fatal(cc.err)
	}
	return cc.c
}

var variants = []Variant{Small, LowDepth}
var styles = []stdlib.Style{stdlib.SizeOptimized, stdlib.DepthOptimized}

func TestKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		key, pt, want := block(t, ka.key), block(t, ka.plaintext), block(t, ka.ciphertext)
		if got := goEncrypt(key, pt); got != want {
			t.Fatalf("%s: the vector disagrees with crypto/aes (%x): typo in the test", ka.name, got)
		}
	}
	for _, v := range variants {
		for _, style := range styles {
			t.Run(fmt.Sprint(v, "/", style), func(t *testing.T) {
				c := circuit(t, v, style)
				for _, ka := range knownAnswers {
					out, err := c.Eval(Inputs(block(t, ka.key), block(t, ka.plaintext)))
					if err != nil {
						t.Fatal(err)
					}
					got, err := Ciphertext(out)
					if err != nil {
						t.Fatal(err)
					}
					if want := block(t, ka.ciphertext); got != want {
						t.Errorf("%s: got %x, want %x", ka.name, got, want)
					}
				}
			})
		}
	}
}

// packLanes lays out up to 64 key/plaintext pairs for ir.EvalBits: one word
// per input bit, key bits then plaintext bits, bit i of the big-endian
// integer (byte 15 - i/8, bit i%8) in word i, pair j in bit j of each word.
// This is the layout of both the HDL circuits and aes_128.txt.
func packLanes(keys, pts [][16]byte) []uint64 {
	words := make([]uint64, 256)
	for j := range keys {
		for i := range 128 {
			words[i] |= uint64(keys[j][15-i/8]>>(i%8)&1) << j
			words[128+i] |= uint64(pts[j][15-i/8]>>(i%8)&1) << j
		}
	}
	return words
}

// lane reads pair j's 128-bit output block from EvalBits' output words.
func lane(words []uint64, j int) [16]byte {
	var b [16]byte
	for i := range 128 {
		b[15-i/8] |= byte(words[i]>>j&1) << (i % 8)
	}
	return b
}

// randomPairs returns n random key/plaintext pairs, with the all-zero and
// all-one blocks among them.
func randomPairs(seed uint64, n int) (keys, pts [][16]byte) {
	rng := rand.New(rand.NewPCG(seed, 0xae5))
	keys, pts = make([][16]byte, n), make([][16]byte, n)
	for j := range n {
		for i := range 16 {
			keys[j][i], pts[j][i] = byte(rng.Uint32()), byte(rng.Uint32())
		}
	}
	keys[0], pts[0] = [16]byte{}, [16]byte{}
	for i := range 16 {
		keys[1][i], pts[1][i] = 0xff, 0xff
	}
	return keys, pts
}

// checkRandom evaluates c 64 pairs at a time on 256 random key/block pairs
// and compares every output block with ref.
func checkRandom(t *testing.T, c *ir.Circuit, seed uint64, ref func(key, in [16]byte) [16]byte) {
	t.Helper()
	keys, ins := randomPairs(seed, 256)
	fails := 0
	for start := 0; start < len(keys); start += 64 {
		out := c.EvalBits(packLanes(keys[start:start+64], ins[start:start+64]))
		for j := range 64 {
			k, x := keys[start+j], ins[start+j]
			if got, want := lane(out, j), ref(k, x); got != want {
				if fails++; fails <= 3 {
					t.Errorf("key %x input %x: got %x, want %x", k, x, got, want)
				}
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d blocks wrong", fails, len(keys))
	}
}

// TestRandom checks both variants in both styles, and the Bristol circuit
// aes_128.txt on the same input words (which also confirms that the two
// circuits share a bit layout), against crypto/aes.
func TestRandom(t *testing.T) {
	for _, v := range variants {
		for _, style := range styles {
			t.Run(fmt.Sprint(v, "/", style), func(t *testing.T) {
				checkRandom(t, circuit(t, v, style), 1, goEncrypt)
			})
		}
	}
	t.Run("aes_128.txt", func(t *testing.T) {
		checkRandom(t, bristolAES(t), 1, goEncrypt)
	})
	// The project's own AES through the Bristol writer and reader: the
	// Bristol path keeps its coverage on a clone without shared/.
	t.Run("aes128.hdl/bristol-round-trip", func(t *testing.T) {
		var buf bytes.Buffer
		if err := ir.WriteBristol(&buf, circuit(t, Small, stdlib.SizeOptimized)); err != nil {
			t.Fatal(err)
		}
		c, err := ir.ReadBristol(&buf, "aes128")
		if err != nil {
			t.Fatal(err)
		}
		checkRandom(t, c, 2, goEncrypt)
	})
}

func bristolAES(t testing.TB) *ir.Circuit {
	t.Helper()
	f, err := os.Open(filepath.Join(testenv.SharedCircuits(t), "aes_128.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ir.ReadBristol(f, "aes_128")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStructure pins what the HDL promises: the interface, 32 (34) AND
// gates for each of the 200 S-boxes and nothing else non-linear (xtime's
// conditional reduction folds to wires, ShiftRows is wiring), the AND-depth
// of 10 S-box layers, and that the lowering style changes nothing.
func TestStructure(t *testing.T) {
	want := map[Variant]struct{ and, andDepth int }{Small: {200 * 32, 10 * 6}, LowDepth: {200 * 34, 10 * 4}}
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			c := circuit(t, v, stdlib.SizeOptimized)
			if c.Name != v.String() || len(c.Inputs) != 2 || len(c.Outputs) != 1 ||
				c.Inputs[0].Name != "key" || c.Inputs[1].Name != "plaintext" || c.Outputs[0].Name != "ciphertext" ||
				c.Inputs[0].TypeString() != "u128" || c.Inputs[1].TypeString() != "u128" || c.Outputs[0].TypeString() != "u128" {
				t.Fatalf("interface %s(%s: %s, %s: %s) -> %s: %s, want %s(key: u128, plaintext: u128) -> ciphertext: u128",
					c.Name, c.Inputs[0].Name, c.Inputs[0].TypeString(), c.Inputs[1].Name, c.Inputs[1].TypeString(),
					c.Outputs[0].Name, c.Outputs[0].TypeString(), v)
			}
			st := c.Stats()
			if and := st.Count[ir.OpAnd]; and != want[v].and {
				t.Errorf("%d AND gates, want %d", and, want[v].and)
			}
			if st.AndDepth != want[v].andDepth {
				t.Errorf("AND-depth %d, want %d", st.AndDepth, want[v].andDepth)
			}
			for op := ir.Op(0); int(op) < len(st.Count); op++ {
				switch op {
				case ir.OpConst0, ir.OpConst1, ir.OpInput, ir.OpNot, ir.OpAnd, ir.OpXor:
				default:
					if st.Count[op] != 0 {
						t.Errorf("%d %v gates, want only AND, XOR and NOT", st.Count[op], op)
					}
				}
			}
			if d := circuit(t, v, stdlib.DepthOptimized).Stats(); d.Count != st.Count || d.AndDepth != st.AndDepth {
				t.Errorf("depth style differs: %v", d)
			}
		})
	}
}

// TestEmbedded compiles from the embedded files with the working directory
// somewhere else, so the relative imports of aes128_lowdepth.hdl and
// aes128_decrypt.hdl cannot have been read from disk; and checks that hcc's usual entry point (lang on the
// files on disk) builds the same circuit.
func TestEmbedded(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		fromDisk, err := lang.CompileFile(filepath.Join(wd, v.File()), lang.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Chdir(t.TempDir())
		c, err := Compile(v)
		if err != nil {
			t.Fatal(err)
		}
		if c.Stats().Count != fromDisk.Stats().Count || len(c.Nodes) != len(fromDisk.Nodes) {
			t.Errorf("%v: embedded and on-disk sources differ: %v vs %v", v, c.Stats(), fromDisk.Stats())
		}
		t.Chdir(wd)
	}
	t.Chdir(t.TempDir())
	if _, err := CompileDecrypt(); err != nil {
		t.Errorf("decryption from the embedded files: %v", err)
	}
	if _, err := Compile(Variant(7)); err == nil {
		t.Error("Compile(Variant(7)) succeeded")
	}
}

func TestBlockValues(t *testing.T) {
	b := block(t, "000102030405060708090a0b0c0d0e0f")
	v := BlockValue(b)
	if v.Text(16) != "102030405060708090a0b0c0d0e0f" {
		t.Errorf("BlockValue = %x, want byte 0 most significant", v)
	}
	back, err := BlockBytes(v)
	if err != nil || back != b {
		t.Errorf("BlockBytes(BlockValue(b)) = %x, %v", back, err)
	}
	if _, err := BlockBytes(new(big.Int).Lsh(big.NewInt(1), 128)); err == nil {
		t.Error("BlockBytes accepted a 129-bit value")
	}
	if _, err := Ciphertext(ir.Values{}); err == nil {
		t.Error("Ciphertext accepted outputs without a ciphertext")
	}
}

// TestDecrypt checks the inverse cipher on the known answers and on 256
// random blocks against crypto/aes, and its gate budget: the same 200
// S-boxes of 32 AND gates, AND-depth 60 for the key schedule plus 60.
func TestDecrypt(t *testing.T) {
	c, err := CompileDecrypt()
	if err != nil {
		t.Fatal(err)
	}
	if c.Inputs[1].Name != "ciphertext" || c.Outputs[0].Name != "plaintext" {
		t.Fatalf("interface: inputs %s, %s, output %s", c.Inputs[0].Name, c.Inputs[1].Name, c.Outputs[0].Name)
	}
	for _, ka := range knownAnswers {
		key, ct := block(t, ka.key), block(t, ka.ciphertext)
		out, err := c.Eval(ir.Values{"key": {BlockValue(key)}, "ciphertext": {BlockValue(ct)}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := BlockBytes(out["plaintext"][0])
		if err != nil {
			t.Fatal(err)
		}
		if want := block(t, ka.plaintext); got != want {
			t.Errorf("%s: decrypted to %x, want %x", ka.name, got, want)
		}
	}
	checkRandom(t, c, 2, goDecrypt)
	st := c.Stats()
	if st.Count[ir.OpAnd] != 200*32 || st.AndDepth != 120 {
		t.Errorf("%d AND gates, AND-depth %d; want 6400, 120", st.Count[ir.OpAnd], st.AndDepth)
	}
}
