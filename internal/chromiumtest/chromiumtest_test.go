package chromiumtest

import (
	imagepng "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConsoleProblems(t *testing.T) {
	// Lines as Chromium 156 and Debian's launcher print them.
	page := "/tmp/run/index.html"
	stderr := strings.Join([]string{
		`/usr/bin/chromium: 9: [: 25276514304: unexpected operator`,
		`[4143:4233:1121/141759.452327:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory`,
		`[4143:4143:1121/141800.535662:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner: object_path= /org/freedesktop/DBus: unknown error type: `,
		`[4143:4143:1121/141800.535754:WARNING:device/bluetooth/dbus/bluez_dbus_manager.cc:209] Floss manager service not available, cannot set Floss enable/disable.`,
		`[4247:4247:1121/141800.076682:WARNING:media/gpu/vaapi/vaapi_wrapper.cc:1655] drmGetDevices2() has not found any devices`,
		`[4247:4247:1121/141800.311284:WARNING:sandbox/policy/linux/sandbox_linux.cc:405] InitializeSandbox() called with multiple threads in process gpu-process.`,
		`[4143:4143:1121/141800.625003:WARNING:ui/base/idle/idle_linux.cc:111] None of the known D-Bus ScreenSaver services could be used.`,
		`188869 bytes written to file /tmp/TestChromiumDrawsHistory1704299368/004/history.png`,
		`[1:1:1121/141800.9:WARNING:something/new.cc:1] an unknown warning`,
	}, "\n")
	if problems, ignored := ConsoleProblems(stderr, page); len(problems) != 0 || len(ignored) != 1 {
		t.Errorf("noise: problems %q, ignored %q", problems, ignored)
	}
	for _, bad := range []string{
		`[4394:4394:1121/141805.911827:INFO:CONSOLE:1] "boom", source: file:///tmp/run/index.html (1)`,
		`[4394:4394:1121/141805.919792:INFO:CONSOLE:1] "Uncaught ReferenceError: nosuch is not defined", source: file:///tmp/run/index.html (1)`,
		`[1:1:1121/141805.9:ERROR:some/loader.cc:1] Failed to load file:///tmp/run/index.html`,
		`Uncaught SyntaxError somewhere`,
	} {
		if problems, _ := ConsoleProblems(stderr+"\n"+bad+"\n", page); len(problems) != 1 || problems[0] != bad {
			t.Errorf("%q: problems %q", bad, problems)
		}
	}
}

// TestScreenshot: a page whose script draws a red square gives a PNG with red pixels where the
// square is, so the screenshot is taken after the script ran.
func TestScreenshot(t *testing.T) {
	bin := Binary(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title>` +
		`<style>body{margin:0;background:#fff}</style></head><body>` +
		`<script>const d=document.createElement("div");d.style.cssText="width:100px;height:100px;background:#f00";document.body.appendChild(d);</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "shot.png")
	stderr := Screenshot(t, bin, page, png, 300, 200)
	LogProblems(t, stderr, page)
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := imagepng.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 200 {
		t.Errorf("screenshot is %v, want 300×200", b)
	}
	// Inside the square red, outside white (8 bits a channel; the compositor may dither by 1).
	for _, c := range []struct {
		x, y int
		red  bool
	}{{50, 50, true}, {5, 95, true}, {150, 50, false}, {50, 150, false}} {
		r, g, b, _ := img.At(c.x, c.y).RGBA()
		isRed := r>>8 >= 250 && g>>8 <= 5 && b>>8 <= 5
		isWhite := r>>8 >= 250 && g>>8 >= 250 && b>>8 >= 250
		if c.red && !isRed || !c.red && !isWhite {
			t.Errorf("pixel (%d, %d) is %d,%d,%d; want %s", c.x, c.y, r>>8, g>>8, b>>8, map[bool]string{true: "red", false: "white"}[c.red])
		}
	}
}
