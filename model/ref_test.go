package model

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeRef(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain https", "https://github.com/o/r/issues/12", "https://github.com/o/r/issues/12"},
		{"surrounding whitespace", "  https://github.com/o/r/issues/12\n", "https://github.com/o/r/issues/12"},
		{"scheme and host lowercased, path kept", "HTTPS://GitHub.COM/O/R/Issues/12", "https://github.com/O/R/Issues/12"},
		{"port kept", "http://Example.com:8080/x", "http://example.com:8080/x"},
		{"ipv6 host", "http://[::1]:9000/x", "http://[::1]:9000/x"},
		{"query order kept", "https://h/p?z=1&a=2&m=3", "https://h/p?z=1&a=2&m=3"},
		{"query encoding kept", "https://h/search?q=a%20b+c&x=%2F", "https://h/search?q=a%20b+c&x=%2F"},
		{"fragment kept", "https://github.com/o/r/issues/12#issuecomment-99", "https://github.com/o/r/issues/12#issuecomment-99"},
		{"anchor named like a credential kept", "https://docs.example.com/api#token", "https://docs.example.com/api#token"},
		{"parameter without value kept", "https://h/p?token&x=1", "https://h/p?token&x=1"},
		{"empty query kept", "https://h/p?", "https://h/p?"},
		{"empty fragment kept", "https://h/p#", "https://h/p#"},
		{"non-ASCII path kept as is", "https://ja.wikipedia.org/wiki/東京", "https://ja.wikipedia.org/wiki/東京"},
		{"percent-encoded path kept as is", "https://h/a%2Fb/%E6%9D%B1", "https://h/a%2Fb/%E6%9D%B1"},
		{"mailto", "mailto:dev@example.com", "mailto:dev@example.com"},
		{"urn", "urn:isbn:0451450523", "urn:isbn:0451450523"},
		{"xmpp address", "xmpp:dev@example.com", "xmpp:dev@example.com"},
		{"file", "file:///home/me/spec.md", "file:///home/me/spec.md"},
		{"custom scheme", "jira+ssh://tracker/PROJ-1", "jira+ssh://tracker/PROJ-1"},
		{"codex link", "codex://threads/" + v7ID, "codex://threads/" + v7ID},

		{"userinfo user and password", "https://alice:s3cret@github.com/o/r", "https://github.com/o/r"},
		{"userinfo user only (tokens hide there)", "https://ghp_abc123@github.com/o/r.git", "https://github.com/o/r.git"},
		{"userinfo password only", "redis://:hunter2@cache.local:6379/0", "redis://cache.local:6379/0"},
		{"userinfo with @ inside", "https://a@b:c@host/x", "https://host/x"},
		{"userinfo percent-encoded", "ftp://u%40x:p%3Aw@files.example.com/f", "ftp://files.example.com/f"},
		{"empty userinfo", "https://@host/x", "https://host/x"},

		{"token param", "https://h/p?token=abc", "https://h/p"},
		{"access_token among others", "https://h/p?a=1&access_token=abc&b=2", "https://h/p?a=1&b=2"},
		{"credential first", "https://h/p?api_key=k&a=1", "https://h/p?a=1"},
		{"credential last", "https://h/p?a=1&password=pw", "https://h/p?a=1"},
		{"name case-insensitive", "https://h/p?Access_Token=abc&X=1", "https://h/p?X=1"},
		{"hyphen and camel spellings", "https://h/p?access-token=a&accessToken=b&ok=1", "https://h/p?ok=1"},
		{"percent-encoded name", "https://h/p?access%5Ftoken=a&ok=1", "https://h/p?ok=1"},
		{"empty credential value", "https://h/p?token=&ok=1", "https://h/p?ok=1"},
		{"repeated credential", "https://h/p?key=1&key=2&q=x", "https://h/p?q=x"},
		{"semicolon separator", "https://h/p?a=1;sig=xyz;b=2", "https://h/p?a=1;b=2"},
		{"mixed separators keep their own", "https://h/p?a=1&token=x;b=2", "https://h/p?a=1;b=2"},
		{"empty pairs kept", "https://h/p?a=1&&b=2", "https://h/p?a=1&&b=2"},
		{"s3 presigned", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2024&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=deadbeef",
			"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"},
		{"s3 session token", "https://b.s3.amazonaws.com/k?X-Amz-Security-Token=IQo&v=1", "https://b.s3.amazonaws.com/k?v=1"},
		{"gcs signed", "https://storage.googleapis.com/b/o?X-Goog-Credential=sa%40p&X-Goog-Signature=ab&X-Goog-Expires=60",
			"https://storage.googleapis.com/b/o?X-Goog-Expires=60"},
		{"azure sas", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2024-01-01&sp=r&sig=abc%3D", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2024-01-01&sp=r"},
		{"oauth code", "https://app.example.com/cb?code=xyz&state=s", "https://app.example.com/cb?state=s"},
		{"only credentials: query dropped", "https://h/p?token=a&secret=b", "https://h/p"},
		{"only credentials and empty pair: query dropped", "https://h/p?token=a&", "https://h/p"},
		{"credential in fragment (implicit grant)", "https://app/cb#access_token=abc&token_type=bearer&expires_in=3600", "https://app/cb#token_type=bearer&expires_in=3600"},
		{"only credential in fragment", "https://app/cb#id_token=abc", "https://app/cb"},
		{"query and fragment both", "https://h/p?token=a&q=1#sig=b", "https://h/p?q=1"},
		{"credential in opaque query", "mailto:dev@example.com?subject=hi&key=k", "mailto:dev@example.com?subject=hi"},
		{"everything at once", "HTTPS://bob:pw@Example.COM:443/a/B?x=1&Token=t#frag",
			"https://example.com:443/a/B?x=1#frag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeRef(tt.in)
			if err != nil {
				t.Fatalf("NormalizeRef(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("NormalizeRef(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			again, err := NormalizeRef(got)
			if err != nil || again != got {
				t.Fatalf("not idempotent: NormalizeRef(%q) = %q, %v", got, again, err)
			}
		})
	}
}

func TestNormalizeRefRejects(t *testing.T) {
	tests := []struct{ name, in, wantInMessage string }{
		{"empty", "", "empty"},
		{"only whitespace", " \t\n", "empty"},
		{"relative path", "issues/12", "no scheme"},
		{"absolute path", "/o/r/issues/12", "no scheme"},
		{"network-path reference", "//github.com/o/r", "no scheme"},
		{"host without scheme", "github.com/o/r/issues/12", "no scheme"},
		{"fragment only", "#top", "no scheme"},
		{"missing scheme before colon", "://h/x", "not a valid URI"},
		{"space inside", "https://h/a b", "whitespace"},
		{"tab inside", "https://h/a\tb", "whitespace"},
		{"newline inside", "https://h/a\nb", "whitespace"},
		{"NUL", "https://h/a\x00b", "control"},
		{"DEL", "https://h/a\x7fb", "control"},
		{"C1 control", "https://h/a\u0085b", "control"},
		{"no-break space", "https://h/a\u00a0b", "whitespace"},
		{"bidi override", "https://h/\u202egnp.exe", "control"},
		{"zero-width space", "https://git\u200bhub.com/o/r", "control"},
		{"invalid UTF-8", "https://h/\xff", "invalid UTF-8"},
		{"bad percent escape in path", "https://h/%zz", "not a valid URI"},
		{"bad percent escape in host", "https://h%zz/x", "not a valid URI"},
		{"bad port", "https://h:port/x", "not a valid URI"},
		{"unclosed ipv6", "http://[::1/x", "not a valid URI"},
		{"scheme only", "https:", "nothing after its scheme"},
		{"scheme and empty authority", "foo://", "nothing after its scheme"},
		{"scheme and query only", "foo:?a=1", "nothing after its scheme"},
		{"https without host", "https:///etc/passwd", "no host"},
		{"https opaque", "https:github.com/o/r", "no host"},
		{"https only userinfo", "https://user:pw@/x", "no host"},
		{"user info without //", "alice:secret@github.com/o/r", "user info"},
		{"ftp user info without //", "ftp:alice:secret@files.example.com/f", "user info"},
		{"windows drive", `C:\Users\me\spec.md`, "file path"},
		{"windows drive forward slashes", "c:/Users/me/spec.md", "file path"},
		{"too long", "https://h/" + strings.Repeat("a", MaxRefLength-9), "2049 characters long; the limit is 2048"},
		{"too long in characters, not bytes", "https://h/" + strings.Repeat("é", MaxRefLength-9), "2049 characters long"},
		{"too long even if stripping would shorten it", "https://h/?token=" + strings.Repeat("a", MaxRefLength), "characters long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeRef(tt.in)
			if err == nil {
				t.Fatalf("NormalizeRef(%q) = %q, want an error", tt.in, got)
			}
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error is %T, want *Error", err)
			}
			if e.Code != CodeInvalidArgument || e.Hint != refHint {
				t.Errorf("got code %s hint %q, want %s with the ref hint", e.Code, e.Hint, CodeInvalidArgument)
			}
			if !strings.Contains(e.Message, tt.wantInMessage) {
				t.Errorf("message %q does not contain %q", e.Message, tt.wantInMessage)
			}
			if len(e.Message) > 300 {
				t.Errorf("message is %d bytes, want it bounded", len(e.Message))
			}
		})
	}
}

