package peercred

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestUnixReportsThePeerProcess(t *testing.T) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := net.Dial("unix", l.Addr().String())
		if err == nil {
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	c, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cred, err := Unix(c)
	if err != nil {
		t.Fatal(err)
	}
	if cred.Pid != os.Getpid() || cred.Uid != os.Getuid() {
		t.Fatalf("peer %+v, want pid %d uid %d", cred, os.Getpid(), os.Getuid())
	}
}

// A grandchild that left its session and process group still descends from us; we do not
// descend from it, and PID 1 descends from nothing of ours.
func TestDescendsFollowsTheWholeAncestry(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", "setsid sh -c 'echo $$ > "+pidFile+"; exec sleep 30' & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var grandchild int
	for deadline := time.Now().Add(5 * time.Second); grandchild == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 1 {
			grandchild = atoiTrim(b)
		}
	}
	if grandchild == 0 {
		t.Fatal("the grandchild never wrote its pid")
	}
	if p, _ := os.FindProcess(grandchild); p != nil {
		defer p.Kill()
	}
	if ok, err := Descends(grandchild, os.Getpid()); err != nil || !ok {
		t.Fatalf("Descends(grandchild, self) = %v, %v; want true", ok, err)
	}
	if ok, _ := Descends(os.Getpid(), cmd.Process.Pid); ok {
		t.Fatal("the test process descends from its child")
	}
	if ok, _ := Descends(1, os.Getpid()); ok {
		t.Fatal("PID 1 descends from the test process")
	}
	all, err := Descendants(os.Getpid())
	if err != nil || !slices.Contains(all, grandchild) || !slices.Contains(all, cmd.Process.Pid) {
		t.Fatalf("Descendants = %v, %v; want the child %d and grandchild %d", all, err, cmd.Process.Pid, grandchild)
	}
	// Reparented to init after setsid: the grandchild stays listed only while its parent lives.
	scanned, err := descendantsByScan(os.Getpid())
	if err != nil || !slices.Contains(scanned, grandchild) {
		t.Fatalf("descendantsByScan = %v, %v; want the grandchild %d", scanned, err, grandchild)
	}
}

func atoiTrim(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}

// The owner of a loopback TCP connection is found among candidates, with its uid.
func TestTCPFindsTheOwner(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "tcp6" {
				addr = "[::1]:0"
			}
			l, err := net.Listen(network, addr)
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer l.Close()
			client, err := net.Dial(network, l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			server, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			cred, err := TCP(server.LocalAddr().(*net.TCPAddr), server.RemoteAddr().(*net.TCPAddr), []int{1, os.Getpid()})
			if err != nil {
				t.Fatal(err)
			}
			if cred.Pid != os.Getpid() || cred.Uid != os.Getuid() {
				t.Fatalf("owner %+v, want pid %d uid %d", cred, os.Getpid(), os.Getuid())
			}
			cred, err = TCP(server.LocalAddr().(*net.TCPAddr), server.RemoteAddr().(*net.TCPAddr), []int{1})
			if err != nil || cred.Pid != 0 {
				t.Fatalf("with no candidate holding it: %+v, %v; want pid 0", cred, err)
			}
		})
	}
}
