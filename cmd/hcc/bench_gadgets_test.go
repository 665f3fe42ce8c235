package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hcc-fhe/hcc/backend/fhew/fhewbench"
)

// toyGadgetArgs runs every gadget on the toy sets.
var toyGadgetArgs = []string{"bench", "gadgets", "--insecure", "--ref", "ToySigned", "--sets", "ToySigned,ToyGaussian",
	"--cbs-set", "ToyCBS", "--cmux-set", "ToySignedCMux", "--rounds", "2"}

// TestBenchGadgets runs `hcc bench gadgets` on the toy sets with 2 rounds:
// every gadget has a row with a finite positive ratio (timings themselves
// are never asserted), and the files are written.
func TestBenchGadgets(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(append(append([]string(nil), toyGadgetArgs...), "--out", dir), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("progress written although stderr is no terminal: %q", stderr.String())
	}
	out := stdout.String()
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "|")
		if len(f) != 7 || !strings.Contains(f[2], "(insecure)") {
			continue
		}
		ratio, err := strconv.ParseFloat(strings.TrimSpace(f[4]), 64)
		if err != nil || !(ratio > 0) || math.IsInf(ratio, 0) {
			t.Errorf("row %q: ratio %q is not finite and positive", line, f[4])
		}
		if strings.TrimSpace(f[5]) != "2" {
			t.Errorf("row %q: want 2 rounds", line)
		}
		rows[strings.TrimSpace(f[1])+" @ "+strings.Fields(f[2])[0]] = true
	}
	for _, want := range []string{
		"reference NAND (gate bootstrap) (2 per round) @ ToySigned", "NAND (gate bootstrap) @ ToySigned", "NAND (gate bootstrap) @ ToyGaussian",
		fhewbench.GadgetCBS + " @ ToyCBS", fhewbench.GadgetTable + " @ ToyCBS", fhewbench.GadgetSelect + " @ ToySignedCMux",
		fhewbench.GadgetCMux + " (10 per round) @ ToySignedCMux",
		fhewbench.GadgetMultiOne + " (2 per round) @ ToySigned", fhewbench.GadgetMultiOut + " (2 per round) @ ToySigned",
	} {
		if !rows[want] {
			t.Errorf("no row %q in:\n%s", want, out)
		}
	}
	if len(rows) != 9 {
		t.Errorf("%d rows, want 9:\n%s", len(rows), out)
	}
	for _, want := range []string{"- load average (1/5/15 min): ", " before, ", "- CPU received by the timed rounds", "of one core",
		"that round's NAND at ToySigned", "Every result decrypted correctly"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "gadgets.md"))
	if err != nil || string(md) != out {
		t.Errorf("gadgets.md (%v) differs from stdout", err)
	}
	f, err := os.Open(filepath.Join(dir, "gadgets.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 10 || recs[0][0] != "gadget" || recs[1][6] != "ToySigned" {
		t.Errorf("gadgets.csv (%v): %v", err, recs)
	}
}

func TestBenchGadgetsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rounds", "0"}, "--rounds must be at least 1"},
		{[]string{"--ref", "ToySigned"}, "ToySigned is insecure: pass --insecure"},
		{[]string{"--ref", "STD128_T", "--sets", "STD128_T", "--cbs-set", "ToyCBS"}, "ToyCBS is insecure: pass --insecure"},
		{[]string{"--insecure", "--ref", "ToySigned", "--sets", "ToySigned", "--cbs-set", "NOPE"}, `unknown parameter set "NOPE"`},
		{[]string{"--insecure", "--ref", "ToySigned", "--sets", "ToySigned", "--cbs-set", "none", "--cmux-set", "ToySigned"}, "--cmux-set ToySigned has no CMux gadget"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "gadgets", "--out", t.TempDir()}, c.args...), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestBenchGadgetsWrongResult: a run with a wrongly decrypted result
// reports it and exits 1 (after writing the table).
func TestBenchGadgetsWrongResult(t *testing.T) {
	dir := t.TempDir()
	o := &benchOptions{sets: "ToySigned", insecure: true, out: dir, loadAverage: func() string { return "1.00 1.00 1.00" }, now: time.Now}
	g := &benchGadgetOptions{rounds: 1, ref: "ToySigned", cbsSet: "none", cmx: "none",
		measure: func(opt fhewbench.GadgetOptions) (*fhewbench.GadgetResult, error) {
			if opt.Rounds != 1 || opt.Reference.Name() != "ToySigned" || len(opt.NANDSets) != 1 || opt.CBS != nil || opt.CMux != nil || opt.CPU == nil {
				t.Errorf("options %+v", opt)
			}
			return &fhewbench.GadgetResult{Reference: "ToySigned", ReferenceMs: []float64{2}, Rounds: 1, Rows: []fhewbench.GadgetRow{
				{Gadget: "reference NAND", Set: "ToySigned", OpsPerRound: 2, TimesMs: []float64{2}, MedianMs: 2, Ratio: 1, Checked: 2},
				{Gadget: "NAND", Set: "ToySigned", OpsPerRound: 1, TimesMs: []float64{3}, MedianMs: 3, Ratio: 1.5, Checked: 1, Wrong: 1},
			}}, nil
		}}
	var stdout, stderr bytes.Buffer
	err := runBenchGadgets(&cmdEnv{stdout: &stdout, stderr: &stderr, args: []string{"gadgets"}}, o, g)
	if err == nil || !strings.Contains(err.Error(), "1 result(s) decrypted wrongly") {
		t.Errorf("err %v", err)
	}
	if out := stdout.String(); !strings.Contains(out, "| NAND | ToySigned (insecure) | 3.000 | 1.5 | 1 |") ||
		!strings.Contains(out, "Results that decrypted wrongly: NAND at ToySigned: 1 of 1.") || !strings.Contains(out, "1.00 1.00 1.00 before") {
		t.Errorf("stdout:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "gadgets.csv")); err != nil {
		t.Error(err)
	}
}
