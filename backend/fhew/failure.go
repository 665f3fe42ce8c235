package fhew

import (
	"fmt"
	"math"

	"github.com/hcc-fhe/hcc/ir"
)

// Failure probability of a whole circuit: every bootstrap decides wrongly
// with the Gaussian tail probability of its input noise beyond the margin
// d/(2P) (noise.go; d > 1 for even weights, parity.go), and the probability that some bootstrap of the run
// fails is at most the sum over bootstraps (union bound). That sum is what
// `hcc run` can print next to a result.
//
// A bootstrap's input noise is Σ_src (Σ w_i·±1)²·Var(src) + key switching +
// rounding, where src ranges over the ciphertexts the inputs come from
// through chains of free NOTs (a NOT negates the noise): a bootstrapped
// output (variance NoiseModel.Output), a fresh encryption (σ² at Q_ks) or a
// constant (noiseless). Grouping by source matters when one ciphertext
// reaches a gate twice: AND(x, x) sees (1+1)² = 4 times x's variance, not 2,
// and XOR(x, NOT x) none at all.

// CircuitFailure is the predicted failure of one encrypted run of a circuit.
type CircuitFailure struct {
	// Bootstraps is the number of bootstraps the run performs.
	Bootstraps int
	// Log2Failure is log2 of Σ over bootstraps (and the decryptions of
	// CMux outputs, which no bootstrap refreshed) of their failure
	// probabilities, an upper bound on the probability that any output is
	// wrong; -Inf when the circuit has no bootstraps.
	Log2Failure float64
	// WorstLog2 is the largest single-bootstrap failure (log2) and
	// WorstNode the node it belongs to (-1 without bootstraps).
	WorstLog2 float64
	WorstNode ir.NodeID
}

// noiseSource is where a ciphertext's noise comes from: a node whose
// output is a fresh bootstrap or encryption (id), with the sign NOTs give
// it; id < 0 for noiseless constants.
type noiseSource struct {
	id   ir.NodeID
	sign int
}

// opGate maps a two-input ir op to the evaluator's gate.
var opGate = map[ir.Op]int{
	ir.OpAnd: gateAND, ir.OpNand: gateNAND, ir.OpOr: gateOR, ir.OpNor: gateNOR,
	ir.OpXor: gateXOR, ir.OpXnor: gateXNOR, ir.OpAndNY: gateANDNY,
}

// CircuitFailure returns the predicted failure of running c on p with the
// Backend (same bootstraps and weights: MUX in one or two, gates, LUTs and
// PARITY in one, even weights with the wide margin). It fails on a
// LUT that one bootstrap cannot evaluate on p and on ops it does not know.
func (p Params) CircuitFailure(c *ir.Circuit) (CircuitFailure, error) {
	return p.circuitFailure(c, nil)
}

