package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"
)

// A small Chrome DevTools Protocol client over the devtools websocket,
// written with the standard library only, for the tests that open the
// timeline report in headless Chromium.

// chromiumPath finds a Chromium binary, or "" when none is installed
// (.ci/run installs Debian's chromium package).
func chromiumPath() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

type browser struct {
	cmd  *exec.Cmd
	conn net.Conn
	rd   *bufio.Reader
	mu   sync.Mutex
	id   int
	wait map[int]chan cdpMessage
	evs  chan cdpMessage
	done chan struct{}
	errs []string // console errors and exceptions
	emu  sync.Mutex
}

type cdpMessage struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser launches headless Chromium with a new, empty profile and no
// network use of its own, and connects to its first page.
func startBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it): the report's browser test is skipped")
	}
	cmd, port := launchChromium(t, bin, width, height)
	pageWS := pageTarget(t, port)
	b := &browser{cmd: cmd, wait: map[int]chan cdpMessage{}, evs: make(chan cdpMessage, 1024), done: make(chan struct{})}
	if err := b.dial(pageWS); err != nil {
		t.Fatal(err)
	}
	go b.readLoop()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.call(m, nil); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// launchChromium starts headless Chromium with a fresh profile, its
// devtools on a loopback port it picks; it returns the process and the port.
// Both are cleaned up when t ends.
func launchChromium(t *testing.T, bin string, width, height int) (*exec.Cmd, string) {
	t.Helper()
	// Not t.TempDir: Chromium's helper processes can still be writing the
	// profile when the browser's main process has exited, and TempDir's
	// cleanup fails the test then. The profile is removed once they are
	// gone (a few tries), and left behind in the temp dir if not.
	profile, err := os.MkdirTemp("", "metadump-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-dev-shm-usage", "--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	wsRe := regexp.MustCompile(`DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := wsRe.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[2]
				sent = true
			}
		}
	}()
	var port string
	select {
	case port = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not print its devtools address within 30 s")
	}
	return cmd, port
}

// pageTarget is the websocket address of the page target of the browser
// whose devtools listen on port.
func pageTarget(t *testing.T, port string) string {
	t.Helper()
	var pageWS string
	deadline := time.Now().Add(15 * time.Second)
	for pageWS == "" && time.Now().Before(deadline) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			var targets []struct{ Type, WebSocketDebuggerURL string }
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, tg := range targets {
				if tg.Type == "page" {
					pageWS = tg.WebSocketDebuggerURL
					break
				}
			}
		}
		if pageWS == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if pageWS == "" {
		t.Fatal("chromium has no page target")
	}
	return pageWS
}

// dial opens the websocket (RFC 6455 client handshake).
func (b *browser) dial(wsURL string) error {
	u, err := url.Parse(wsURL)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return err
	}
	key := make([]byte, 16)
	rand.Read(key)
	k := base64.StdEncoding.EncodeToString(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, k)
	rd := bufio.NewReaderSize(conn, 1<<16)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		conn.Close()
		return err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return fmt.Errorf("websocket handshake: %s", resp.Status)
	}
	b.conn, b.rd = conn, rd
	return nil
}

func (b *browser) writeFrame(payload []byte) error {
	hdr := []byte{0x81} // FIN, text
	n := len(payload)
	switch {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	body := make([]byte, n)
	for i := range payload {
		body[i] = payload[i] ^ mask[i%4]
	}
	_, err := b.conn.Write(append(hdr, body...))
	return err
}

// readMessage reads one whole message (continuation frames joined; pings
// and other control frames skipped).
func (b *browser) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(b.rd, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var e [2]byte
			if _, err := io.ReadFull(b.rd, e[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(e[:]))
		case 127:
			var e [8]byte
			if _, err := io.ReadFull(b.rd, e[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(e[:])
		}
		if n > 64<<20 {
			return nil, errors.New("websocket frame too large")
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(b.rd, p); err != nil {
			return nil, err
		}
		switch op {
		case 8:
			return nil, io.EOF
		case 9, 10:
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

func (b *browser) readLoop() {
	defer close(b.done)
	for {
		data, err := b.readMessage()
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.wait[m.ID]
			delete(b.wait, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		b.event(m)
		select {
		case b.evs <- m:
		default:
		}
	}
}

// event records console errors, uncaught exceptions and error log entries.
func (b *browser) event(m cdpMessage) {
	var msg string
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &p)
		msg = "exception: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string            `json:"type"`
			Args []json.RawMessage `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			msg = "console." + p.Type + ": " + fmt.Sprint(rawStrings(p.Args))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Text, URL string } `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Entry.Level == "error" {
			msg = "log: " + p.Entry.Text + " " + p.Entry.URL
		}
	}
	if msg != "" {
		b.emu.Lock()
		b.errs = append(b.errs, msg)
		b.emu.Unlock()
	}
}

func rawStrings(r []json.RawMessage) []string {
	out := make([]string, len(r))
	for i, x := range r {
		out[i] = string(x)
	}
	return out
}

func (b *browser) consoleErrors() []string {
	b.emu.Lock()
	defer b.emu.Unlock()
	return append([]string(nil), b.errs...)
}

// call sends one command and waits for its result.
func (b *browser) call(method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.id++
	id := b.id
	ch := make(chan cdpMessage, 1)
	b.wait[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	err = b.writeFrame(data)
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-b.done:
		return nil, fmt.Errorf("%s: the browser closed the connection", method)
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer within 30 s", method)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value
// into out.
func (b *browser) eval(expr string, out any) error {
	res, err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluate %q: %s", expr, r.ExceptionDetails.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// open navigates to a file and waits until the page's script marks the
// body ready.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	if _, err := b.call("Page.navigate", map[string]any{"url": "file://" + path}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ready string
		if err := b.eval(`(document.body && document.body.dataset.ready) || ""`, &ready); err == nil && ready == "1" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the report did not finish rendering within 20 s; console: %v", b.consoleErrors())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// click presses and releases the left mouse button at (x, y) CSS pixels.
func (b *browser) click(x, y float64) error {
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}
		if typ == "mouseMoved" {
			p["button"] = "none"
		}
		if _, err := b.call("Input.dispatchMouseEvent", p); err != nil {
			return err
		}
	}
	return nil
}

// screenshot writes a PNG of the whole page.
func (b *browser) screenshot(path string, width int) error {
	var h float64
	if err := b.eval(`document.documentElement.scrollHeight`, &h); err != nil {
		return err
	}
	if _, err := b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": int(h), "deviceScaleFactor": 1, "mobile": false}); err != nil {
		return err
	}
	res, err := b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
	if err != nil {
		return err
	}
	var r struct{ Data string }
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
