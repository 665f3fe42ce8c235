// Command roundtrip uses package hcc from outside its module (see
// external_test.go): for each engine it compiles an HDL string, generates
// keys, writes keys, program and ciphertexts to files in the directory
// given as its argument, reads them back as a server and as a client
// would, evaluates, decrypts and prints the outputs of every instance.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hcc-fhe/hcc"
)

const src = `
circuit mix(a: u8, b: u8, c: s8) -> (y: s16, z: bit) {
	y = (a as s16) - (b as s16) + (c as s16);
	z = a == b;
}
`

func main() {
	if len(os.Args) != 2 {
		fail(fmt.Errorf("usage: roundtrip DIR"))
	}
	for _, t := range []hcc.Target{
		{Engine: "fhew", Params: "ToySigned", Insecure: true},
		{Engine: "bgv", Params: "ToyM257", Insecure: true},
	} {
		if err := roundTrip(filepath.Join(os.Args[1], t.Engine), t); err != nil {
			fail(fmt.Errorf("%s: %w", t.Engine, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "roundtrip:", err)
	os.Exit(1)
}

func roundTrip(dir string, t hcc.Target) error {
	// Client: compile, keys, program and inputs to files.
	prog, err := hcc.Compile(hcc.HDL(src, ""), t)
	if err != nil {
		return err
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		return err
	}
	secretFile, serverFile, _, err := hcc.WriteKeys(filepath.Join(dir, "keys"), client, server, false)
	if err != nil {
		return err
	}
	progFile, inFile, outFile := filepath.Join(dir, "mix.hcp"), filepath.Join(dir, "in.ct"), filepath.Join(dir, "out.ct")
	if err := save(progFile, prog); err != nil {
		return err
	}
	var sets []hcc.Values
	for _, in := range [][]string{{"a=200", "b=100", "c=-5"}, {"a=7", "b=7", "c=0x7f"}, {"a=0", "b=255", "c=-128"}} {
		v, err := prog.ParseInputs(in...)
		if err != nil {
			return err
		}
		sets = append(sets, v)
	}
	cts, err := client.Encrypt(prog, sets...)
	if err != nil {
		return err
	}
	if err := save(inFile, cts); err != nil {
		return err
	}

	// Server: only the program, the server key and the inputs.
	sprog, err := hcc.CompileFile(progFile, hcc.Target{})
	if err != nil {
		return err
	}
	skey, err := hcc.ReadServerKeyFile(serverFile)
	if err != nil {
		return err
	}
	in, err := hcc.ReadCiphertextsFile(inFile)
	if err != nil {
		return err
	}
	out, stats, err := hcc.Eval(context.Background(), sprog, skey, in, hcc.EvalOptions{Threads: 2})
	if err != nil {
		return err
	}
	if err := save(outFile, out); err != nil {
		return err
	}

	// Client: the secret key and the outputs from their files.
	ckey, warning, err := hcc.ReadClientKeyFile(secretFile)
	if err != nil {
		return err
	}
	if warning != "" {
		return fmt.Errorf("unexpected warning: %s", warning)
	}
	res, err := hcc.ReadCiphertextsFile(outFile)
	if err != nil {
		return err
	}
	got, err := ckey.Decrypt(prog, res)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s: %d instances, program %x\n", t.Engine, prog.Target().Params, stats.Instances, sprog.Hash())
	for j, v := range got {
		want, err := prog.EvalPlain(sets[j])
		if err != nil {
			return err
		}
		if hcc.FormatOutputs(prog.Circuit(), v) != hcc.FormatOutputs(prog.Circuit(), want) {
			return fmt.Errorf("instance %d: decrypted %v, plaintext %v", j, v, want)
		}
		fmt.Print(hcc.FormatOutputs(prog.Circuit(), v))
	}
	return nil
}

// save writes v's encoding to path atomically.
func save(path string, v interface{ MarshalBinary() ([]byte, error) }) error {
	data, err := v.MarshalBinary()
	if err != nil {
		return err
	}
	return hcc.WriteFile(path, data, 0o644)
}
