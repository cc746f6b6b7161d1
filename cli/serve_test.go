package cli

import (
	"net"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// `serve --listen` on a port another process holds says the port is in use and what to do,
// as the caller's matter, not as a bug.
func TestServeOnABusyPortSaysItIsInUse(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	operatorHome(t, "", t.TempDir())
	_, errOut, code := run(t, "serve", "--listen", busy.Addr().String())
	if code == 0 || errorCode(t, errOut) != model.CodeFailedPrecondition {
		t.Fatalf("serve on a busy port (%d): %s", code, errOut)
	}
	for _, want := range []string{"already in use", "hint: pick another port", "stop the process using it"} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "bug") {
		t.Fatalf("a busy port is reported as a bug:\n%s", errOut)
	}
}
