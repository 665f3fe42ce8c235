package ir

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkEvalAES evaluates aes_128.txt on 64 input vectors per call and
// reports gate evaluations per second (64 lanes per gate per call).
func BenchmarkEvalAES(b *testing.B) {
	c := loadShared(b, "aes_128.txt")
	in := randomWords(rand.New(rand.NewPCG(1, 1)), c.NumInputBits())
	vals := make([]uint64, len(c.Nodes))
	out := make([]uint64, c.NumOutputBits())
	gates := c.Stats().Gates
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.EvalBitsInto(in, vals, out)
	}
	b.ReportMetric(float64(gates)*float64(b.N)/b.Elapsed().Seconds(), "gates/s")
	b.ReportMetric(64*float64(gates)*float64(b.N)/b.Elapsed().Seconds(), "gate-lanes/s")
}

// BenchmarkProgramAES is BenchmarkEvalAES on the precompiled Program.
func BenchmarkProgramAES(b *testing.B) {
	c := loadShared(b, "aes_128.txt")
	p := c.Compile()
	in := randomWords(rand.New(rand.NewPCG(1, 1)), c.NumInputBits())
	vals := make([]uint64, p.ScratchLen())
	out := make([]uint64, c.NumOutputBits())
	gates := c.Stats().Gates
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.EvalBitsInto(in, vals, out)
	}
	b.ReportMetric(float64(gates)*float64(b.N)/b.Elapsed().Seconds(), "gates/s")
	b.ReportMetric(64*float64(gates)*float64(b.N)/b.Elapsed().Seconds(), "gate-lanes/s")
}

// TestEvalNoAllocs checks that both evaluators run without allocating, also
// with more input buses than fit a small stack array.
func TestEvalNoAllocs(t *testing.T) {
	b := NewBuilder("many")
	var acc NodeID = b.Const(false)
	for i := 0; i < 20; i++ {
		x := b.Input("x"+string(rune('a'+i)), 1, false)
		acc = b.Xor(acc, x[0])
	}
	b.Output("o", 1, false, []NodeID{acc})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	in := make([]uint64, 20)
	in[3] = 5
	vals := make([]uint64, len(c.Nodes)+1)
	out := make([]uint64, 1)
	p := c.Compile()
	if n := testing.AllocsPerRun(10, func() { c.EvalBitsInto(in, vals[:len(c.Nodes)], out) }); n != 0 {
		t.Errorf("Circuit.EvalBitsInto: %v allocs", n)
	}
	if out[0] != 5 {
		t.Errorf("got %d, want 5", out[0])
	}
	if n := testing.AllocsPerRun(10, func() { p.EvalBitsInto(in, vals, out) }); n != 0 {
		t.Errorf("Program.EvalBitsInto: %v allocs", n)
	}
}

// TestProgramMatches compares the compiled form with Circuit.EvalBits.
func TestProgramMatches(t *testing.T) {
	for _, c := range []*Circuit{allOpsCircuit(t), oddCircuit(t), loadShared(t, "aes_128.txt")} {
		p := c.Compile()
		rng := rand.New(rand.NewPCG(5, 6))
		vals := make([]uint64, p.ScratchLen())
		out := make([]uint64, c.NumOutputBits())
		for r := 0; r < 8; r++ {
			in := randomWords(rng, c.NumInputBits())
			want := c.EvalBits(in)
			p.EvalBitsInto(in, vals, out)
			for k := range want {
				if out[k] != want[k] {
					t.Fatalf("%s: output bit %d: %#x, want %#x", c.Name, k, out[k], want[k])
				}
			}
		}
	}
}
