package ir

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// evalBLIF is a small, independent BLIF interpreter for the subset WriteBLIF
// emits (.names with on-set covers), used to check the writer.
func evalBLIF(t *testing.T, text string, inputs map[string]bool) map[string]bool {
	t.Helper()
	type table struct {
		ins  []string
		rows []string
	}
	var order []string
	tables := map[string]*table{}
	var cur *table
	var outs []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case ".model", ".inputs", ".end":
			cur = nil
		case ".outputs":
			outs = f[1:]
		case ".names":
			cur = &table{ins: f[1 : len(f)-1]}
			name := f[len(f)-1]
			tables[name] = cur
			order = append(order, name)
		default:
			if cur == nil {
				t.Fatalf("cover row outside .names: %q", sc.Text())
			}
			cur.rows = append(cur.rows, f[0])
		}
	}
	vals := map[string]bool{}
	for k, v := range inputs {
		vals[k] = v
	}
	for _, name := range order { // WriteBLIF emits tables in topological order
		tb := tables[name]
		v := false
		if len(tb.ins) == 0 {
			v = len(tb.rows) > 0
		}
		for _, row := range tb.rows {
			match := true
			for j, in := range tb.ins {
				x, ok := vals[in]
				if !ok {
					t.Fatalf("%s read before it was defined", in)
				}
				if (row[j] == '1') != x {
					match = false
				}
			}
			if match && len(tb.ins) > 0 {
				v = true
			}
		}
		vals[name] = v
	}
	res := map[string]bool{}
	for _, o := range outs {
		res[o] = vals[o]
	}
	return res
}

func TestWriteBLIF(t *testing.T) {
	b := NewBuilder("every op")
	x := b.Input("x", 4, false)
	nodes := []NodeID{
		b.Raw(Node{Op: OpNot, In: []NodeID{x[0]}}),
		b.Raw(Node{Op: OpAnd, In: []NodeID{x[0], x[1]}}),
		b.Raw(Node{Op: OpOr, In: []NodeID{x[1], x[2]}}),
		b.Raw(Node{Op: OpXor, In: []NodeID{x[2], x[3]}}),
		b.Raw(Node{Op: OpNand, In: []NodeID{x[0], x[3]}}),
		b.Raw(Node{Op: OpNor, In: []NodeID{x[1], x[3]}}),
		b.Raw(Node{Op: OpXnor, In: []NodeID{x[0], x[2]}}),
		b.Raw(Node{Op: OpAndNY, In: []NodeID{x[3], x[1]}}),
		b.Raw(Node{Op: OpMux, In: []NodeID{x[0], x[1], x[2]}}),
		b.Raw(Node{Op: OpLUT, In: []NodeID{x[0], x[1], x[2], x[3]}, Table: 0x6ac3}),
		b.Const(false), b.Const(true),
	}
	b.Output("y", len(nodes), false, nodes)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBLIF(&buf, c); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 16; v++ {
		in := map[string]bool{}
		words := make([]uint64, 4)
		for j := 0; j < 4; j++ {
			in["x_"+strconv.Itoa(j)] = v>>j&1 == 1
			if v>>j&1 == 1 {
				words[j] = ^uint64(0)
			}
		}
		got := evalBLIF(t, buf.String(), in)
		want := c.EvalBits(words)
		for j := range nodes {
			name := "o_y_" + strconv.Itoa(j)
			if got[name] != (want[j]&1 == 1) {
				t.Errorf("input %04b: BLIF output %s = %v, evaluator says %v", v, name, got[name], want[j]&1 == 1)
			}
		}
	}
}
