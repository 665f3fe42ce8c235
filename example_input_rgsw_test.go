package hcc_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hcc-fhe/hcc"
)

// Encrypt the inputs of a wide-table program with their RGSWs: the table
// input that reads only input bits (a ^ b) then needs no circuit
// bootstrap. The outputs are those of a plain Encrypt.
func ExampleClientKey_EncryptWith() {
	prog, err := hcc.Compile(hcc.HDL(`circuit m(a: u8, b: u8) -> (y: bit) { y = (a ^ b) == 0xff; }`, ""),
		hcc.Target{Engine: "fhew", Params: "ToyCBS", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	client, server, err := hcc.GenerateKeys(prog)
	if err != nil {
		log.Fatal(err)
	}
	in, err := prog.ParseInputs("a=0x0f", "b=0xf0")
	if err != nil {
		log.Fatal(err)
	}
	for _, opt := range []hcc.EncryptOptions{{}, {InputRGSW: true}} {
		cts, err := client.EncryptWith(prog, opt, in)
		if err != nil {
			log.Fatal(err)
		}
		out, st, err := hcc.Eval(context.Background(), prog, server, cts, hcc.EvalOptions{Threads: 1})
		if err != nil {
			log.Fatal(err)
		}
		res, err := client.Decrypt(prog, out)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("InputRGSW %v: y = %v, %d %s\n", opt.InputRGSW, res[0]["y"][0], st.Costly, st.CostName)
	}
	// Output:
	// InputRGSW false: y = 1, 8 circuit bootstraps
	// InputRGSW true: y = 1, 0 circuit bootstraps
}
