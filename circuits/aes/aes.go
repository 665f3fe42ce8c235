package aes

import (
	"embed"
	"fmt"
	"math/big"

	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/lang"
	"github.com/hcc-fhe/hcc/stdlib"
)

// FS holds the HDL sources: aes128.hdl (the cipher and the circuit aes128),
// and aes128_lowdepth.hdl and aes128_decrypt.hdl, which import it.
//
//go:embed aes128.hdl aes128_lowdepth.hdl aes128_decrypt.hdl
var FS embed.FS

// Variant selects which of the standard library's S-box circuits the
// cipher uses; everything else is the same.
type Variant int

const (
	// Small uses sbox (32 AND, AND-depth 6 per S-box): 6400 AND gates and
	// AND-depth 60 for the block, the fewest gates, for FHEW.
	Small Variant = iota
	// LowDepth uses sbox_lowdepth (34 AND, AND-depth 4): 6800 AND gates but
	// AND-depth 40, for leveled backends (BGV).
	LowDepth
)

// String returns the circuit's name, "aes128" or "aes128_lowdepth".
func (v Variant) String() string {
	switch v {
	case Small:
		return "aes128"
	case LowDepth:
		return "aes128_lowdepth"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// File returns the variant's root source file in FS.
func (v Variant) File() string { return v.String() + ".hdl" }

// Compile builds the circuit of variant v from the embedded sources. The
// lowering style does not matter (AES has no arithmetic for it to lower),
// so it uses lang's default.
func Compile(v Variant) (*ir.Circuit, error) {
	return CompileStyle(v, stdlib.SizeOptimized)
}

// CompileStyle is Compile with an explicit lang lowering style.
func CompileStyle(v Variant, style stdlib.Style) (*ir.Circuit, error) {
	if v != Small && v != LowDepth {
		return nil, fmt.Errorf("aes: unknown variant %v", v)
	}
	return compileFile(v.File(), style)
}

// DecryptFile is the decryption circuit's source file in FS: circuit
// aes128_decrypt(key: u128, ciphertext: u128) -> plaintext: u128, with the
// 32-AND S-box. It derives all round keys before the first inverse round,
// so its AND-depth is 120 (60 for the key schedule, then 60).
const DecryptFile = "aes128_decrypt.hdl"

// CompileDecrypt builds the decryption circuit from the embedded sources.
func CompileDecrypt() (*ir.Circuit, error) {
	return compileFile(DecryptFile, stdlib.SizeOptimized)
}

func compileFile(name string, style stdlib.Style) (*ir.Circuit, error) {
	src, err := FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("aes: %w", err)
	}
	c, err := lang.Compile(name, src, lang.Options{Style: style, FS: FS})
	if err != nil {
		return nil, fmt.Errorf("aes: compiling %s: %w", name, err)
	}
	return c, nil
}

// BlockValue returns a 16-byte block as the circuits' u128 bus value: byte
// 0 most significant.
func BlockValue(b [16]byte) *big.Int { return new(big.Int).SetBytes(b[:]) }

// BlockBytes is the inverse of BlockValue. It fails if v does not fit in
// 128 bits or is negative.
func BlockBytes(v *big.Int) ([16]byte, error) {
	var b [16]byte
	if v.Sign() < 0 || v.BitLen() > 128 {
		return b, fmt.Errorf("aes: %v is not a 128-bit block", v)
	}
	v.FillBytes(b[:])
	return b, nil
}

// Inputs returns the input values of either circuit for one block.
func Inputs(key, plaintext [16]byte) ir.Values {
	return ir.Values{"key": {BlockValue(key)}, "plaintext": {BlockValue(plaintext)}}
}

// Ciphertext reads the block from either circuit's output values.
func Ciphertext(out ir.Values) ([16]byte, error) {
	v := out["ciphertext"]
	if len(v) != 1 {
		return [16]byte{}, fmt.Errorf("aes: outputs have %d ciphertext values, want 1", len(v))
	}
	return BlockBytes(v[0])
}
