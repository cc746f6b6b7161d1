//go:build !linux

package peercred

import "net"

// Unix is not supported here: nothing is taken on trust.
func Unix(*net.UnixConn) (Cred, error) { return Cred{}, ErrUnsupported }

// Descends is not supported here.
func Descends(pid, root int) (bool, error) { return false, ErrUnsupported }

// Descendants is not supported here.
func Descendants(int) ([]int, error) { return nil, ErrUnsupported }

// TCP is not supported here.
func TCP(local, remote *net.TCPAddr, candidates []int) (Cred, error) { return Cred{}, ErrUnsupported }
