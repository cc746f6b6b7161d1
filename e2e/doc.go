// Package e2e tests the built codexhost binary as real processes: `codexhost serve` on a
// throwaway home, with the real Codex App Server talking to a fake model, driven by CLI
// processes the way agents, harness commands and scripts run them. Tests carry the id of the
// seed scenario they prove (S000-NN) in their name or in a comment above them.
package e2e
