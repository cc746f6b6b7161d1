//go:build linux

package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestNativeProcStart(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	before := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	after := time.Now()
	started, ok := nativeProcStart(cmd.Process.Pid)
	// /proc counts in 10 ms ticks and uptime in 10 ms steps.
	if !ok || started.Before(before.Add(-50*time.Millisecond)) || started.After(after.Add(50*time.Millisecond)) {
		t.Fatalf("started %v (%v), want between %v and %v", started, ok, before, after)
	}
	if _, ok := nativeProcStart(-1); ok {
		t.Fatal("a start time for pid -1")
	}
}

func TestNativeParseProcLocks(t *testing.T) {
	t.Parallel()
	data := []byte(`1: POSIX  ADVISORY  READ 30010 fe:00:9980663 128 128
2: FLOCK  ADVISORY  WRITE 29959 fe:00:9980753 0 EOF
2: -> FLOCK  ADVISORY  WRITE 31000 fe:00:9980753 0 EOF
3: OFDLCK ADVISORY  WRITE -1 103:1a:42 0 EOF
garbage
`)
	got := nativeParseProcLocks(data)
	want := []nativeLockEntry{
		{pid: 30010, major: 0xfe, minor: 0, ino: 9980663},
		{pid: 29959, major: 0xfe, minor: 0, ino: 9980753},
		{pid: -1, major: 0x103, minor: 0x1a, ino: 42},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A lock held by another process is seen, without taking it; our own pid is not "another".
func TestNativeOtherWriterSeesForeignFlock(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	home := t.TempDir()
	id := "01a00000-0000-7000-8000-0000000000aa"
	dir := filepath.Join(home, "thread-writer-locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, id+".lock")
	if nativeOtherWriter(home, id, os.Getpid(), time.Time{}) {
		t.Fatal("a missing lock file reads as held")
	}
	beforeHolder := time.Now().Add(-50 * time.Millisecond) // within /proc's 10 ms resolution
	cmd := exec.Command("flock", "-o", "-x", lock, "sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for !nativeOtherWriter(home, id, os.Getpid(), time.Time{}) {
		if time.Now().After(deadline) {
			t.Fatal("the lock held by flock(1) was not seen")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A holder that started after the turn cannot be running it.
	if nativeOtherWriter(home, id, os.Getpid(), beforeHolder.Add(-time.Second)) {
		t.Fatal("a holder that started after the turn counts as running it")
	}
	if !nativeOtherWriter(home, id, os.Getpid(), time.Now()) {
		t.Fatal("a holder that started before the turn does not count")
	}
	holders := nativeLockHolders(lock)
	if len(holders) != 1 || nativeOtherWriter(home, id, holders[0], time.Time{}) {
		t.Fatalf("holders %v: the holder itself must not count as another writer", holders)
	}
	if nativeOtherWriter(home, "../"+id, os.Getpid(), time.Time{}) {
		t.Fatal("a thread id with a path separator was looked up")
	}
	// Our own lock is listed with our pid, so it never counts as another writer.
	stop()
	f, err := os.Open(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The group's last process may exit a moment after Wait returns for flock(1) itself.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lock not free after the holder exited: %v", err)
		}
	}
	if h := nativeLockHolders(lock); len(h) != 1 || h[0] != os.Getpid() {
		t.Fatalf("holders after we took it: %v", h)
	}
	if nativeOtherWriter(home, id, os.Getpid(), time.Time{}) {
		t.Fatal("our own lock reads as another writer")
	}
}
