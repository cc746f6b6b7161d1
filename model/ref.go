package model

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Limits on the refs of one thread.
const (
	MaxRefsPerThread = 16
	MaxRefLength     = 2048 // characters (runes) of one ref as given
)

const refHint = "a ref is an absolute URI such as https://github.com/o/r/issues/12: a scheme, no whitespace, at most 2048 characters"

// credentialParams names query and fragment parameters whose values are credentials, in
// canonical form (see canonicalParam): lowercase, without '-' and '_', so access_token,
// Access-Token and accessToken all match "accesstoken". The list covers OAuth (access, id and
// refresh tokens, authorization codes, client secrets, OAuth 1 tokens), API keys, passwords,
// signed-URL signatures and credentials of S3 (X-Amz-*), Google Cloud Storage (X-Goog-*) and
// Azure SAS (sig), and session tokens. Names as generic as "key" and "code" are included on
// purpose: dropping a harmless parameter only loses a detail of a link, keeping a credential
// stores a secret.
// Built on first use: a package-level map or regexp is built by every process at start.
var credentialParams = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"token": true, "accesstoken": true, "idtoken": true, "refreshtoken": true, "authtoken": true,
		"apitoken": true, "privatetoken": true, "oauthtoken": true, "oauthtokensecret": true,
		"sessiontoken": true, "securitytoken": true, "sessionid": true, "jwt": true, "bearer": true,
		"password": true, "passwd": true, "pwd": true,
		"secret": true, "clientsecret": true, "apisecret": true,
		"key": true, "apikey": true, "accesskey": true, "secretkey": true, "privatekey": true,
		"sig": true, "signature": true,
		"auth": true, "authorization": true, "credential": true, "credentials": true, "code": true,
		"xamzsignature": true, "xamzcredential": true, "xamzsecuritytoken": true,
		"xgoogsignature": true, "xgoogcredential": true,
	}
})

// addressSchemes are the schemes whose opaque part is an address with an '@' in it
// (mailto:dev@example.com), not user info.
// Built on first use: a package-level map or regexp is built by every process at start.
var addressSchemes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"mailto": true, "xmpp": true, "sip": true, "sips": true, "im": true, "pres": true}
})

// NormalizeRef validates a ref and returns the form that is stored and compared: the scheme and
// host in lowercase, without user info and without credential parameters in the query or the
// fragment (see credentialParams). Everything else is kept byte for byte, in its order, so the
// stored ref still opens the same page; the result is never longer than the input and
// NormalizeRef of a result returns it unchanged. Surrounding whitespace is ignored.
func NormalizeRef(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", Errorf(CodeInvalidArgument, refHint, "ref is empty")
	}
	if n := utf8.RuneCountInString(s); n > MaxRefLength {
		return "", refError(s, fmt.Sprintf("is %d characters long; the limit is %d", n, MaxRefLength))
	}
	for _, r := range s {
		// Whitespace, controls and invisible format characters (bidi overrides, zero-width
		// spaces) have no place in a URI and make a displayed ref lie about its target.
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", refError(s, "contains whitespace, a control character or invalid UTF-8")
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", refError(s, "is not a valid URI")
	}
	switch {
	case u.Scheme == "":
		return "", refError(s, "is not an absolute URI (it has no scheme)")
	case len(u.Scheme) == 1:
		// No URI scheme has one letter; this is a Windows drive (C:\…), a path in disguise.
		return "", refError(s, "looks like a file path, not a URI (write it as file:///…)")
	case u.Host == "" && u.Path == "" && u.Opaque == "":
		return "", refError(s, "has nothing after its scheme")
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return "", refError(s, "has no host")
	case u.Opaque != "" && strings.Contains(u.Opaque, "@") && !addressSchemes()[u.Scheme]:
		// "alice:secret@host/x" parses as scheme "alice" with an opaque part: user info whose
		// "//" went missing. Stripping cannot tell it apart, so it is refused.
		return "", refError(s, `looks like user info without "//" (write scheme://host/…)`)
	}
	return stripRef(s), nil
}

// ValidateRefs normalises the refs given for a thread without a parent: see MergeRefs.
func ValidateRefs(own []string) ([]string, error) {
	return MergeRefs(nil, own)
}

