package stdlib

import (
	"testing"

	"github.com/hcc-fhe/hcc/ir"
)

// gfMul multiplies in GF(2^8) modulo the AES polynomial x^8+x^4+x^3+x+1.
func gfMul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
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

// aesSBoxTable computes the FIPS-197 S-box from its definition (section
// 5.1.1): the multiplicative inverse in GF(2^8) (0 maps to 0), then the
// affine map b_i ^ b_{i+4} ^ b_{i+5} ^ b_{i+6} ^ b_{i+7} ^ c_i, c = 0x63.
func aesSBoxTable() [256]byte {
	var t [256]byte
	for x := 0; x < 256; x++ {
		var inv byte
		for y := 1; y < 256 && x != 0; y++ {
			if gfMul(byte(x), byte(y)) == 1 {
				inv = byte(y)
				break
			}
		}
		var s byte
		for i := 0; i < 8; i++ {
			bit := (inv>>i ^ inv>>((i+4)%8) ^ inv>>((i+5)%8) ^ inv>>((i+6)%8) ^ inv>>((i+7)%8) ^ 0x63>>i) & 1
			s |= bit << i
		}
		t[x] = s
	}
	return t
}

func TestAESSBoxTableSpotChecks(t *testing.T) {
	// A few entries from FIPS-197 Figure 7, so the reference itself is pinned.
	tab := aesSBoxTable()
	for in, want := range map[byte]byte{0x00: 0x63, 0x01: 0x7c, 0x53: 0xed, 0xff: 0x16, 0x10: 0xca} {
		if tab[in] != want {
			t.Fatalf("reference S-box[%#02x] = %#02x, want %#02x", in, tab[in], want)
		}
	}
}

func TestSBoxAll256(t *testing.T) {
	for _, tc := range []struct {
		name                string
		gen                 func(*ir.Builder, []ir.NodeID) []ir.NodeID
		gates, ands, depthW int
	}{
		{"SBox", SBox, 115, 32, 6},
		{"SBoxLowDepth", SBoxLowDepth, 128, 34, 4},
	} {
		b := ir.NewBuilder("sbox")
		x := b.Input("x", 8, false)
		b.Output("y", 8, false, tc.gen(b, x))
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		tab := aesSBoxTable()
		vecs := allVectors([]int{8})
		outs := evalVectors(c, vecs)
		for i, v := range vecs {
			if byte(outs[i][0]) != tab[v[0]] {
				t.Errorf("%s(%#02x) = %#02x, want %#02x", tc.name, v[0], outs[i][0], tab[v[0]])
			}
		}
		depth, gates := andDepth(c)
		ands := 0
		for _, nd := range c.Nodes {
			if nd.Op == ir.OpAnd {
				ands++
			}
		}
		t.Logf("%s: %d gates, %d AND, AND-depth %d", tc.name, gates, ands, depth)
		if ands != tc.ands || gates != tc.gates || depth != tc.depthW {
			t.Errorf("%s: %d gates, %d AND, AND-depth %d; want %d, %d, %d", tc.name, gates, ands, depth, tc.gates, tc.ands, tc.depthW)
		}
	}
}
