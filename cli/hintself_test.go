package cli

// The in-process tests run hinted commands through this package, not through the test binary.
func init() { hintSelf = func() string { return "codexhost" } }
