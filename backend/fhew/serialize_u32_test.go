package fhew

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"testing"
)

// TestReadRefusesWideModulusFields: a key file whose 64-bit field for a
// 32-bit modulus (the ring's Q, the CBS ring's Q0 and Q1) has high bits set,
// checksum re-sealed, is refused instead of being read truncated (it would
// re-encode to other bytes).
func TestReadRefusesWideModulusFields(t *testing.T) {
	p, err := ParamsByName("ToySignedCMux", true)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := p.CMuxParams()
	cl := cp.Literal()
	for _, q := range []uint32{p.Literal().Q, cl.Q0, cl.Q1} {
		var field [8]byte
		binary.LittleEndian.PutUint64(field[:], uint64(q))
		at := bytes.Index(data, field[:])
		if at < 0 {
			t.Fatalf("modulus %d not found in the key file", q)
		}
		bad := bytes.Clone(data)
		bad[at+5] ^= 0x40
		body := bad[:len(bad)-sha256.Size]
		sum := sha256.Sum256(body)
		copy(bad[len(bad)-sha256.Size:], sum[:])
		if _, err := ReadSecretKey(p, bytes.NewReader(bad)); err == nil {
			t.Errorf("modulus field %d with high bits %#x accepted", q, bad[at+4:at+8])
		}
	}
}

// TestReadLiteralFieldMessage: a key file of the right set name whose
// literal differs in a field (here LWEDim, checksum re-sealed) is refused
// with a message that says so; it read "key is for parameter set
// "ToySignedCMux", not "ToySignedCMux"".
func TestReadLiteralFieldMessage(t *testing.T) {
	p, err := ParamsByName("ToySignedCMux", true)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := NewSecretKey(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var field [8]byte
	binary.LittleEndian.PutUint64(field[:], uint64(p.LWEDim()))
	at := bytes.Index(data, field[:])
	if at < 0 {
		t.Fatal("LWEDim not found in the key file")
	}
	bad := bytes.Clone(data)
	bad[at] ^= 0x01
	sum := sha256.Sum256(bad[:len(bad)-sha256.Size])
	copy(bad[len(bad)-sha256.Size:], sum[:])
	_, err = ReadSecretKey(p, bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "a field of its literal differs") {
		t.Errorf("literal with another LWEDim: err = %v, want the field named as the difference", err)
	}
}
