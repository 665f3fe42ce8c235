package stdlib

// Test helpers shared with the external package stdlib_test (hdl_test.go),
// which compiles the HDL library with lang; lang imports stdlib, so those
// tests cannot live in this package.
var (
	EvalVectors   = evalVectors
	AllVectors    = allVectors
	RandomVectors = randomVectors
	AESSBoxTable  = aesSBoxTable
	AndDepth      = andDepth
	SignExtend    = sx
	Mask          = mask
)
