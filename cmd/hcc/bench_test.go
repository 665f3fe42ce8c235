package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bench command is tested on a Toy set with tiny counts; timings are
// never asserted.
func TestBenchFHEW(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "fhew", "--sets", "ToySigned,ToyGaussian", "--insecure", "--runs", "2", "--noise", "3",
		"--figure2", "--figure2-sets", "ToySigned", "--windows", "1,2", "--compare-runs", "2", "--out", dir}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("progress written although stderr is no terminal: %q", stderr.String())
	}
	out := stdout.String()
	// ToyGaussian has a Gaussian LWE secret: no GINX row.
	for _, want := range []string{"| ToySigned | Signed | 4 |", "| ToySigned | LMKCDEY | 10 |", "| ToySigned | GINX | - |",
		"| ToyGaussian | Signed |", "| ToyGaussian | LMKCDEY |", "## Figure 2 at ToySigned", "Head-to-head at ToySigned"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| ToyGaussian | GINX") {
		t.Errorf("GINX row for a Gaussian secret:\n%s", out)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if lines := strings.Split(strings.TrimSpace(read("fhew-table3.csv")), "\n"); len(lines) != 6 || !strings.HasPrefix(lines[0], "set,method,w,") {
		t.Errorf("fhew-table3.csv:\n%s", strings.Join(lines, "\n"))
	}
	if lines := strings.Split(strings.TrimSpace(read("fhew-figure2.csv")), "\n"); len(lines) != 5 {
		t.Errorf("fhew-figure2.csv has %d lines", len(lines))
	}
	if lines := strings.Split(strings.TrimSpace(read("fhew-compare.csv")), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "ToySigned,Signed,") {
		t.Errorf("fhew-compare.csv:\n%s", strings.Join(lines, "\n"))
	}
	if png := read("fhew-figure2.png"); !strings.HasPrefix(png, "\x89PNG\r\n") {
		t.Errorf("fhew-figure2.png is no PNG")
	}
	if md := read("fhew-bench.md"); !strings.Contains(md, "- command: `hcc ") || !strings.Contains(md, out) {
		t.Errorf("fhew-bench.md lacks the header or the tables")
	}
}

func TestBenchFHEWErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "fhew", "--sets", "ToySigned", "--runs", "2", "--noise", "0"}, 1, "insecure: pass --insecure"},
		{[]string{"bench", "bgv"}, 1, `unknown benchmark "bgv"`},
		{[]string{"bench", "fhew", "--sets", "NOPE"}, 1, `unknown parameter set "NOPE"`},
		{[]string{"bench", "fhew", "--methods", "CGGI"}, 1, `unknown method "CGGI"`},
		{[]string{"bench", "fhew", "--runs", "0"}, 1, "--runs and --threads must be positive"},
		{[]string{"bench", "fhew", "--figure2", "--windows", "3-1"}, 1, "bad window list"},
		{[]string{"bench"}, 2, "want one fhew|aes|gadgets argument"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}
