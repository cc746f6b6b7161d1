package harness

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// Tokens mints the CODEXHOST_RUNTIME_TOKEN of each thread's processes and tells, from a
// token, which thread's agent presents it. A token is bound to one thread, so the runtime
// knows which principal an agent acts for; it is a MAC under a secret of this runtime
// process, so nothing needs storing and a token from an earlier runtime (kept in a Codex
// rollout, say) is worthless. A native thread's token must exist before the App Server gives
// the thread its id (it goes into thread/start), so it is minted unbound and bound once the
// id is known.
type Tokens struct {
	secret []byte

	mu      sync.Mutex
	pending map[string]model.ThreadID // nonce -> thread, once bound
	// ended are threads whose tokens no longer open anything: archived while this runtime
	// runs. A token of an ended thread would otherwise live as long as the runtime.
	ended map[model.ThreadID]bool
}

const (
	tokenPrefix   = "cxa1."
	tokenThread   = "t:" // bound at minting, to a known thread
	tokenUnbound  = "n:" // bound later, through its nonce
	tokenProcess  = "p:" // a process that runs threads but acts for none (the App Server)
	maxNonceBinds = 1 << 16
)

// NewTokens makes the tokens of one runtime process.
func NewTokens() *Tokens {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return &Tokens{secret: secret, pending: map[string]model.ThreadID{}}
}

func (t *Tokens) mac(subject string) string {
	m := hmac.New(sha256.New, t.secret)
	m.Write([]byte(subject))
	return hex.EncodeToString(m.Sum(nil))
}

func (t *Tokens) mint(subject string) string { return tokenPrefix + subject + "." + t.mac(subject) }

// ForThread is the token of a thread whose id is known.
func (t *Tokens) ForThread(id model.ThreadID) string { return t.mint(tokenThread + string(id)) }

// ForNew is a token for a thread about to be created; bind names the thread once it is. A
// token never bound is refused.
func (t *Tokens) ForNew() (token string, bind func(model.ThreadID)) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	nonce := hex.EncodeToString(b)
	return t.mint(tokenUnbound + nonce), func(id model.ThreadID) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if len(t.pending) >= maxNonceBinds {
			// Bounded: the oldest bindings belong to threads that get ForThread tokens when
			// they are resumed anyway.
			for k := range t.pending {
				delete(t.pending, k)
				break
			}
		}
		t.pending[nonce] = id
	}
}

// Thread returns the thread a token was minted for; false for anything else (a client token,
// a forged or foreign token, an unbound one).
func (t *Tokens) Thread(token string) (model.ThreadID, bool) {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return "", false
	}
	subject, sum := rest[:i], rest[i+1:]
	if !hmac.Equal([]byte(sum), []byte(t.mac(subject))) {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := strings.CutPrefix(subject, tokenThread); ok && id != "" {
		return model.ThreadID(id), !t.ended[model.ThreadID(id)]
	}
	if nonce, ok := strings.CutPrefix(subject, tokenUnbound); ok {
		id, bound := t.pending[nonce]
		return id, bound && !t.ended[id]
	}
	return "", false
}

// End makes every token of thread id worthless from now on: the thread was archived.
func (t *Tokens) End(id model.ThreadID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended == nil {
		t.ended = map[model.ThreadID]bool{}
	}
	t.ended[id] = true
}

// ForProcess is the token of a process that runs threads but acts for none of them: the App
// Server has the connection parameters (and passes them to what it starts outside a thread's
// tool shell), but they prove no thread, so they reach no principal's threads.
func (t *Tokens) ForProcess() string { return t.mint(tokenProcess + "native") }

// IsProcess reports whether token is a valid ForProcess token of this runtime.
func (t *Tokens) IsProcess(token string) bool {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	return i >= 0 && strings.HasPrefix(rest[:i], tokenProcess) && hmac.Equal([]byte(rest[i+1:]), []byte(t.mac(rest[:i])))
}

// IsAgentToken reports whether token has the form of an agent token (of any runtime).
func IsAgentToken(token string) bool { return strings.HasPrefix(token, tokenPrefix) }
