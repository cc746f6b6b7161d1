// Package config reads and writes the home's config.toml.
package config

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/codexhost/codexhost/internal/atomicfile"
	"github.com/codexhost/codexhost/model"
)

// FileName is the config file inside CODEXHOST_HOME.
const FileName = "config.toml"

// DefaultDedupeWindow is how long a repeated delegation (same origin, harness and task) returns
// the first child when no request id is given.
const DefaultDedupeWindow = 30 * time.Second

// Duration is a time.Duration written as a Go duration string ("30s", "10m").
type Duration struct{ time.Duration }

// UnmarshalText parses "30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (use forms like 30s, 10m, 1h)", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes "30s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Harness is an external harness: a command run once per turn.
type Harness struct {
	Command []string          `toml:"command"`
	Cwd     string            `toml:"cwd,omitempty"`
	Env     map[string]string `toml:"env,omitempty"`
	Timeout Duration          `toml:"timeout,omitempty"`
	// AllowSandboxedCallers lets a thread confined by Codex's sandbox create threads on this
	// harness, whose commands codexhost cannot confine: the operator's opt-in.
	AllowSandboxedCallers bool `toml:"allow_sandboxed_callers,omitempty"`
	// EnvPassthrough names variables of the runtime's environment the harness's turns get
	// beyond the whitelist ("AWS_*" for a prefix); the model key only if named here.
	EnvPassthrough []string `toml:"env_passthrough,omitempty"`
	// What `harness inspect` reports and `delegate start --thinking` is checked against
	// (harness_models.go).
	Models          []HarnessModel `toml:"models,omitempty"`
	DefaultModel    string         `toml:"default_model,omitempty"`
	Thinking        []string       `toml:"thinking,omitempty"`
	DefaultThinking string         `toml:"default_thinking,omitempty"`
}

// Client is a named external client; only the SHA-256 of its token is kept.
//
// Scopes grant the operator methods of the fleet catalog (see Scope*). A client without a
// `scopes` key has none of them: scripts and bots made before scopes existed keep delegation
// and their other methods but cannot list, read or change Codex sessions until given a scope.
// The home's operator client (OperatorClient) is the exception: it is created with every
// scope, and one written before scopes existed is read as having them (Config.Grant).
//
// AllowRawTranscripts and AllowWriteControls (both off by default) gate what a client may do
// through the catalog beyond listing, on top of its scopes: every external client may be a
// tool handed to an agent, so write actions (archive, continue) need AllowWriteControls as
// well as operator.write. The catalog's transcripts serve only user and assistant message
// text, which operator.read grants; AllowRawTranscripts gates the compat tools' session read
// and list previews, and AllowWriteControls their steer and interrupt (runtime/compat).
type Client struct {
	TokenSHA256         string   `toml:"token_sha256"`
	Scopes              []string `toml:"scopes,omitempty"`
	AllowRawTranscripts bool     `toml:"allowRawTranscripts,omitempty"`
	AllowWriteControls  bool     `toml:"allowWriteControls,omitempty"`
	// Node marks a paired gateway's token: it may call only the node methods (node.*), and
	// nothing else of this runtime. Making one is how this machine opts in to being a node.
	Node bool `toml:"node,omitempty"`
}

// Operator scopes, from least to most: each grants what the ones before it grant.
const (
	// ScopeRead lists hosts and sessions and reads transcripts.
	ScopeRead = "operator.read"
	// ScopeWrite adds the local write actions: continue of a local source and archive.
	ScopeWrite = "operator.write"
	// ScopeAdmin adds continue of a paired node's thread.
	ScopeAdmin = "operator.admin"
)

// OperatorScopes are the known scopes, least first.
var OperatorScopes = []string{ScopeRead, ScopeWrite, ScopeAdmin}

// ValidScope reports whether s is a known scope name.
func ValidScope(s string) bool { return slices.Contains(OperatorScopes, s) }

// Grant is what one client may do through the catalog.
type Grant struct {
	Scopes              []string
	AllowRawTranscripts bool
	AllowWriteControls  bool
}

// Has reports whether the grant holds scope, directly or through a higher one.
func (g Grant) Has(scope string) bool {
	want := slices.Index(OperatorScopes, scope)
	if want < 0 {
		return false
	}
	for _, s := range g.Scopes {
		if slices.Index(OperatorScopes, s) >= want {
			return true
		}
	}
	return false
}

