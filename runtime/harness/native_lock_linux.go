//go:build linux

package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nativeLockHolders lists the pids holding a lock on path, read from /proc/locks.
func nativeLockHolders(path string) []int {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return nil
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	var pids []int
	for _, e := range nativeParseProcLocks(data) {
		if e.ino != uint64(st.Ino) {
			continue
		}
		if (e.major == major && e.minor == minor) || nativeHasOpen(e.pid, path) {
			pids = append(pids, e.pid)
		}
	}
	return pids
}

// nativeLockEntry is one held lock of /proc/locks.
type nativeLockEntry struct {
	pid          int
	major, minor uint64
	ino          uint64
}

// nativeParseProcLocks reads the held locks of /proc/locks, for example
// "1: FLOCK  ADVISORY  WRITE 29959 fe:00:9980753 0 EOF". Lines with "->" are waiters, which
// hold nothing. Device numbers are hex, the inode decimal; pid is -1 for OFD locks.
func nativeParseProcLocks(data []byte) []nativeLockEntry {
	var out []nativeLockEntry
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] == "->" {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil {
			continue
		}
		dev := strings.Split(f[5], ":")
		if len(dev) != 3 {
			continue
		}
		major, err1 := strconv.ParseUint(dev[0], 16, 64)
		minor, err2 := strconv.ParseUint(dev[1], 16, 64)
		ino, err3 := strconv.ParseUint(dev[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, nativeLockEntry{pid: pid, major: major, minor: minor, ino: ino})
	}
	return out
}

// nativeHasOpen reports whether process pid has path open, for lock entries whose device
// number differs from what stat reports (overlay file systems lock the underlying inode).
func nativeHasOpen(pid int, path string) bool {
	if pid <= 0 {
		return false
	}
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

// nativeClockTicks is USER_HZ, the unit of process start times in /proc; Linux fixes it at
// 100 on every architecture Go supports.
const nativeClockTicks = 100

// nativeProcStart returns when process pid started, to 10 ms: its start in ticks since boot
// (/proc/<pid>/stat field 22) set against the time since boot (/proc/uptime).
func nativeProcStart(pid int) (time.Time, bool) {
	if pid <= 0 {
		return time.Time{}, false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return time.Time{}, false
	}
	// The command name (field 2) may hold spaces and parentheses; fields after it are plain.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	const startField = 22 - 3 // f[0] is field 3
	if len(f) <= startField {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[startField], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	up, err := os.ReadFile("/proc/uptime")
	now := time.Now()
	if err != nil {
		return time.Time{}, false
	}
	upFields := strings.Fields(string(up))
	if len(upFields) == 0 {
		return time.Time{}, false
	}
	uptime, err := strconv.ParseFloat(upFields[0], 64)
	if err != nil {
		return time.Time{}, false
	}
	age := uptime - float64(ticks)/nativeClockTicks
	return now.Add(-time.Duration(age * float64(time.Second))), true
}
