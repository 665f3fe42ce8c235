package aes

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew"
	"github.com/hcc-fhe/hcc/ir"
	"github.com/hcc-fhe/hcc/optimize"
	"github.com/hcc-fhe/hcc/stdlib"
)

// TestMeasure prints, for the HDL AES circuits and aes_128.txt, the gate
// counts and depths before and after the cleanup (optimize.Default) and BGV
// (optimize.ForDepth) pipelines, and the FHEW bootstraps after the LUT
// pipeline at STD128_LOWFAIL_T with cuts of up to 6 inputs (what hcc
// eval/run/compile use). Every optimised circuit is checked against
// crypto/aes. It takes about a minute, so it runs only with
// HCC_AES_MEASURE=1:
//
//	HCC_AES_MEASURE=1 go test ./circuits/aes -run Measure -v
func TestMeasure(t *testing.T) {
	if os.Getenv("HCC_AES_MEASURE") == "" {
		t.Skip("set HCC_AES_MEASURE=1 to measure (about a minute)")
	}
	p, err := fhew.ParamsByName("STD128_LOWFAIL_T", false)
	if err != nil {
		t.Fatal(err)
	}
	target := fhew.NewLUTTarget(p, fhew.DefaultLUTFailureLog2)
	const maxLUTInputs = 6
	dec, err := CompileDecrypt()
	if err != nil {
		t.Fatal(err)
	}
	circuits := []struct {
		name string
		c    *ir.Circuit
	}{
		{"aes_128.txt", bristolAES(t)},
		{"aes128.hdl", circuit(t, Small, stdlib.SizeOptimized)},
		{"aes128_lowdepth.hdl", circuit(t, LowDepth, stdlib.SizeOptimized)},
		{"aes128_decrypt.hdl", dec},
	}
	var rows []string
	row := func(name, stage string, c *ir.Circuit, d time.Duration) {
		st := c.StatsFor(target.Cost())
		xor := st.Count[ir.OpXor] + st.Count[ir.OpXnor]
		other := st.Gates - st.Count[ir.OpNot] - st.Count[ir.OpAnd] - xor - st.Count[ir.OpParity] - st.Count[ir.OpLUT]
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %.1fs |", name, stage,
			st.Count[ir.OpAnd], xor, st.Count[ir.OpParity], st.Count[ir.OpLUT], other, st.AndDepth,
			st.Costly, st.CostDepth, d.Seconds()))
	}
	for _, cc := range circuits {
		row(cc.name, "input", cc.c, 0)
		for _, pl := range []struct {
			name string
			pipe *optimize.Pipeline
		}{
			{"Default", optimize.Default()},
			{"ForDepth", optimize.ForDepth()},
			{"ForLUTs k<=6", optimize.ForLUTs(target, maxLUTInputs)},
		} {
			start := time.Now()
			d, err := pl.pipe.Run(cc.c)
			if err != nil {
				t.Fatalf("%s %s: %v", cc.name, pl.name, err)
			}
			el := time.Since(start)
			ref := goEncrypt
			if cc.c == dec {
				ref = goDecrypt
			}
			t.Run(cc.name+"/"+pl.name, func(t *testing.T) { checkRandom(t, d, 3, ref) })
			row(cc.name, pl.name, d, el)
		}
	}
	t.Logf("\n| circuit | stage | AND | XOR+XNOR | PARITY | LUT | other gates | AND-depth | bootstraps STD128_LOWFAIL_T | bootstrap depth | pass time |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n%s",
		strings.Join(rows, "\n"))
}
