package ir

// Shared-select multiplexers (docs/fhew-cmux-map.md). On FHEW a MUX costs
// two gate bootstraps, but many MUXes share their select bit. A circuit
// bootstrap turns the select once into an RGSW ciphertext, and every MUX on
// it is then a CMux (an external product, no bootstrap):
//
//   - OpSel: In = [x]. Its value is x; a backend evaluates it as x's
//     ciphertext plus the select form (FHEW: a circuit bootstrap, so it is
//     bootstrapped and costs the target's SelectBootstraps).
//   - OpCMux: In = [an OpSel node, a, b]. Its value is In[0] ? a : b, i.e.
//     MUX(x, a, b) for the OpSel's input x. It is not bootstrapped: its
//     output carries its data inputs' noise plus the CMux's own, so chains
//     of CMuxes need an occasional refresh (the mapper inserts them).
//
// Every plaintext evaluator treats OpSel as the identity and OpCMux as
// OpMux, so they are exact without knowing about selects; exporters lower
// them the same way. Verify checks that a CMux reads an OpSel first.

// Sel returns an OpSel node on x (hashed: one per x).
func (b *Builder) Sel(x NodeID) NodeID {
	return b.hashed(nodeKey{op: OpSel, in: [MaxLUTInputs]NodeID{x}, n: 1},
		func() Node { return Node{Op: OpSel, In: []NodeID{x}} })
}

// CMux returns sel ? a : b for an OpSel node sel (a CMux on its select
// form). It folds a == b to a and is hashed; sel must be an OpSel node
// (Build's Verify rejects anything else).
func (b *Builder) CMux(sel, a, f NodeID) NodeID {
	if a == f && !b.noFold {
		return a
	}
	return b.hashed(nodeKey{op: OpCMux, in: [MaxLUTInputs]NodeID{sel, a, f}, n: 3},
		func() Node { return Node{Op: OpCMux, In: []NodeID{sel, a, f}} })
}

// verifySel checks the OpCMux rule above for node i ("" when it holds or
// the node is of another op).
func verifySel(c *Circuit, i int) string {
	nd := &c.Nodes[i]
	if nd.Op != OpCMux || len(nd.In) != 3 {
		return ""
	}
	if r := nd.In[0]; r < 0 || int(r) >= i || c.Nodes[r].Op != OpSel {
		return "does not read a preceding SEL node first"
	}
	return ""
}
