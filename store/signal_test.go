package store

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestCloseOnSignalClosesTheStore(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			c := startChild(t, "signal", home, "ready")
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if ws := c.wait(t); !ws.Exited() || ws.ExitStatus() != 0 {
				t.Fatalf("child ended with %v, want exit 0 after closing", ws)
			}
			s, err := Open(home, Options{})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer s.Close()
			var n note
			if err := s.Get("note", "before-signal", &n); err != nil || n.Text != "written" {
				t.Fatalf("record after signal close: %+v %v", n, err)
			}
			if loose := looseModes(t, home); len(loose) > 0 {
				t.Errorf("loose modes after signal close: %v", loose)
			}
		})
	}
}

// After stop, SIGTERM has its default effect again and the store is not closed by us.
func TestCloseOnSignalStop(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	c := startChild(t, "signal-stopped", home, "ready")
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if ws := c.wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("child ended with %v, want killed by SIGTERM", ws)
	}
}