// OperatorGrant is the grant of the home's operator client: every scope and both controls.
func OperatorGrant() Grant {
	return Grant{Scopes: slices.Clone(OperatorScopes), AllowRawTranscripts: true, AllowWriteControls: true}
}

// Grant returns what the named client may do; an unknown client may do nothing. The
// operator client without a `scopes` key (written before scopes existed) holds the operator
// grant: its token is the home's own credential. (An empty list is not kept in the file, so
// it reads the same.)
func (c *Config) Grant(name string) Grant {
	cl, ok := c.Clients[name]
	if name == OperatorClient && len(cl.Scopes) == 0 {
		// The operator needs no entry: the home's socket recognises it (runtime/auth).
		return OperatorGrant()
	}
	if !ok {
		return Grant{}
	}
	return Grant{Scopes: slices.Clone(cl.Scopes), AllowRawTranscripts: cl.AllowRawTranscripts, AllowWriteControls: cl.AllowWriteControls}
}

// Delegate tunes delegation.
type Delegate struct {
	DedupeWindow Duration `toml:"dedupe_window,omitempty"`
}

// AppServer tunes the native harness.
type AppServer struct {
	// Passthrough names extra environment variables the App Server may see.
	Passthrough []string `toml:"env_passthrough,omitempty"`
	// ThreadTools attaches codexhost's MCP server to every native thread codexhost starts,
	// so its model can delegate, read and wait within a turn (runtime/mcp/threadtools.go).
	ThreadTools bool `toml:"thread_tools,omitempty"`
	// Approval is the approval policy of native threads started without --approval
	// (model.ApprovalPolicies); "" is never.
	Approval string `toml:"approval,omitempty"`
}

// Catalog lists the Codex homes the fleet catalog shows besides the default one.
type Catalog struct {
	// CodexHomes are absolute paths of extra Codex homes; each becomes a host of its own
	// whose id is derived from the path, so the path itself is never shown.
	CodexHomes []string `toml:"codex_homes,omitempty"`
}

// MaxCatalogHomes bounds the extra Codex homes: each may run an App Server of its own.
const MaxCatalogHomes = 32

// Config is config.toml.
type Config struct {
	CodexBin  string             `toml:"codex_bin,omitempty"`
	Delegate  Delegate           `toml:"delegate,omitempty"`
	AppServer AppServer          `toml:"appserver,omitempty"`
	Catalog   Catalog            `toml:"catalog,omitempty"`
	Harnesses map[string]Harness `toml:"harnesses,omitempty"`
	Clients   map[string]Client  `toml:"clients,omitempty"`
	Node      NodeServe          `toml:"node,omitempty"`
	Nodes     map[string]Node    `toml:"nodes,omitempty"`
	Gateway   Gateway            `toml:"gateway,omitempty"`
	Keys      map[string]any     `toml:"keys,omitempty"`

	// CompatTools is the policy of the agent-facing compat tools (compattools.go). Its table
	// keeps the name [supervision] that config files already use.
	CompatTools CompatTools `toml:"supervision,omitempty"`

	// Handoff is the policy of handoffs and their tasks (handoff.go).
	Handoff Handoff `toml:"handoff,omitempty"`
	// Markers tunes marker blocks (markers.go).
	Markers Markers `toml:"markers,omitempty"`
	// Approvals says who answers native threads' approval requests, and how long they wait.
	Approvals Approvals `toml:"approvals,omitempty"`
	// Usage holds optional prices of token usage (usage.go).
	Usage Usage `toml:"usage,omitempty"`
}

// Approvals tunes the approval requests of threads that run with an approval policy.
type Approvals struct {
	// Owner is the only client (or "operator") besides the operator who may answer; "" lets
	// the first answering client of the thread's principal take it.
	Owner string `toml:"owner,omitempty"`
	// Timeout is how long a request waits before it is declined (default 10 minutes).
	Timeout Duration `toml:"timeout,omitempty"`
}

// The patterns are compiled on first use: a bounded repeat compiles into a long program,
// which every command of the binary would otherwise pay for at start.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`) })

// ValidName reports whether s can name a harness or a client.
func ValidName(s string) bool { return namePattern().MatchString(s) }

