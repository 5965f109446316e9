package runner

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair whose size was never set (0×0), as script(1) or an
// expect script make one.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestBarOnAZeroSizedTerminal: a terminal that reports 0×0 (its size never set) gets the bar
// drawn at 80×24; mpb, given 0 lines, drew nothing at all.
func TestBarOnAZeroSizedTerminal(t *testing.T) {
	_, slave := openPTY(t)
	ws, err := unix.IoctlGetWinsize(int(slave.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row != 0 || ws.Col != 0 {
		t.Skipf("the new pseudo-terminal is %v (%v), not 0×0", ws, err)
	}
	w, h, err := newTermWriter(slave).GetTermSize()
	if w != 80 || h != 24 || err != nil {
		t.Errorf("GetTermSize: %d×%d, %v; want 80×24", w, h, err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 132}); err != nil {
		t.Fatal(err)
	}
	if w, h, err := newTermWriter(slave).GetTermSize(); w != 132 || h != 50 || err != nil {
		t.Errorf("GetTermSize of a 132×50 terminal: %d×%d, %v", w, h, err)
	}
}