func TestNormalizeRefLengthBoundary(t *testing.T) {
	exact := "https://h/" + strings.Repeat("a", MaxRefLength-10)
	if got, err := NormalizeRef(exact); err != nil || got != exact {
		t.Fatalf("a ref of exactly %d characters: got %q, %v", MaxRefLength, got, err)
	}
	padded := "  " + exact + "\n"
	if _, err := NormalizeRef(padded); err != nil {
		t.Fatalf("surrounding whitespace counted toward the limit: %v", err)
	}
}

func TestNormalizeRefErrorDoesNotEchoCredentials(t *testing.T) {
	_, err := NormalizeRef("https://alice:hunter2@h/a b?access_token=tok123")
	if err == nil {
		t.Fatal("want an error for the space")
	}
	msg := err.Error()
	for _, secret := range []string{"hunter2", "alice", "tok123"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q repeats %q", msg, secret)
		}
	}
	if !strings.Contains(msg, "https://h/a b") {
		t.Errorf("error %q does not name the (stripped) ref", msg)
	}

	for _, in := range []string{
		"alice:hunter2@github.com/o/r",
		"ghp_tok123:x-oauth-basic@github.com/o/r",
		"tok123@github.com/o r",
	} {
		_, err := NormalizeRef(in)
		if err == nil {
			t.Fatalf("NormalizeRef(%q) accepted", in)
		}
		if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "tok123") ||
			!strings.Contains(msg, "@github.com/o") {
			t.Errorf("error %q should name the ref without its user info", msg)
		}
	}
}

