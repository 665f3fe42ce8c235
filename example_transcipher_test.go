package hcc_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"log"

	"github.com/hcc-fhe/hcc"
)

// A ReLU on each of the 16 signed bytes of a record.
const reluRecord = `
circuit relu(x: s8[16]) -> (y: s8[16]) {
	for i in 0..16 { y[i] = x[i] < 0 ? 0 : x[i]; }
}
`

// Transciphering: the client encrypts its records with standard
// AES-128-CTR and its AES key under its hcc key; the server turns the AES
// ciphertext into encrypted inputs of the program (one record per
// instance) and evaluates it. Drop Params and Insecure for M65537.
func ExampleTranscipher() {
	target := hcc.Target{Engine: "bgv", Params: "ToyM257Deep", Insecure: true}
	prog, err := hcc.Compile(hcc.HDL(reluRecord, ""), target)
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeysWith(prog, hcc.KeyOptions{Transcipher: true})
	if err != nil {
		log.Fatal(err)
	}

	// client: AES-128-CTR (any standard tool) and the AES key under hcc
	key := [16]byte{0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c}
	iv := [16]byte{0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff}
	records := []byte{
		1, 0xff, 2, 0xfe, 3, 0xfd, 4, 0xfc, 5, 0xfb, 6, 0xfa, 7, 0xf9, 8, 0xf8, // 1, -1, 2, -2, ...
		100, 0x80, 0, 0x7f, 10, 20, 30, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0x81,
	}
	blk, _ := aes.NewCipher(key[:])
	upload := make([]byte, len(records))
	cipher.NewCTR(blk, iv[:]).XORKeyStream(upload, records)
	aesKey, err := client.EncryptAESKeyFor(key, prog)
	if err != nil {
		log.Fatal(err)
	}

	// server: transcipher, then the program on every record
	ctx := context.Background()
	in, st, err := hcc.Transcipher(ctx, server, aesKey, iv, upload, prog, hcc.TranscipherOptions{})
	if err != nil {
		log.Fatal(err)
	}
	out, _, err := hcc.Eval(ctx, prog, server, in, hcc.EvalOptions{})
	if err != nil {
		log.Fatal(err)
	}

	// client
	res, err := client.Decrypt(prog, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Records, "records")
	for _, r := range res {
		fmt.Println(r["y"])
	}
	// Output:
	// 2 records
	// [1 0 2 0 3 0 4 0 5 0 6 0 7 0 8 0]
	// [100 0 0 127 10 20 30 0 0 0 0 0 0 0 0 0]
}
