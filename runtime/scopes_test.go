package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
)

// scopeGrants are the clients of the scope tests.
var scopeGrants = map[string]config.Grant{
	"bot":    {}, // no scopes key: the default of clients made before scopes
	"reader": {Scopes: []string{config.ScopeRead}, AllowRawTranscripts: true, AllowWriteControls: true},
	"writer": {Scopes: []string{config.ScopeWrite}}, // no write controls
	"ops":    {Scopes: []string{config.ScopeWrite}, AllowWriteControls: true},
	"admin":  {Scopes: []string{config.ScopeAdmin}, AllowWriteControls: true},
}

// localHealth is the health of gateway:local as the catalog reports it.
func localHealth(t *testing.T, c *api.Client) string {
	t.Helper()
	for _, h := range call[api.CatalogHostsResult](t, c, api.MethodCatalogHosts, struct{}{}).Hosts {
		if h.ID == catalog.LocalHostID {
			return h.Health.State
		}
	}
	t.Fatal("no gateway:local host")
	return ""
}

// Scenario: S003-18 (permission before anything else) — each catalog method refused for lack
// of a scope or of write controls is PERMISSION_DENIED before the catalog is touched: the
// local host, whose App Server cannot start here, is never tried (its health stays unknown),
// while one permitted list does try it. Node continue needs operator.admin; with it the call
// gets past the scope check to the node refusal. Agents (runtime token) list and nothing more.
func TestS003_18_RefusedScopeIsPermissionDeniedBeforeAnything(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{grants: scopeGrants})
	transcript := api.CatalogTranscriptParams{Thread: "019a0000-0000-7000-8000-000000000001"}
	archive := api.CatalogArchiveParams{Thread: transcript.Thread, ConfirmNoOtherRunner: true}
	cont := api.CatalogContinueParams{Thread: transcript.Thread}
	nodeCont := api.CatalogContinueParams{Thread: transcript.Thread, Host: "node:mac"}
	type attempt struct {
		client, method string
		params         any
	}
	refused := []attempt{
		{"bot", api.MethodCatalogHosts, struct{}{}},
		{"bot", api.MethodCatalogSessions, api.CatalogSessionsParams{}},
		{"bot", api.MethodCatalogTranscript, transcript},
		{"bot", api.MethodCatalogArchive, archive},
		{"bot", api.MethodCatalogContinue, cont},
		{"reader", api.MethodCatalogArchive, archive},
		{"reader", api.MethodCatalogContinue, cont},
		{"writer", api.MethodCatalogArchive, archive},
		{"writer", api.MethodCatalogContinue, cont},
		{"ops", api.MethodCatalogContinue, nodeCont},
		{"runtime", api.MethodCatalogTranscript, transcript},
		{"runtime", api.MethodCatalogArchive, archive},
		{"runtime", api.MethodCatalogContinue, cont},
	}
	for _, a := range refused {
		c := th.runtimeClient()
		if a.client != "runtime" {
			c = th.client(a.client)
		}
		me := callErr(t, c, a.method, a.params, model.CodePermissionDenied)
		if me.Hint == "" {
			t.Errorf("%s %s: no hint: %v", a.client, a.method, me)
		}
		if a.client == "writer" && !strings.Contains(me.Hint, "allowWriteControls") {
			t.Errorf("writer %s: %v (%s)", a.method, me, me.Hint)
		}
		if a.client == "ops" && !strings.Contains(me.Message, config.ScopeAdmin) {
			t.Errorf("node continue: %v", me)
		}
	}
	// Past the scope check, an unpaired node is an unknown host.
	me := callErr(t, th.client("admin"), api.MethodCatalogContinue, nodeCont, model.CodeInvalidArgument)
	if !strings.Contains(me.Message, "unknown host") {
		t.Fatalf("admin node continue: %v", me)
	}

	reader := th.client("reader")
	if got := localHealth(t, reader); got != api.CatalogHealthUnknown {
		t.Fatalf("a refused call reached the App Server: health %s", got)
	}
	callErr(t, th.runtimeClient(), api.MethodCatalogHosts, struct{}{}, model.CodePermissionDenied) // agents do not see the fleet
	call[api.CatalogSessionsResult](t, reader, api.MethodCatalogSessions, api.CatalogSessionsParams{})
	if got := localHealth(t, reader); got == api.CatalogHealthUnknown {
		t.Fatal("a permitted list left the host untried; the check above proves nothing")
	}
}

// Scenario: S003-17, S003-18 (scopes granted) — operator.read lists and reads transcripts but
// cannot continue or archive, and neither can operator.write without write controls: their
// refusals load nothing, make no branch and archive nothing. With operator.write and write
// controls the client continues a stored source and archives another.
func TestScopesGateCatalogWritesWithoutSideEffects(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, grants: scopeGrants})
	src := stored(t, th.codexHome, "keep me")
	other := stored(t, th.codexHome, "archive me")
	reader, writer, ops := th.client("reader"), th.client("writer"), th.client("ops")

	listed := func(c *api.Client) []string {
		res := call[api.CatalogSessionsResult](t, c, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: catalog.LocalHostID})
		return catalogIDs(res.Hosts[0].Sessions)
	}
	if got := listed(reader); !slices.Contains(got, src) || !slices.Contains(got, other) {
		t.Fatalf("reader lists %v", got)
	}
	tr := call[api.CatalogTranscriptResult](t, reader, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Thread: src})
	if len(tr.Turns) != 1 || tr.Turns[0].Messages[0].Text != "keep me" {
		t.Fatalf("reader transcript %+v", tr)
	}
	for _, c := range []*api.Client{reader, writer} {
		callErr(t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}, model.CodePermissionDenied)
		callErr(t, c, api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: other, ConfirmNoOtherRunner: true}, model.CodePermissionDenied)
	}
	if got := listed(ops); !slices.Contains(got, other) {
		t.Fatalf("a refused archive archived: %v", got)
	}
	if loaded := loadedHere(t, th); slices.Contains(loaded, src) || slices.Contains(loaded, other) {
		t.Fatalf("a refused call loaded a source: %v", loaded)
	}

	res := call[api.CatalogContinueResult](t, ops, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	if res.Existing || res.State != model.SupervisionPending {
		t.Fatalf("a refused continue left a branch: %+v", res)
	}
	arch := call[api.CatalogArchiveResult](t, ops, api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: other, ConfirmNoOtherRunner: true})
	if !arch.Archived {
		t.Fatalf("archive %+v", arch)
	}
	if got := listed(ops); slices.Contains(got, other) || !slices.Contains(got, src) {
		t.Fatalf("after archive %v", got)
	}
}
