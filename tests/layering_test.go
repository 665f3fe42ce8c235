package tests

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/hcc-fhe/hcc"

// layerRule says which packages of the module the packages matching pkg may
// import (their non-test imports; tests may reach higher, e.g. a backend's
// tests compile circuits with optimize). Patterns are module-relative: "."
// is the root package hcc, "x/..." is x and everything below it, "*" every
// package, and "{engine}" the importing package's engine directory
// (backend/fhew for backend/fhew/fhewbench).
type layerRule struct {
	pkg      string
	may, not []string
	why      string
}

// layers is STYLE.md's dependency direction, cmd -> cluster -> hcc (root)
// -> runtime -> optimize -> ir <- lang, with backends beside: the first rule
// whose pkg matches applies.
var layers = []layerRule{
	{pkg: "ir", why: "ir depends on nothing of ours"},
	{pkg: "backend/ring", why: "ring (modular arithmetic, NTT, RNS) depends on nothing of ours"},
	{pkg: "backend", may: []string{"ir"}, why: "backend is the Backend interface over ir, no concrete scheme"},
	{pkg: "{engine}/...", may: []string{"ir", "backend", "backend/ring", "{engine}/..."},
		why: "backends depend only on ir, backend, backend/ring and their own subpackages"},
	{pkg: "stdlib", may: []string{"ir"}, why: "stdlib depends only on ir"},
	{pkg: "lang", may: []string{"ir", "stdlib"}, why: "lang depends only on ir and stdlib, never on a backend"},
	{pkg: "circuits/...", may: []string{"ir", "lang", "stdlib", "circuits/..."}, why: "circuits are HDL over lang, stdlib and ir"},
	{pkg: "optimize", may: []string{"ir"}, why: "optimize depends only on ir"},
	{pkg: "runtime", may: []string{"ir", "backend", "optimize"}, why: "runtime sees ir, optimize and the Backend interface, no concrete scheme"},
	{pkg: "internal/testenv", why: "testenv depends on nothing of ours"},
	{pkg: "internal/circuittest", may: []string{"ir"}, why: "the equivalence kit depends only on ir"},
	{pkg: "internal/...", may: []string{"*"}, not: []string{".", "cluster/...", "cmd/...", "examples/...", "tests/..."},
		why: "internal packages sit below the root"},
	{pkg: ".", may: []string{"*"}, not: []string{"cluster/...", "cmd/...", "examples/...", "tests/..."},
		why: "the root package hcc sits below cluster and cmd"},
	{pkg: "cluster/...", may: []string{"*"}, not: []string{"cmd/...", "examples/...", "tests/..."},
		why: "cluster sits between cmd and the root package"},
	{pkg: "bench/...", may: []string{"*"}, not: []string{"cluster/...", "cmd/...", "examples/...", "tests/..."},
		why: "benchmark harnesses (hcc bench's policy) sit above the root package, below cmd"},
	{pkg: "cmd/...", may: []string{"*"}, not: []string{"examples/...", "tests/..."}, why: "commands are the top"},
	{pkg: "examples/...", may: []string{"*"}, not: []string{"cmd/...", "tests/..."}, why: "examples use the library, not the commands"},
	{pkg: "tests", may: []string{"*"}, not: []string{"cmd/..."}, why: "the end-to-end tests run the commands, they do not import them"},
}

// matches reports whether the module-relative package rel matches pattern
// (engine is the importing package's engine directory, or "").
func matches(pattern, rel, engine string) bool {
	if strings.Contains(pattern, "{engine}") {
		if engine == "" {
			return false
		}
		pattern = strings.ReplaceAll(pattern, "{engine}", engine)
	}
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "/..."):
		base := strings.TrimSuffix(pattern, "/...")
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// engineOf returns backend/NAME for a package under backend/NAME (but not
// backend/ring, the shared math), or "".
func engineOf(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) < 2 || parts[0] != "backend" || parts[1] == "ring" {
		return ""
	}
	return "backend/" + parts[1]
}

// ruleFor returns the first rule for rel, or nil.
func ruleFor(rel string) *layerRule {
	for i := range layers {
		if matches(layers[i].pkg, rel, engineOf(rel)) {
			return &layers[i]
		}
	}
	return nil
}

// checkEdge returns "" if rel may import imp, else why it must not.
func checkEdge(rel, imp string) string {
	r := ruleFor(rel)
	if r == nil {
		return "no layering rule covers " + rel + ": add one to tests/layering_test.go"
	}
	if rel == imp {
		return ""
	}
	engine := engineOf(rel)
	for _, n := range r.not {
		if matches(n, imp, engine) {
			return r.why
		}
	}
	for _, m := range r.may {
		if matches(m, imp, engine) {
			return ""
		}
	}
	return r.why
}

// rel turns an import path of the module into a module-relative one ("."
// for the root package); ok is false outside the module.
func rel(path string) (string, bool) {
	switch {
	case path == module:
		return ".", true
	case strings.HasPrefix(path, module+"/"):
		return strings.TrimPrefix(path, module+"/"), true
	}
	return "", false
}

