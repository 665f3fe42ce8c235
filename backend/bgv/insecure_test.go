package bgv

// The package's own tests use the Toy sets freely (product code never
// sets this; see insecureAllowedInTests).
func init() { insecureAllowedInTests = true }
