package hcc_test

import (
	"fmt"
	"log"

	"github.com/hcc-fhe/hcc"
)

// Let the compiler choose the FHEW parameter set for the circuit: it maps
// the adder on every 128-bit set (LUT and wide-table sets) and keeps the cheapest whose predicted
// failure per run is within 2^-40. The program records the chosen set;
// Choice reports every candidate (hcc compile --params auto prints these
// lines).
func ExampleAutoParams() {
	prog, err := hcc.Compile(hcc.HDL(adder, ""), hcc.Target{Engine: "fhew", Params: hcc.AutoParams})
	if err != nil {
		log.Fatal(err)
	}
	ch := prog.Choice().Chosen()
	fmt.Println("compiled for", prog.Target().Params)
	fmt.Printf("%d bootstraps, %.0f NAND-equivalents, failure within 2^-40: %v\n", ch.Bootstraps, ch.Cost, ch.FailureLog2 <= hcc.MaxFailureLog2)
	fmt.Println("candidates:", len(prog.Choice().Candidates))
	// Output:
	// compiled for STD128_T
	// 16 bootstraps, 13 NAND-equivalents, failure within 2^-40: true
	// candidates: 9
}