// S000-03: a ref carrying a username and password or a token is stored without them.
func TestS000_03_CredentialsAreStrippedFromRefs(t *testing.T) {
	for in, want := range map[string]string{
		"https://alice:s3cret@github.com/o/r/issues/12":            "https://github.com/o/r/issues/12",
		"https://x-access-token:ghs_abc@github.com/o/r/pull/3":     "https://github.com/o/r/pull/3",
		"https://github.com/o/r/issues/12?token=ghp_abc&tab=files": "https://github.com/o/r/issues/12?tab=files",
		"https://api.example.com/doc?access_token=abc&api_key=k":   "https://api.example.com/doc",
	} {
		got, err := MergeRefs(nil, []string{in})
		if err != nil {
			t.Fatalf("MergeRefs(%q): %v", in, err)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("stored refs for %q = %q, want [%q]", in, got, want)
		}
	}
}

// S000-02: a thread carrying ref A delegating with --ref B gives the child refs A, B.
func TestS000_02_ChildInheritsRefsInOrder(t *testing.T) {
	a := "https://github.com/o/r/issues/12"
	b := "https://linear.app/t/issue/ENG-7"
	got, err := MergeRefs([]string{a}, []string{b})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("child refs = %q, want %q", got, want)
	}
}

func TestMergeRefs(t *testing.T) {
	a, b, c := "https://h/a", "https://h/b", "https://h/c"
	tests := []struct {
		name           string
		inherited, own []string
		want           []string
	}{
		{"nothing gives an empty list", nil, nil, []string{}},
		{"own only", nil, []string{a, b}, []string{a, b}},
		{"inherited only", []string{a, b}, nil, []string{a, b}},
		{"own repeats inherited", []string{a}, []string{a}, []string{a}},
		{"own repeats inherited, new one appended", []string{a, b}, []string{b, c, a}, []string{a, b, c}},
		{"duplicates within own", nil, []string{b, a, b, a}, []string{b, a}},
		{"duplicates after normalising", []string{a}, []string{"HTTPS://u:p@H/a", " https://h/a?token=t "}, []string{a}},
		{"inherited normalised again", []string{"https://h/a?password=p"}, []string{b}, []string{a, b}},
		{"order of own kept, not sorted", []string{c}, []string{b, a}, []string{c, b, a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MergeRefs(tt.inherited, tt.own)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("MergeRefs(%q, %q) = %#v, want %#v", tt.inherited, tt.own, got, tt.want)
			}
		})
	}
}

func refsN(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "https://h/" + prefix + strings.Repeat("x", i)
	}
	return out
}