// Load reads home/config.toml; a missing file is an empty config.
func Load(home string) (*Config, error) {
	path := filepath.Join(home, FileName)
	cfg := &Config{}
	b, fi, err := readConfigFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, err
	}
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		return nil, model.Errorf(model.CodeInvalidArgument, "fix the syntax of "+path, "config: %v", err)
	}
	if err := refuseLegacy(md, path); err != nil {
		return nil, err // before the mode: the migration that fixes it also makes it 0600
	}
	if err := checkPrivate(path, fi); err != nil {
		return nil, err
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		return nil, model.Errorf(model.CodeInvalidArgument, "remove or correct them in "+path, "config: unknown keys %v", keys)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Validate checks names and commands.
func (c *Config) Validate() error {
	for name, h := range c.Harnesses {
		if !ValidName(name) || name == model.NativeHarness {
			return model.Errorf(model.CodeInvalidArgument, "harness names are lowercase letters, digits, - and _; `codex` is reserved", "config: invalid harness name %q", name)
		}
		if len(h.Command) == 0 || h.Command[0] == "" {
			return model.Errorf(model.CodeInvalidArgument, `set command = ["program", "arg", ...]`, "config: harness %q has no command", name)
		}
		if h.Timeout.Duration < 0 {
			return model.Errorf(model.CodeInvalidArgument, "use a positive duration such as 10m", "config: harness %q has a negative timeout", name)
		}
		if err := validateHarnessModels(name, h); err != nil {
			return err
		}
	}
	for name, cl := range c.Clients {
		if !ValidName(name) {
			return model.Errorf(model.CodeInvalidArgument, "client names are lowercase letters, digits, - and _", "config: invalid client name %q", name)
		}
		if len(cl.TokenSHA256) != 64 {
			return model.Errorf(model.CodeInvalidArgument, "recreate it with `codexhost client add "+name+"`", "config: client %q has a malformed token_sha256", name)
		}
		for _, sc := range cl.Scopes {
			if !ValidScope(sc) {
				return model.Errorf(model.CodeInvalidArgument, "use scopes from "+strings.Join(OperatorScopes, ", "), "config: client %q has an unknown scope %q", name, sc)
			}
		}
	}
	if c.Delegate.DedupeWindow.Duration < 0 {
		return model.Errorf(model.CodeInvalidArgument, "use a duration such as 30s", "config: delegate.dedupe_window is negative")
	}
	if err := c.validateNodes(); err != nil {
		return err
	}
	if err := c.validateCompatTools(); err != nil {
		return err
	}
	if err := c.validateHandoff(); err != nil {
		return err
	}
	if err := c.validateUsage(); err != nil {
		return err
	}
	if err := c.validateMarkers(); err != nil {
		return err
	}
	if err := c.validateApprovals(); err != nil {
		return err
	}
	return c.validateCatalog()
}

// validateCatalog checks catalog.codex_homes. Entries are named by position, never by value:
// the paths of Codex homes stay out of every message.
func (c *Config) validateCatalog() error {
	homes := c.Catalog.CodexHomes
	if len(homes) > MaxCatalogHomes {
		return model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("list at most %d extra Codex homes", MaxCatalogHomes), "config: catalog.codex_homes has %d entries", len(homes))
	}
	seen := make(map[string]int, len(homes))
	for i, h := range homes {
		if h == "" || !filepath.IsAbs(h) || strings.ContainsRune(h, 0) {
			return model.Errorf(model.CodeInvalidArgument, "give each Codex home as an absolute path", "config: catalog.codex_homes[%d] is not an absolute path", i)
		}
		clean := filepath.Clean(h)
		if j, dup := seen[clean]; dup {
			return model.Errorf(model.CodeInvalidArgument, "list each Codex home once", "config: catalog.codex_homes[%d] repeats catalog.codex_homes[%d]", i, j)
		}
		seen[clean] = i
	}
	return nil
}

// DedupeWindow is the configured window or the default.
func (c *Config) DedupeWindow() time.Duration {
	if c.Delegate.DedupeWindow.Duration > 0 {
		return c.Delegate.DedupeWindow.Duration
	}
	return DefaultDedupeWindow
}

