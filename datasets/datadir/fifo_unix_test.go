//go:build unix

package datadir

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
