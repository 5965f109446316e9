//go:build !unix

package datadir

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
