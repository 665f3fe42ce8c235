// Package aes is AES-128 (FIPS-197) written in hcc's HDL, as a user of the
// language would write it: aes128.hdl spells out SubBytes (the standard
// library's Boyar–Peralta S-box), ShiftRows, MixColumns (xtime),
// AddRoundKey and the on-the-fly key schedule as HDL functions;
// aes128_lowdepth.hdl is the same cipher with the AND-depth-4 S-box, and
// aes128_decrypt.hdl the inverse cipher built from the same functions.
//
// The encryption circuits map key and plaintext to ciphertext, the
// decryption circuit key and ciphertext to plaintext, all u128 and each the
// FIPS-197 hex string read as one big-endian integer: byte 0 is
// the most significant byte (bits 127..120) and bit 7 of a byte is its most
// significant bit. This is also the bit layout of the Bristol circuit
// shared/circuits/aes_128.txt (input 0 the key, input 1 the plaintext, wire
// i = bit i), so the circuits can be evaluated on the same input words.
//
// The files are embedded (FS); Compile and CompileDecrypt build circuits
// from them without touching the file system, and BlockValue, BlockBytes,
// Inputs and Ciphertext convert between byte blocks and bus values.
package aes
