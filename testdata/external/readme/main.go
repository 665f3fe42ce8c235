package main

import (
	"context"
	"fmt"

	"github.com/hcc-fhe/hcc"
)

func main() {
	prog, err := hcc.Compile(hcc.HDL("circuit add(a: u8, b: u8) -> (sum: u9) { sum = (a as u9) + (b as u9); }", ""), hcc.Target{})
	check(err)
	client, server, err := hcc.GenerateKeys(prog) // the secret key; evaluation keys only
	check(err)
	in, err := prog.ParseInputs("a=200", "b=100") // the syntax of hcc run --in
	check(err)
	cts, err := client.Encrypt(prog, in)
	check(err)
	out, stats, err := hcc.Eval(context.Background(), prog, server, cts, hcc.EvalOptions{})
	check(err)
	res, err := client.Decrypt(prog, out)
	check(err)
	fmt.Printf("%s%v\n", hcc.FormatOutputs(prog.Circuit(), res[0]), stats)
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
