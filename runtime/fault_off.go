//go:build !faultpoints

package runtime

// faultPoint is nil in normal builds: crash tests build with -tags faultpoints.
var faultPoint func(string)
