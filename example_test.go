package hcc_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcc-fhe/hcc"
)

// The examples use the insecure toy parameter sets (Target.Insecure) so
// that they run in well under a second under go test; drop Params and
// Insecure for the default 128-bit sets.

const adder = `
circuit add(a: u8, b: u8) -> (sum: u8, carry: bit) {
	let w = (a as u9) + (b as u9);
	sum = w[7:0];
	carry = w[8];
}
`

// Compile an HDL program for FHEW, generate keys, encrypt, evaluate and
// decrypt: the whole workflow in one process.
func Example() {
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		log.Fatal(err)
	}
	in, err := prog.ParseInputs("a=200", "b=0x64") // the syntax of hcc's --in
	if err != nil {
		log.Fatal(err)
	}
	cts, err := client.Encrypt(prog, in)
	if err != nil {
		log.Fatal(err)
	}
	out, _, err := hcc.Eval(context.Background(), prog, server, cts, hcc.EvalOptions{Threads: 2})
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.Decrypt(prog, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(hcc.FormatOutputs(prog.Circuit(), res[0]))
	// Output:
	// sum = 44 (0x2c)
	// carry = 1 (0x1)
}

// A batch on BGV: one input set per slot (20 sets on the 16 slots of
// ToyM257 are two packs, evaluated one after the other).
func Example_bgvBatch() {
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Engine: "bgv", Params: "ToyM257", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		log.Fatal(err)
	}
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("a=%d b=%d", 10*i, 13*i))
	}
	batch, err := hcc.ParseBatch(prog.Circuit(), strings.NewReader(strings.Join(lines, "\n")), "example.batch")
	if err != nil {
		log.Fatal(err)
	}
	cts, err := client.Encrypt(prog, batch.Values...)
	if err != nil {
		log.Fatal(err)
	}
	out, st, err := hcc.Eval(context.Background(), prog, server, cts, hcc.EvalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.Decrypt(prog, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d instances in %d packs of %d slots\n", len(res), st.Runs, st.Slots)
	fmt.Println("instance 19:", res[19]["sum"][0], res[19]["carry"][0])
	// Output:
	// 20 instances in 2 packs of 16 slots
	// instance 19: 181 1
}

// A batch on FHEW: all instances in one scheduler run, so that every
// thread stays busy across instances.
func Example_fhewBatch() {
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Params: "ToySigned", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		log.Fatal(err)
	}
	var sets []hcc.Values
	for i := 0; i < 8; i++ {
		v, err := prog.ParseInputs(fmt.Sprintf("a=%d", 30*i), fmt.Sprintf("b=%d", 7*i))
		if err != nil {
			log.Fatal(err)
		}
		sets = append(sets, v)
	}
	cts, err := client.Encrypt(prog, sets...)
	if err != nil {
		log.Fatal(err)
	}
	out, st, err := hcc.Eval(context.Background(), prog, server, cts, hcc.EvalOptions{Threads: 2})
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.Decrypt(prog, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d instances, %d run\n", st.Instances, st.Runs)
	for _, r := range res[6:] {
		fmt.Print(hcc.FormatOutputs(prog.Circuit(), r))
	}
	// Output:
	// 8 instances, 1 run
	// sum = 222 (0xde)
	// carry = 0 (0x0)
	// sum = 3 (0x03)
	// carry = 1 (0x1)
}

// The client/server split through files: the client compiles the program
// once and writes it (.hcp) with the server key and the encrypted inputs;
// the server reads them (no secret key, no recompilation), evaluates and
// writes the outputs; the client decrypts.
func Example_clientServer() {
	dir, err := os.MkdirTemp("", "hcc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	progFile, inFile, outFile := filepath.Join(dir, "add.hcp"), filepath.Join(dir, "in.ct"), filepath.Join(dir, "out.ct")

	// Client.
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Params: "ToySigned", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		log.Fatal(err)
	}
	secretFile, serverFile, _, err := hcc.WriteKeys(filepath.Join(dir, "keys"), client, server, false)
	if err != nil {
		log.Fatal(err)
	}
	must(marshalTo(progFile, prog))
	in, _ := prog.ParseInputs("a=250", "b=9")
	cts, err := client.Encrypt(prog, in)
	if err != nil {
		log.Fatal(err)
	}
	must(marshalTo(inFile, cts))

	// Server: reads the program, the server key and the inputs.
	sprog, err := hcc.CompileFile(progFile, hcc.Target{})
	must(err)
	skey, err := hcc.ReadServerKeyFile(serverFile)
	must(err)
	sin, err := hcc.ReadCiphertextsFile(inFile)
	must(err)
	sout, _, err := hcc.Eval(context.Background(), sprog, skey, sin, hcc.EvalOptions{})
	must(err)
	must(marshalTo(outFile, sout))

	// Client again, from the files.
	ckey, warning, err := hcc.ReadClientKeyFile(secretFile)
	must(err)
	out, err := hcc.ReadCiphertextsFile(outFile)
	must(err)
	res, err := ckey.Decrypt(prog, out)
	must(err)
	fmt.Printf("warning %q\n%s", warning, hcc.FormatOutputs(prog.Circuit(), res[0]))
	// Output:
	// warning ""
	// sum = 3 (0x03)
	// carry = 1 (0x1)
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// marshalTo writes v's encoding to path atomically.
func marshalTo(path string, v interface{ MarshalBinary() ([]byte, error) }) error {
	data, err := v.MarshalBinary()
	if err != nil {
		return err
	}
	return hcc.WriteFile(path, data, 0o644)
}

// Split a batch into parts for several servers and join the results in
// order (BGV parts hold whole packs).
func ExampleCiphertexts_Split() {
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Params: "ToySigned", Insecure: true})
	must(err)
	client, server, err := hcc.GenerateKeys(prog)
	must(err)
	var sets []hcc.Values
	for i := 0; i < 5; i++ {
		v, _ := prog.ParseInputs(fmt.Sprintf("a=%d", i), "b=1")
		sets = append(sets, v)
	}
	cts, err := client.Encrypt(prog, sets...)
	must(err)
	parts, err := cts.Split(2)
	must(err)
	var outs []*hcc.Ciphertexts
	for _, part := range parts {
		out, _, err := hcc.Eval(context.Background(), prog, server, part, hcc.EvalOptions{})
		must(err)
		outs = append(outs, out)
	}
	joined, err := hcc.JoinCiphertexts(outs)
	must(err)
	res, err := client.Decrypt(prog, joined)
	must(err)
	fmt.Println(len(parts), "parts;", "sums:", res[0]["sum"][0], res[1]["sum"][0], res[2]["sum"][0], res[3]["sum"][0], res[4]["sum"][0])
	// Output:
	// 3 parts; sums: 1 2 3 4 5
}

// Compile reports what the engine's passes did; ObservePasses shows each
// pass's cost (here: the LUT mapper cuts the bootstraps of the adder).
func ExampleCompile() {
	costs := map[string]int{}
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Params: "ToySigned", Insecure: true},
		hcc.ObservePasses(func(pass, summary string) {
			var n int // summary: "N nodes N bootstraps ..."
			fmt.Sscan(strings.Fields(summary)[2], &n)
			costs[pass] = n
		}))
	must(err)
	fmt.Println(prog.Target().Engine, prog.Target().Params, len(prog.Inputs()), "input buses")
	fmt.Println("LUT mapping saves bootstraps:", costs["lut-map"] < costs["input"])
	fmt.Println("bootstraps after mapping:", costs["lut-map"] == prog.Stats().Costly)
	// Output:
	// fhew ToySigned 2 input buses
	// LUT mapping saves bootstraps: true
	// bootstraps after mapping: true
}
