package ir

// EvalGate applies one gate op to 64 lanes of fanin values (in[j] holds
// fanin j, lane l in bit l). Backends' plaintext test doubles and the
// optimizer use it to evaluate a single node with the reference semantics.
// It panics on constants, inputs and invalid ops, which have no fanins to apply.
func EvalGate(op Op, table uint64, in []uint64) uint64 {
	switch op {
	case OpNot:
		return ^in[0]
	case OpSel:
		return in[0]
	case OpAnd:
		return in[0] & in[1]
	case OpOr:
		return in[0] | in[1]
	case OpXor:
		return in[0] ^ in[1]
	case OpNand:
		return ^(in[0] & in[1])
	case OpNor:
		return ^(in[0] | in[1])
	case OpXnor:
		return ^(in[0] ^ in[1])
	case OpAndNY:
		return in[0] &^ in[1]
	case OpMux, OpCMux:
		return (in[0] & in[1]) | (^in[0] & in[2])
	case OpLUT, OpMLUT:
		return EvalTable(table, in)
	case OpMOut:
		return EvalTable(table, in[1:])
	case OpParity:
		var v uint64
		for _, x := range in {
			v ^= x
		}
		return v
	}
	panic("ir: EvalGate on " + op.String())
}