// MergeRefs returns the refs of a new thread: the refs inherited from its parent, then its
// own, each normalised, duplicates dropped at their later occurrence. A parent with A
// delegating with B gives A, B; with A again gives A. The result is never nil, so a thread
// without refs reports an empty list. Inherited refs were normalised when stored; they are
// normalised again so that a credential parameter recognised since then is not passed on.
func MergeRefs(inherited, own []string) ([]string, error) {
	out := make([]string, 0, len(inherited)+len(own))
	seen := make(map[string]bool, len(inherited)+len(own))
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, r := range inherited {
		n, err := NormalizeRef(r)
		if err != nil {
			// The caller cannot fix its parent's stored refs, so this is not its argument error.
			return nil, Errorf(CodeFailedPrecondition,
				"delegate without --parent-thread, or report this: stored refs should always be valid",
				"a ref inherited from the parent thread is invalid: %s", AsError(err).Message)
		}
		add(n)
	}
	inheritedCount := len(out)
	for i, r := range own {
		n, err := NormalizeRef(r)
		if err != nil {
			return nil, AsError(err).WithDetail("index", i)
		}
		add(n)
	}
	if len(out) > MaxRefsPerThread {
		return nil, Errorf(CodeInvalidArgument, "pass fewer --ref values; inherited refs count toward the limit",
			"a thread can carry at most %d refs; this one would carry %d (%d inherited, %d own after removing duplicates)",
			MaxRefsPerThread, len(out), inheritedCount, len(out)-inheritedCount).
			WithDetail("limit", MaxRefsPerThread).WithDetail("count", len(out))
	}
	return out, nil
}

// refError reports an invalid ref. The echoed input has its credentials stripped too: error
// messages end up on stderr and in logs, where a password must not appear either.
func refError(s, problem string) *Error {
	r := stripRef(s)
	// A rejected ref may hide user info where stripRef does not look for it, before "//" went
	// missing ("alice:secret@host/x"): mask whatever precedes an '@' in the leading segment.
	end := strings.IndexAny(r, "/?#")
	if end < 0 {
		end = len(r)
	}
	if i := strings.LastIndexByte(r[:end], '@'); i >= 0 {
		r = "…" + r[i:]
	}
	return Errorf(CodeInvalidArgument, refHint, "ref %s %s", echo(r), problem)
}

// stripRef removes user info and credential parameters from s and lowercases its scheme and
// host, leaving every other byte as it was. It splits s exactly as net/url.Parse does (fragment
// at the first '#', query at the first '?', authority after "//" up to the next '/', user info
// up to the last '@' of the authority), so what it removes is what Parse would have reported
// as user info, query and fragment. It works on any string, valid or not, so that error
// messages can use it too.
func stripRef(s string) string {
	rest, frag, hasFrag := strings.Cut(s, "#")

	var b strings.Builder
	b.Grow(len(s))
	if scheme, after, ok := splitScheme(rest); ok {
		b.WriteString(strings.ToLower(scheme))
		b.WriteByte(':')
		rest = after
	}

	rest, query, hasQuery := strings.Cut(rest, "?")
	if strings.HasPrefix(rest, "//") {
		authority, path := rest[2:], ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, path = authority[:i], authority[i:]
		}
		if i := strings.LastIndexByte(authority, '@'); i >= 0 {
			authority = authority[i+1:]
		}
		b.WriteString("//")
		b.WriteString(lowerASCII(authority))
		b.WriteString(path)
	} else {
		b.WriteString(rest)
	}

	if hasQuery {
		if q, removed := stripParams(query); !removed || q != "" {
			b.WriteByte('?')
			b.WriteString(q)
		}
	}
	if hasFrag {
		if f, removed := stripParams(frag); !removed || f != "" {
			b.WriteByte('#')
			b.WriteString(f)
		}
	}
	return b.String()
}

// splitScheme splits "scheme:rest" the way net/url does: a letter, then letters, digits, '+',
// '-' or '.', up to the first ':'.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", s, false
			}
		case c == ':':
			if i == 0 {
				return "", s, false
			}
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// stripParams drops the name=value pairs of a query or fragment whose name is a credential
// parameter. Pairs are split at '&' and ';' (both have served as separators); each kept pair
// keeps the separator that preceded it, so a second pass changes nothing. A name without '='
// carries no value and is kept: in a fragment it is usually an anchor (#token is a heading).
func stripParams(s string) (kept string, removed bool) {
	var b strings.Builder
	wrote := false
	start, sep := 0, byte(0)
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '&' && s[i] != ';' {
			continue
		}
		pair := s[start:i]
		if name, _, hasValue := strings.Cut(pair, "="); hasValue && credentialParams()[canonicalParam(name)] {
			removed = true
		} else {
			if wrote {
				b.WriteByte(sep)
			}
			b.WriteString(pair)
			wrote = true
		}
		if i < len(s) {
			sep = s[i]
		}
		start = i + 1
	}
	return b.String(), removed
}

// canonicalParam decodes a parameter name and folds case and the '-' / '_' spellings, so that
// percent-encoding or a different convention does not hide a credential.
func canonicalParam(name string) string {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	return paramSpelling().Replace(strings.ToLower(name))
}

// Built on first use: a package-level map or regexp is built by every process at start.
var paramSpelling = sync.OnceValue(func() *strings.Replacer { return strings.NewReplacer("-", "", "_", "") })

// lowerASCII lowercases ASCII letters only: hosts compare case-insensitively, and leaving other
// bytes alone keeps the length and any percent-encoding intact.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
