package peercred

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Unix returns the credentials the kernel recorded for the peer of c when it connected.
func Unix(c *net.UnixConn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var ucred *syscall.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		ucred, serr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return Cred{}, err
	}
	if serr != nil {
		return Cred{}, serr
	}
	return Cred{Pid: int(ucred.Pid), Uid: int(ucred.Uid)}, nil
}

// parentOf reads the parent pid of pid from /proc/pid/stat. The command name (field 2) may
// hold spaces and parentheses, so the fields are taken after its last ')'.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("peercred: malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("peercred: malformed /proc/%d/stat", pid)
	}
	return strconv.Atoi(f[1])
}

// maxDepth bounds the climb, in case /proc changes under it.
const maxDepth = 4096

// Descends reports whether pid is root or a process below it. It fails closed: an error
// (the process is gone, /proc unreadable) is returned rather than a guess.
func Descends(pid, root int) (bool, error) {
	cur := pid
	for range maxDepth {
		if cur == root {
			return true, nil
		}
		if cur <= 1 {
			return false, nil
		}
		p, err := parentOf(cur)
		if err != nil {
			return false, err
		}
		cur = p
	}
	return false, fmt.Errorf("peercred: no end to the ancestry of %d", pid)
}

// Descendants lists the processes below root (not root itself): down the kernel's lists of
// children where it keeps them (a cost in the number of descendants), else from one pass
// over /proc.
func Descendants(root int) ([]int, error) {
	if out, ok := descendantsByChildren(root); ok {
		return out, nil
	}
	return descendantsByScan(root)
}

// descendantsByChildren walks /proc/PID/task/TID/children; false where the kernel has none.
func descendantsByChildren(root int) ([]int, bool) {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		if err != nil {
			if p == root {
				return nil, false
			}
			continue // it exited meanwhile
		}
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			if err != nil {
				if p == root && errors.Is(err, os.ErrNotExist) {
					return nil, false
				}
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out, true
}

func descendantsByScan(root int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, err := parentOf(pid); err == nil {
			children[pp] = append(children[pp], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out, nil
}

// TCP finds the owner of the far end of a loopback TCP connection: local and remote are the
// addresses as this side sees them. The uid comes from the kernel's socket table; the pid is
// looked for among candidates only (scanning every process's descriptors would cost too
// much on every connection), and is 0 when none of them holds the socket.
func TCP(local, remote *net.TCPAddr, candidates []int) (Cred, error) {
	inode, uid, err := tcpSocket(remote, local)
	if err != nil {
		return Cred{}, err
	}
	want := "socket:[" + inode + "]"
	for _, pid := range candidates {
		if holds(pid, want) {
			return Cred{Pid: pid, Uid: uid}, nil
		}
	}
	return Cred{Uid: uid}, nil
}

func holds(pid int, link string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == link {
			return true
		}
	}
	return false
}

// tcpSocket returns the inode and uid of the socket whose local address is src and remote
// address dst, from /proc/net/tcp and tcp6.
func tcpSocket(src, dst *net.TCPAddr) (inode string, uid int, err error) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		inode, uid, err := scanTCPTable(table, src, dst)
		if err == nil && inode != "" {
			return inode, uid, nil
		}
	}
	return "", 0, fmt.Errorf("peercred: no socket %v -> %v in the kernel's table", src, dst)
}

func scanTCPTable(path string, src, dst *net.TCPAddr) (string, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 {
			continue
		}
		if !sameAddr(fields[1], src) || !sameAddr(fields[2], dst) {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			return "", 0, err
		}
		return fields[9], uid, nil
	}
	return "", 0, sc.Err()
}

// sameAddr compares a /proc/net/tcp address ("0100007F:1F90": the IP in host byte order in
// 32-bit words, the port in hex) with a.
func sameAddr(field string, a *net.TCPAddr) bool {
	ipHex, portHex, ok := strings.Cut(field, ":")
	if !ok {
		return false
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil || int(port) != a.Port {
		return false
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || len(raw)%4 != 0 {
		return false
	}
	for i := 0; i < len(raw); i += 4 { // each 32-bit word is little-endian here
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	ip := net.IP(raw)
	return ip.Equal(a.IP) || (len(raw) == 16 && a.IP.To4() != nil && ip.To4() != nil && ip.To4().Equal(a.IP.To4()))
}