// aboveRoot are the packages at or above the root package; the tests of
// every other package may import any package below the root (a backend's
// tests compile circuits with optimize and run them with runtime) but not
// these.
var aboveRoot = []string{".", "cluster/...", "cmd/...", "examples/...", "tests/..."}

// checkTestEdge returns "" if the tests of rel may import imp.
func checkTestEdge(rel, imp string) string {
	for _, p := range aboveRoot {
		if matches(p, rel, "") {
			return ""
		}
	}
	for _, p := range aboveRoot {
		if matches(p, imp, "") {
			return "nothing below the root package imports the root, cluster or cmd, not even in tests"
		}
	}
	return ""
}

// TestLayering checks every non-test import of every package of the module
// against the layers, and its tests' imports against checkTestEdge, one
// error per forbidden edge.
func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-f",
		"{{.ImportPath}}{{range .Imports}} {{.}}{{end}} |{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from, ok := rel(f[0])
		if !ok {
			continue
		}
		pkgs++
		if ruleFor(from) == nil {
			t.Errorf("layering: %s", checkEdge(from, from))
			continue
		}
		inTests := false
		for _, imp := range f[1:] {
			if imp == "|" {
				inTests = true
				continue
			}
			to, ok := rel(imp)
			if !ok || to == from {
				continue
			}
			if !inTests {
				if why := checkEdge(from, to); why != "" {
					t.Errorf("layering: %s imports %s, which it must not: %s (STYLE.md, Layers)", from, to, why)
				}
			} else if why := checkTestEdge(from, to); why != "" {
				t.Errorf("layering: the tests of %s import %s, which they must not: %s (STYLE.md, Layers)", from, to, why)
			}
		}
	}
	if pkgs < 10 {
		t.Fatalf("go list found only %d packages of the module:\n%s", pkgs, out)
	}
}

// TestLayeringRules pins the rules on edges the layering must refuse and
// edges it must allow, so that a loosened table fails here.
func TestLayeringRules(t *testing.T) {
	forbidden := [][2]string{
		{"backend/fhew", "backend/bgv"}, {"backend/bgv", "backend/fhew"}, {"backend/ring", "ir"},
		{"backend/ring", "backend"}, {"backend/fhew/fhewbench", "backend/bgv"}, {"backend/bgv/bgvaes", "backend/fhew"},
		{"backend/fhew", "optimize"}, {"backend/bgv", "runtime"}, {"backend/fhew", "lang"}, {"backend/bgv", "."},
		{"backend", "backend/ring"}, {"ir", "lang"}, {"ir", "backend"}, {"lang", "backend"}, {"lang", "backend/fhew"},
		{"lang", "optimize"}, {"optimize", "runtime"}, {"optimize", "lang"}, {"optimize", "backend"},
		{"runtime", "backend/fhew"}, {"runtime", "lang"}, {"runtime", "."}, {"stdlib", "lang"},
		{".", "cluster"}, {".", "cmd/hcc"}, {".", "cmd/hcc/load"}, {"internal/circuittest", "optimize"},
		{"cluster", "cmd/hcc"}, {"internal/foo", "."}, {"circuits/aes", "backend/fhew"}, {"examples", "cmd/hcc"},
	}
	for _, e := range forbidden {
		if checkEdge(e[0], e[1]) == "" {
			t.Errorf("%s -> %s is allowed, the layering forbids it", e[0], e[1])
		}
	}
	allowed := [][2]string{
		{"backend/fhew", "backend/ring"}, {"backend/fhew", "backend"}, {"backend/fhew", "ir"},
		{"backend/bgv/bgvaes", "backend/bgv"}, {"backend/fhew/fhewbench", "backend/fhew"}, {"backend/bgv", "backend/bgv/sub"},
		{"lang", "ir"}, {"lang", "stdlib"}, {"optimize", "ir"}, {"runtime", "optimize"}, {"runtime", "backend"},
		{".", "runtime"}, {".", "backend/fhew"}, {".", "lang"}, {"cluster", "."}, {"cluster", "runtime"},
		{"cmd/hcc", "."}, {"cmd/hcc", "cluster"}, {"cmd/hcc", "cmd/hcc/load"}, {"internal/circuittest", "ir"},
	}
	for _, e := range allowed {
		if why := checkEdge(e[0], e[1]); why != "" {
			t.Errorf("%s -> %s is refused (%s), the layering allows it", e[0], e[1], why)
		}
	}
	for _, e := range [][2]string{{"backend/fhew", "."}, {"runtime", "cluster"}, {"ir", "cmd/hcc"}, {"internal/circuittest", "."}} {
		if checkTestEdge(e[0], e[1]) == "" {
			t.Errorf("the tests of %s may import %s, the layering forbids it", e[0], e[1])
		}
	}
	for _, e := range [][2]string{{"backend/bgv", "optimize"}, {"backend/bgv", "runtime"}, {"ir", "internal/circuittest"}, {"cluster", "."}} {
		if why := checkTestEdge(e[0], e[1]); why != "" {
			t.Errorf("the tests of %s may not import %s (%s), the layering allows it", e[0], e[1], why)
		}
	}
	if why := checkEdge("newpkg", "ir"); !strings.Contains(why, "no layering rule covers newpkg") {
		t.Errorf("a package without a rule passes: %q", why)
	}
}
