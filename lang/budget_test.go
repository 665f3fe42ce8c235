package lang

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// nestedMultiply is the program of the issue: a million chained u64
// multiplications (about 12 billion gates), which reached 11.4 GB of
// resident memory and 79 s before the old gate budget refused it.
const nestedMultiply = `circuit big(a: u64, b: u64) -> (r: u64) {
    let acc = a;
    for i in 0..1000 {
        for j in 0..1000 {
            acc = acc * b;
        }
    }
    r = acc;
}
`

// chainedMultiply has n chained u64 multiplications, about 12,000 gates each.
func chainedMultiply(n int) string {
	return fmt.Sprintf(`circuit chain(a: u64, b: u64) -> (r: u64) {
    let acc = a;
    for i in 0..%d {
        acc = acc * b;
    }
    r = acc;
}
`, n)
}

// TestMemoryHelper is the child process of the memory tests: it compiles
// HCC_MEM_PROGRAM with the budget HCC_MEM_BUDGET and prints the nodes, the
// error and the growth of its peak resident size (VmHWM) over its size
// before compiling. A fresh process has a heap no earlier test grew.
func TestMemoryHelper(t *testing.T) {
	src := os.Getenv("HCC_MEM_PROGRAM")
	if src == "" {
		t.Skip("child process of TestMemoryBudget and TestNodeBytes")
	}
	budget, _ := strconv.ParseInt(os.Getenv("HCC_MEM_BUDGET"), 10, 64)
	runtime.GC()
	before := peakRSS(t)
	c, err := Compile("mem.hdl", []byte(src), Options{MemoryBudget: budget})
	nodes := 0
	if c != nil {
		nodes = len(c.Nodes)
	}
	fmt.Printf("nodes=%d\ngrowth=%d\nerr=%v\n", nodes, peakRSS(t)-before, err)
}

// peakRSS is the process's peak resident size in bytes (Linux's VmHWM).
func peakRSS(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: peak resident size unknown")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// memChild runs TestMemoryHelper in a new process on src with the budget
// and returns what it printed.
func memChild(t *testing.T, src string, budget int64) (nodes int, growth int64, errText string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("peak resident size is read from /proc (Linux)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "HCC_MEM_PROGRAM="+src, fmt.Sprintf("HCC_MEM_BUDGET=%d", budget))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		k, v, _ := strings.Cut(string(line), "=")
		switch k {
		case "nodes":
			nodes, _ = strconv.Atoi(v)
		case "growth":
			growth, _ = strconv.ParseInt(v, 10, 64)
		case "err":
			errText = v
		}
	}
	if strings.Contains(string(out), "SKIP") {
		t.Skipf("child skipped:\n%s", out)
	}
	return nodes, growth, errText
}

// TestMemoryBudget checks that the nested multiplication is refused once
// the circuit reaches the memory budget (here 128 MiB), with the budget in
// the message, and that the process's peak resident size grew by no more
// than the budget meanwhile.
func TestMemoryBudget(t *testing.T) {
	const budget = 128 << 20
	_, growth, errText := memChild(t, nestedMultiply, budget)
	if !strings.Contains(errText, "program too large to elaborate: over the memory budget of 128 MiB, which holds about 335537 gates besides the 256 bits of values in variables") {
		t.Errorf("error %q, want a refusal at the budget", errText)
	}
	if growth > budget {
		t.Errorf("peak resident size grew by %d MiB under a budget of %d MiB", growth>>20, budget>>20)
	}
	t.Logf("refused; peak resident size grew by %d MiB (budget %d MiB)", growth>>20, budget>>20)
}

// TestNodeBytes checks the budget's accounting: elaborating a circuit
// grows the peak resident size by at most nodeBytes per gate.
func TestNodeBytes(t *testing.T) {
	nodes, growth, errText := memChild(t, chainedMultiply(40), DefaultMemoryBudget)
	if errText != "<nil>" || nodes < 400_000 {
		t.Fatalf("%d nodes, error %s", nodes, errText)
	}
	per := float64(growth) / float64(nodes)
	if per > nodeBytes {
		t.Errorf("%.0f bytes of peak resident size per gate, nodeBytes is %d", per, nodeBytes)
	}
	t.Logf("%d gates: peak resident size +%d MiB, %.0f bytes per gate (nodeBytes %d)", nodes, growth>>20, per, nodeBytes)
}

// TestMemoryBudgetOption checks the option's edges: a negative budget is
// an error, a budget too small for the program refuses it, and the values
// held in variables count as well as the gates.
func TestMemoryBudgetOption(t *testing.T) {
	src := []byte(chainedMultiply(2))
	if _, err := Compile("m.hdl", src, Options{MemoryBudget: -1}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative budget: %v", err)
	}
	if _, err := Compile("m.hdl", src, Options{MemoryBudget: 1 << 20}); err == nil || !strings.Contains(err.Error(), "over the memory budget of 1 MiB") {
		t.Errorf("1 MiB budget: %v", err)
	}
	// Values count too: ten arrays of a million bits (10 million nodes in
	// variables, no gates) are over a budget of 64 MiB.
	var arrays strings.Builder
	arrays.WriteString("circuit c(x: u8) -> (r: u8) {\n")
	for i := range 10 {
		fmt.Fprintf(&arrays, "    let a%d: u8[131072];\n", i)
	}
	arrays.WriteString("    r = x;\n}\n")
	_, err := Compile("a.hdl", []byte(arrays.String()), Options{MemoryBudget: 64 << 20})
	if err == nil || !strings.Contains(err.Error(), "over the memory budget of 64 MiB") {
		t.Errorf("arrays in variables: %v", err)
	}
	if _, err := Compile("a.hdl", []byte(arrays.String()), Options{MemoryBudget: 256 << 20}); err != nil {
		t.Errorf("arrays in variables within 256 MiB: %v", err)
	}
	if _, err := Compile("m.hdl", src, Options{}); err != nil {
		t.Errorf("default budget: %v", err)
	}
}
