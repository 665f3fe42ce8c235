package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestBootstrapCountsAgree checks the one definition of a circuit's
// bootstraps: for the same circuit and parameter set, compile -v's last pass
// line, its statistics block, run's compile line and the run's own count
// report the same number (a MUX is two bootstraps at P = 4, everywhere), and
// the same bootstrap depth where they report one. The tour keeps MUXes
// after LUT mapping, which the statistics block once counted as one.
func TestBootstrapCountsAgree(t *testing.T) {
	set := []string{"--params", "ToySigned", "--insecure"}
	compile := runHCC(t, append([]string{"compile", "../../examples/tour.hdl", "--backend", "fhew", "-v"}, set...)...)
	run := runHCC(t, append([]string{"run", "../../examples/tour.hdl", "--in", "a=200", "--in", "b=100", "--in", "x=-5",
		"--in", "v=1,2,3,4", "--threads", "2"}, set...)...)
	if !strings.HasPrefix(compile, "exit 0") || !strings.HasPrefix(run, "exit 0") {
		t.Fatalf("compile:\n%s\nrun:\n%s", compile, run)
	}
	if !strings.Contains(compile, "  MUX:") {
		t.Fatalf("no MUX left after mapping; the test needs one:\n%s", compile)
	}
	find := func(text, re string) []string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q in:\n%s", re, text)
		}
		return m[1:]
	}
	pass := find(compile, `(?m)^lut-map +\d+ nodes +(\d+) bootstraps .*bootstrap depth (\d+),`)
	block := []string{find(compile, `(?m)^bootstraps: +(\d+)$`)[0], find(compile, `(?m)^bootstrap-depth: +(\d+)$`)[0]}
	compiled := find(run, `(?m)^compiled tour .*-> (\d+) bootstraps .*bootstrap depth (\d+),`)
	evaluated := find(run, `(?m)^evaluated: (\d+) bootstraps in `)
	if pass[0] != block[0] || pass[0] != compiled[0] || pass[0] != evaluated[0] {
		t.Errorf("bootstraps: pass line %s, statistics %s, run's compile line %s, run %s", pass[0], block[0], compiled[0], evaluated[0])
	}
	if pass[1] != block[1] || pass[1] != compiled[1] {
		t.Errorf("bootstrap depth: pass line %s, statistics %s, run's compile line %s", pass[1], block[1], compiled[1])
	}
}
