// Package aes is AES-128 (FIPS-197) written in hcc's HDL, as a user of the
// language would write it: aes128.hdl spells out SubBytes (the standard
// library's Boyar–Peralta S-box), ShiftRows, MixColumns (xtime),
// AddRoundKey and the on-the-fly key schedule as HDL functions, and
// aes128_lowdepth.hdl is the same cipher with the AND-depth-4 S-box.
//
// Both circuits take key and plaintext as u128 and give ciphertext as u128,
// each the FIPS-197 hex string read as one big-endian integer: byte 0 is
// the most significant byte (bits 127..120) and bit 7 of a byte is its most
// significant bit. This is also the bit layout of the Bristol circuit
// shared/circuits/aes_128.txt (input 0 the key, input 1 the plaintext, wire
// i = bit i), so the two circuits can be evaluated on the same input words.
//
// The files are embedded (FS); Compile builds a circuit from them without
// touching the file system, and Inputs and Ciphertext convert between byte
// blocks and the circuits' bus values.
package aes