// HarnessNames lists the external harnesses in order.
func (c *Config) HarnessNames() []string {
	names := make([]string, 0, len(c.Harnesses))
	for n := range c.Harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Save writes config.toml atomically with mode 0600, under the config lock. A caller that
// read the config first must use Update instead, or another writer's change between its read
// and this write is lost. A previous file whose comments the rewrite drops is kept beside it
// (see keepPrevious).
func Save(home string, c *Config) error {
	unlock, err := lockConfig(home)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = save(home, c)
	return err
}

// save replaces config.toml: a 0600 temporary file beside it, synced, renamed over it, and
// the directory synced so the rename survives a crash. The caller holds the config lock. When
// the rewrite drops comments of the previous file, that file is kept first and its path
// returned.
func save(home string, c *Config) (kept string, err error) {
	var buf bytes.Buffer
	buf.WriteString(header + "\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return "", err
	}
	path := filepath.Join(home, FileName)
	old, err := readPrevious(path)
	if err != nil {
		return "", err
	}
	if droppedComments(old, buf.Bytes()) {
		if kept, err = keepPrevious(home, old, time.Now()); err != nil {
			return "", err
		}
	}
	return kept, atomicfile.Write(path, buf.Bytes())
}

// NewToken returns a random token (256 bits, hex).
func NewToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// OperatorClient is the home's own operator client. Its token lives in the home (0600), so
// whoever holds it owns the home and its config.toml; a runtime therefore trusts it, and only
// it, to forward requests on behalf of other clients (runtime.forward).
const OperatorClient = "local"

// HashToken is the stored form of a client token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// MatchClient returns the client whose token this is. Every configured hash is compared in
// constant time, so timing reveals neither which client nor how much matched.
func (c *Config) MatchClient(token string) (string, bool) {
	got := HashToken(token)
	match := ""
	for name, cl := range c.Clients {
		if subtle.ConstantTimeCompare([]byte(got), []byte(cl.TokenSHA256)) == 1 {
			match = name
		}
	}
	return match, match != ""
}

// RefuseReservedName refuses the name of the home's operator client for a client made by
// hand (`client add`, `node allow`): the operator commands make that one, with its token file.
func RefuseReservedName(name string) error {
	if name == OperatorClient {
		return model.Errorf(model.CodeInvalidArgument, "choose another name; the operator commands make and use it by themselves",
			"the client name %q is reserved for the home's operator client", name)
	}
	return nil
}

// AddClient creates a client token, stores its hash and returns the token (shown once). The
// client gets the grant g; the zero Grant is no operator scope and neither control.
func (c *Config) AddClient(name string, g Grant) (string, error) {
	if !ValidName(name) {
		return "", model.Errorf(model.CodeInvalidArgument, "use lowercase letters, digits, - and _ (start with a letter)", "invalid client name %q", name)
	}
	var scopes []string
	for _, sc := range g.Scopes {
		if !ValidScope(sc) {
			return "", model.Errorf(model.CodeInvalidArgument, "use scopes from "+strings.Join(OperatorScopes, ", "), "unknown scope %q", sc)
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if _, ok := c.Clients[name]; ok {
		return "", model.Errorf(model.CodeFailedPrecondition, "choose another name, or remove ["+"clients."+name+"] from config.toml first", "client %q already exists", name)
	}
	token := NewToken()
	if c.Clients == nil {
		c.Clients = map[string]Client{}
	}
	c.Clients[name] = Client{TokenSHA256: HashToken(token), Scopes: scopes, AllowRawTranscripts: g.AllowRawTranscripts, AllowWriteControls: g.AllowWriteControls}
	return token, nil
}

// validateApprovals checks [appserver] approval and [approvals].
func (c *Config) validateApprovals() error {
	if a := c.AppServer.Approval; a != "" && !slices.Contains(model.ApprovalPolicies, a) {
		return model.Errorf(model.CodeInvalidArgument, "set appserver.approval to one of "+strings.Join(model.ApprovalPolicies, ", "), "config: unknown approval policy %q", a)
	}
	if c.Approvals.Timeout.Duration < 0 {
		return model.Errorf(model.CodeInvalidArgument, "use a duration such as 10m", "config: approvals.timeout is negative")
	}
	if o := c.Approvals.Owner; o != "" && o != "operator" && !ValidName(o) {
		return model.Errorf(model.CodeInvalidArgument, "name a client of [clients], or operator", "config: approvals.owner %q is not a client name", o)
	}
	return nil
}