func TestMergeRefsLimit(t *testing.T) {
	if got, err := MergeRefs(refsN("p", 10), refsN("o", 6)); err != nil || len(got) != MaxRefsPerThread {
		t.Fatalf("exactly %d refs: got %d, %v", MaxRefsPerThread, len(got), err)
	}
	// Duplicates do not count: 16 distinct refs given 32 times are fine.
	if _, err := MergeRefs(refsN("p", 16), refsN("p", 16)); err != nil {
		t.Fatalf("duplicates counted toward the limit: %v", err)
	}

	_, err := MergeRefs(refsN("p", 10), refsN("o", 7))
	if err == nil {
		t.Fatal("17 refs accepted")
	}
	e := err.(*Error)
	if e.Code != CodeInvalidArgument {
		t.Errorf("code = %s", e.Code)
	}
	for _, want := range []string{"at most 16", "would carry 17", "10 inherited", "7 own"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q does not say %q", e.Message, want)
		}
	}
	if e.Details["limit"] != MaxRefsPerThread || e.Details["count"] != 17 {
		t.Errorf("details = %v", e.Details)
	}
	if e.Hint == "" {
		t.Error("no hint")
	}

	if _, err := ValidateRefs(refsN("o", 17)); !IsCode(err, CodeInvalidArgument) {
		t.Errorf("ValidateRefs with 17 refs: %v", err)
	}
}

func TestMergeRefsInvalidOwn(t *testing.T) {
	_, err := MergeRefs([]string{"https://h/a"}, []string{"https://h/b", "not a uri"})
	e := AsError(err)
	if e == nil || e.Code != CodeInvalidArgument {
		t.Fatalf("got %v, want INVALID_ARGUMENT", err)
	}
	if e.Details["index"] != 1 || !strings.Contains(e.Message, `"not a uri"`) {
		t.Errorf("error %v (details %v) does not point at own ref 1", e, e.Details)
	}
}

func TestMergeRefsInvalidInherited(t *testing.T) {
	_, err := MergeRefs([]string{"relative/path"}, []string{"https://h/b"})
	e := AsError(err)
	if e == nil || e.Code != CodeFailedPrecondition {
		t.Fatalf("got %v, want FAILED_PRECONDITION: the caller cannot fix its parent's refs", err)
	}
	if !strings.Contains(e.Message, "inherited") || !strings.Contains(e.Message, "relative/path") {
		t.Errorf("message %q does not name the inherited ref", e.Message)
	}
}

func TestValidateRefs(t *testing.T) {
	got, err := ValidateRefs([]string{"https://u:p@h/a", "https://h/a"})
	if err != nil || !reflect.DeepEqual(got, []string{"https://h/a"}) {
		t.Fatalf("ValidateRefs = %q, %v", got, err)
	}
	if got, err := ValidateRefs(nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("ValidateRefs(nil) = %#v, %v; want an empty, non-nil list", got, err)
	}
}

func FuzzNormalizeRef(f *testing.F) {
	for _, s := range []string{
		"https://github.com/o/r/issues/12", "HTTPS://u:p@Example.COM:8080/a?b=1&token=x;c=2#sig=y&z",
		"https://a@b@c/x", "mailto:a@b?key=k", "urn:isbn:1", "file:///x", "https://h/p?", "https://h/p#",
		"https://h/p?token=a&", "https://h/p?&&token=x&&", "https://h/p#access_token=a&b", "https:",
		"c:/x", "//h/x", "/x", "x", "", " ", "https://h/a b", "https://h/%zz", "http://[::1]:80/",
		"https://h/?%41ccess_token=x", "https://h/?access%5ftoken=x", "foo:?a", "https://h/\u202e",
		"https://ja.wikipedia.org/wiki/東京", "https://h:@/", "s3://b/k?X-Amz-Signature=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeRef(s)
		if err != nil {
			if !IsCode(err, CodeInvalidArgument) {
				t.Fatalf("error %#v is not INVALID_ARGUMENT", err)
			}
			return
		}
		if n := len([]rune(got)); n > MaxRefLength {
			t.Fatalf("result is %d characters", n)
		}
		if len(got) > len(s) {
			t.Fatalf("result %q is longer than input %q", got, s)
		}
		again, err := NormalizeRef(got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, got, again, err)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("result %q does not parse: %v", got, err)
		}
		if u.Scheme == "" {
			t.Fatalf("result %q is not absolute", got)
		}
		if u.User != nil {
			t.Fatalf("result %q keeps user info %q", got, u.User)
		}
		// Split the result independently of the code under test: query by net/url, fragment by hand.
		_, frag, _ := strings.Cut(got, "#")
		for _, part := range []string{u.RawQuery, frag} {
			for _, pair := range strings.FieldsFunc(part, func(r rune) bool { return r == '&' || r == ';' }) {
				if name, _, ok := strings.Cut(pair, "="); ok && credentialParams()[canonicalParam(name)] {
					t.Fatalf("result %q keeps credential parameter %q", got, name)
				}
			}
		}
	})
}