// circuitFailure is CircuitFailure; if perNode is not nil (one entry per
// node, initialised by the caller) it also records each node's largest
// single-bootstrap failure (log2).
func (p Params) circuitFailure(c *ir.Circuit, perNode []float64) (CircuitFailure, error) {
	m := p.Noise()
	fresh := p.lit.Sigma * p.lit.Sigma / float64(p.qks) / float64(p.qks)
	variance := make([]float64, len(c.Nodes)) // of each node that is a source
	src := make([]noiseSource, len(c.Nodes))
	res := CircuitFailure{Log2Failure: math.Inf(-1), WorstLog2: math.Inf(-1), WorstNode: -1}
	var sumTop, sumScaled float64 // Σ 2^l = 2^sumTop · sumScaled
	// decide adds one decision's failure l (log2) to the union bound;
	// add counts it as a bootstrap of node id.
	decide := func(l float64, id ir.NodeID) {
		if perNode != nil {
			perNode[id] = max(perNode[id], l)
		}
		if l > res.WorstLog2 {
			res.WorstLog2, res.WorstNode = l, id
		}
		switch {
		case sumScaled == 0:
			sumTop, sumScaled = l, 1
		case l > sumTop:
			sumScaled = sumScaled*math.Exp2(sumTop-l) + 1
			sumTop = l
		default:
			sumScaled += math.Exp2(l - sumTop)
		}
	}
	add := func(l float64, id ir.NodeID) {
		res.Bootstraps++
		decide(l, id)
	}
	// gate returns log2 P(failure) of one bootstrap on Σ w_i·in_i, where
	// the inputs are the noise sources ins.
	var terms [ir.MaxParityInputs + 1]struct {
		id ir.NodeID
		w  int
	}
	gate := func(weights []int, ins []noiseSource) float64 {
		nt := 0
		for i, s := range ins {
			if s.id < 0 || weights[i] == 0 {
				continue
			}
			j := 0
			for j < nt && terms[j].id != s.id {
				j++
			}
			if j == nt {
				terms[j].id, terms[j].w = s.id, 0
				nt++
			}
			terms[j].w += s.sign * weights[i]
		}
		v := m.KeySwitch + m.Rounding
		for _, t := range terms[:nt] {
			v += float64(t.w*t.w) * variance[t.id]
		}
		d := float64(marginFactor(p.slots, weights))
		return log2GaussTail(d * p.margin() / math.Sqrt(v))
	}
	var ins [ir.MaxParityInputs]noiseSource
	for i := range c.Nodes {
		n := &c.Nodes[i]
		id := ir.NodeID(i)
		x := ins[:len(n.In)]
		for j, f := range n.In {
			x[j] = src[f]
		}
		switch n.Op {
		case ir.OpConst0, ir.OpConst1:
			src[i] = noiseSource{id: -1}
			continue
		case ir.OpInput:
			src[i], variance[i] = noiseSource{id: id, sign: 1}, fresh
			continue
		case ir.OpNot:
			src[i] = noiseSource{id: x[0].id, sign: -x[0].sign}
			continue
		case ir.OpMux:
			if pl := findPlan(p.slots, muxTable, 3); pl.ok {
				add(gate(pl.spec.Weights, x), id)
				break
			}
			// Evaluator.MUX: t = s AND a (a bootstrap of its own), then one
			// bootstrap on (t, s, b). t's noise source is this node's first
			// bootstrap, which nothing else sees.
			add(gate(gatePlan(p, gateAND).spec.Weights, x[:2]), id)
			variance[i] = m.Output
			add(gate(gatePlan(p, gateMUX2).spec.Weights, []noiseSource{{id: id, sign: 1}, x[0], x[2]}), id)
		case ir.OpLUT:
			pl := findPlan(p.slots, n.Table, len(n.In))
			if !pl.ok {
				return res, fmt.Errorf("fhew: node %d: LUT%d %#x needs more than one bootstrap on %s", i, len(n.In), n.Table, p.lit.Name)
			}
			add(gate(pl.spec.Weights, x), id)
		case ir.OpMLUT:
			pl := findMultiPlan(p.slots, n.Table, len(n.In))
			if !pl.ok {
				return res, fmt.Errorf("fhew: node %d: MLUT%d %#x shares no weighted sum on %s", i, len(n.In), n.Table, p.lit.Name)
			}
			add(gate(pl.spec.Weights, x), id)
			src[i], variance[i] = noiseSource{id: id, sign: 1}, p.multiOutputVar(pl, n)
			continue
		case ir.OpMOut: // an extraction: no decision of its own
			pl := findMultiPlan(p.slots, c.Nodes[n.In[0]].Table, len(n.In)-1)
			if !pl.ok {
				return res, fmt.Errorf("fhew: node %d: MOUT of an MLUT that shares no weighted sum on %s", i, p.lit.Name)
			}
			src[i], variance[i] = noiseSource{id: id, sign: 1}, p.multiOutputVar(pl, n)
			continue
		case ir.OpSel, ir.OpCMux:
			if !p.HasCMux() {
				return res, fmt.Errorf("fhew: node %d: %v needs a set with the CMux gadget, not %s", i, n.Op, p.lit.Name)
			}
			srcVar := func(s noiseSource) float64 {
				if s.id < 0 {
					return 0
				}
				return variance[s.id]
			}
			if n.Op == ir.OpSel {
				// A circuit bootstrap of x; the node's ciphertext is x's copy.
				add(p.SelectFailureLog2(srcVar(x[0])), id)
				src[i] = x[0]
				continue
			}
			// No decision: the output carries the noisier data input's
			// variance plus the CMux's (cmux_noise.go).
			src[i] = noiseSource{id: id, sign: 1}
			variance[i] = max(srcVar(x[1]), srcVar(x[2])) + p.CMuxAddedVariance()
			continue
		case ir.OpParity:
			w := make([]int, len(n.In))
			for j := range w {
				w[j] = p.slots / 2
			}
			add(gate(w, x), id)
		default:
			g, ok := opGate[n.Op]
			if !ok {
				return res, fmt.Errorf("fhew: node %d: cannot evaluate a %v node", i, n.Op)
			}
			add(gate(gatePlan(p, g).spec.Weights, x), id)
		}
		src[i], variance[i] = noiseSource{id: id, sign: 1}, m.Output
	}
	// A CMux output that is a circuit output (directly or through NOTs) is
	// decrypted with the noise its chain accumulated, which no bootstrap
	// checked: the decryption is a decision at margin 1/(2P) like a
	// bootstrap's, so it joins the sum (not the bootstrap count) and the
	// CMux's own perNode entry, which the mapper keeps within bound
	// (optimize's fixCMuxNoise refreshes the chain). Every other output
	// comes from a bootstrap, an encryption or a constant, whose decryption
	// is far more reliable than the bootstraps already counted.
	var decrypted map[ir.NodeID]bool
	for _, bus := range c.Outputs {
		for _, bit := range bus.Bits {
			s := src[bit]
			if s.id < 0 || c.Nodes[s.id].Op != ir.OpCMux || decrypted[s.id] {
				continue
			}
			if decrypted == nil {
				decrypted = map[ir.NodeID]bool{}
			}
			decrypted[s.id] = true
			decide(log2GaussTail(p.margin()/math.Sqrt(variance[s.id])), s.id)
		}
	}
	if sumScaled > 0 {
		res.Log2Failure = sumTop + math.Log2(sumScaled)
	}
	return res, nil
}

// gatePlan is how the Evaluator (and so the Backend) evaluates gate g on p
// (with the wide margin when its weights allow, e.g. XOR on 2, 2 at P = 4).
func gatePlan(p Params, g int) *lutPlan {
	d := gateTables[g]
	pl := findPlan(p.slots, d.table, d.k)
	return &pl
}
