package main

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// hostileUpstream is a Kafka cluster of one listener that answers
// ApiVersions and Metadata (with brokers as many and as broken as the test
// asks) and answers Produce and Fetch as the request's client id says:
//
//   - "huge": an answer announced at 2^31-1 bytes, then bytes as fast as
//     the proxy reads them;
//   - "big": a well-formed answer of bigBytes, sent in 64 KiB pieces 20 ms
//     apart (so that many are held at once);
//   - "drip": an announced 1 MiB answer, one byte every 50 ms;
//   - "garbage": random bytes;
//   - "reset": the connection reset (linger 0);
//   - anything else: an empty Fetch answer.
type hostileUpstream struct {
	ln       net.Listener
	bigBytes int

	mu      sync.Mutex // guards brokers, set by the test while serve runs
	brokers []kmsg.MetadataResponseBroker
}

// setBrokers sets the brokers the upstream's Metadata answers list.
func (u *hostileUpstream) setBrokers(b []kmsg.MetadataResponseBroker) {
	u.mu.Lock()
	u.brokers = b
	u.mu.Unlock()
}

func newHostileUpstream(t *testing.T, bigBytes int) *hostileUpstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	u := &hostileUpstream{ln: ln, bigBytes: bigBytes}
	go u.serve()
	return u
}

// port is the upstream's listening port.
func (u *hostileUpstream) port() int32 { return int32(u.ln.Addr().(*net.TCPAddr).Port) }

func (u *hostileUpstream) serve() {
	for {
		c, err := u.ln.Accept()
		if err != nil {
			return
		}
		go u.serveConn(c)
	}
}

func (u *hostileUpstream) serveConn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		var size [4]byte
		if _, err := io.ReadFull(r, size[:]); err != nil {
			return
		}
		frame := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(r, frame); err != nil {
			return
		}
		key, ver := int16(binary.BigEndian.Uint16(frame)), int16(binary.BigEndian.Uint16(frame[2:]))
		corr := frame[4:8]
		idLen := int(int16(binary.BigEndian.Uint16(frame[8:])))
		clientID := ""
		if idLen > 0 {
			clientID = string(frame[10 : 10+idLen])
		}
		var body []byte
		switch key {
		case 18:
			av := kmsg.NewPtrApiVersionsResponse()
			av.Version = ver
			for _, k := range []struct{ key, max int16 }{{0, 11}, {1, 16}, {3, 12}, {18, 3}, {20, 6}} {
				ak := kmsg.NewApiVersionsResponseApiKey()
				ak.ApiKey, ak.MaxVersion = k.key, k.max
				av.ApiKeys = append(av.ApiKeys, ak)
			}
			body = av.AppendTo(nil)
		case 3:
			md := kmsg.NewPtrMetadataResponse()
			md.Version = ver
			u.mu.Lock()
			md.Brokers = u.brokers
			u.mu.Unlock()
			cid := "hostile"
			md.ClusterID, md.ControllerID = &cid, 1
			body = md.AppendTo(nil)
		default:
			if !u.hostile(c, clientID, corr) {
				return
			}
			continue
		}
		out := binary.BigEndian.AppendUint32(nil, 0)
		out = append(out, corr...)
		if key != 18 && ver >= 9 {
			out = append(out, 0)
		}
		out = append(out, body...)
		binary.BigEndian.PutUint32(out, uint32(len(out)-4))
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// hostile answers a Produce or Fetch request as mode says; false ends the
// connection.
func (u *hostileUpstream) hostile(c net.Conn, mode string, corr []byte) bool {
	switch mode {
	case "huge":
		c.Write(append([]byte{0x7f, 0xff, 0xff, 0xff}, corr...))
		chunk := make([]byte, 1<<20)
		for {
			if _, err := c.Write(chunk); err != nil {
				return false
			}
		}
	case "big":
		c.Write(binary.BigEndian.AppendUint32(nil, uint32(u.bigBytes)))
		c.Write(corr)
		chunk := make([]byte, 64<<10)
		for left := u.bigBytes - 4; left > 0; left -= len(chunk) {
			if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
				return false
			}
			time.Sleep(20 * time.Millisecond)
		}
		return true
	case "drip":
		c.Write(binary.BigEndian.AppendUint32(nil, 1<<20))
		for {
			if _, err := c.Write([]byte{0}); err != nil {
				return false
			}
			time.Sleep(50 * time.Millisecond)
		}
	case "garbage":
		b := make([]byte, 4096)
		rand.Read(b)
		c.Write(b)
		return true
	case "reset":
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		return false
	}
	fr := kmsg.NewPtrFetchResponse()
	fr.Version = 12
	out := append(binary.BigEndian.AppendUint32(nil, 0), corr...)
	out = append(out, 0)
	out = fr.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	_, err := c.Write(out)
	return err == nil
}

// hostileBrokers are n broker registrations as a broken upstream lists
// them: one good broker (id 1, the upstream itself), then ids from 2 with
// every fifth negative, every seventh at an invalid host and every
// eleventh at port 0 or above 65535.
func hostileBrokers(n int, port int32) []kmsg.MetadataResponseBroker {
	var out []kmsg.MetadataResponseBroker
	for i := range n {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = int32(i+1), "127.0.0.1", port
		switch {
		case i == 0:
		case i%5 == 0:
			b.NodeID = -int32(i)
		case i%7 == 0:
			b.Host = "bad host/" + strings.Repeat("x", i%300)
		case i%11 == 0:
			b.Port = []int32{0, -1, 70000}[i%3]
		}
		out = append(out, b)
	}
	return out
}

// fetchThrough sends one Fetch v12 request with client id mode to addr and
// reads whatever comes back until the connection ends or 10 s pass.
func fetchThrough(t *testing.T, addr, mode string, wg *sync.WaitGroup) {
	defer wg.Done()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req := kmsg.NewPtrFetchRequest()
	req.Version = 12
	req.MaxBytes = 1 << 30
	c.Write(appendRequest(req, mode))
	io.Copy(io.Discard, c)
}

// appendRequest is a request frame with the client id.
func appendRequest(req kmsg.Request, clientID string) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(req.GetVersion()))
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	b = req.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}
