package tests

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/hcc-fhe/hcc/"

// forbidden lists, for each layer, the packages it must never depend on
// (directly or transitively): dependencies point one way,
// cmd → runtime → optimize → ir ← lang, and backends see only ir and shared math.
var forbidden = map[string][]string{
	"ir":       {"lang", "optimize", "stdlib", "runtime", "backend", "cmd", "circuits"},
	"lang":     {"optimize", "runtime", "backend", "cmd"},
	"stdlib":   {"optimize", "runtime", "backend", "cmd"},
	"optimize": {"lang", "runtime", "cmd"},
	"backend":  {"lang", "optimize", "stdlib", "runtime", "cmd", "circuits"},
	"runtime":  {"lang", "cmd"},
}

func TestLayering(t *testing.T) {
	for layer, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "../"+layer+"/...").CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "matched no packages") {
				continue
			}
			t.Fatalf("go list %s: %v\n%s", layer, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			path, _, _ := strings.Cut(line, " ")
			if !strings.HasPrefix(path, module) {
				continue
			}
			rel := strings.TrimPrefix(path, module)
			for _, b := range bad {
				if rel == b || strings.HasPrefix(rel, b+"/") {
					if layer == "backend" && strings.HasPrefix(rel, "backend/") {
						continue
					}
					t.Errorf("%s depends on %s, which the layering forbids", layer, rel)
				}
			}
		}
	}
}
