package appserver

// PinnedVersion is the @openai/codex release codexhost is built and tested against. It is
// pinned here alone: scripts/install-codex.sh reads it from this line, and the copies the
// locator looks for live under directories named for it.
const PinnedVersion = "0.169.0"
