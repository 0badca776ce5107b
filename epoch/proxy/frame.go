package proxy

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strconv"
	"time"
)

// DefaultMaxRequestBytes is Kafka's default socket.request.max.bytes
// (SocketServerConfigs.SOCKET_REQUEST_MAX_BYTES_DEFAULT): 100 MiB.
const DefaultMaxRequestBytes = 100 * 1024 * 1024

// DefaultIdleTimeout is Kafka's default connections.max.idle.ms
// (SocketServerConfigs.CONNECTIONS_MAX_IDLE_MS_DEFAULT): 10 minutes.
const DefaultIdleTimeout = 10 * time.Minute

// frameChunk is the first buffer a frame gets; it doubles as bytes arrive.
const frameChunk = 4 << 10

// keepBuffer is the largest buffer kept for the next frame of a connection.
const keepBuffer = 64 << 10

// deadliner is the part of net.Conn the reader uses for its timeouts.
type deadliner interface{ SetReadDeadline(time.Time) error }

// FrameReader reads request frames (a 4-byte big-endian size, then that
// many bytes) from a connection, as Kafka's NetworkReceive does: the size is
// checked against MaxBytes before anything is allocated, and the frame's
// buffer grows as its bytes arrive (doubling from 4 KiB), so a frame that
// declares 100 MiB and sends ten bytes costs 4 KiB.
//
// With a reader that has SetReadDeadline (a net.Conn), IdleTimeout bounds the
// wait for the first byte of a next frame (Kafka's connections.max.idle.ms,
// ErrIdle) and ReadTimeout the time from that byte to the frame's last
// (ErrSlow: a client trickling a frame). Kafka has no read timeout of the
// latter kind; it closes a trickling connection only when its idle time
// runs out. Zero disables either.
type FrameReader struct {
	MaxBytes    int           // socket.request.max.bytes; 0 is DefaultMaxRequestBytes
	IdleTimeout time.Duration // connections.max.idle.ms
	ReadTimeout time.Duration // first byte to last of one frame

	r    io.Reader
	dl   deadliner
	buf  []byte
	size [4]byte // the size prefix; a field, so that reading it through io.Reader does not move it to the heap per frame
}

// NewFrameReader returns a reader of frames from r with Kafka's defaults
// (MaxBytes DefaultMaxRequestBytes, IdleTimeout DefaultIdleTimeout, no
// ReadTimeout).
func NewFrameReader(r io.Reader) *FrameReader {
	f := &FrameReader{MaxBytes: DefaultMaxRequestBytes, IdleTimeout: DefaultIdleTimeout, r: r}
	f.dl, _ = r.(deadliner)
	return f
}

// Next reads the next frame and returns its bytes (after the size), valid
// until the next call. At a clean end of the connection before a frame
// begins it returns io.EOF; a frame cut short is io.ErrUnexpectedEOF; a
// size below zero or above MaxBytes is an *Error wrapping ErrFrameSize; a
// timeout is ErrIdle or ErrSlow.
func (f *FrameReader) Next() ([]byte, error) {
	size := f.size[:]
	if err := f.deadline(f.IdleTimeout); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(f.r, size[:1]); err != nil {
		if isTimeout(err) {
			return nil, ErrIdle
		}
		return nil, err
	}
	if err := f.deadline(f.ReadTimeout); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(f.r, size[1:]); err != nil {
		return nil, f.cut(err)
	}
	n := int(int32(binary.BigEndian.Uint32(size)))
	max := f.MaxBytes
	if max <= 0 {
		max = DefaultMaxRequestBytes
	}
	if n < 0 || n > max {
		return nil, &Error{APIKey: -1, APIVersion: -1, Offset: -4, Field: "Size", Err: ErrFrameSize, Detail: sizeDetail(n, max)}
	}
	if cap(f.buf) > keepBuffer {
		f.buf = nil
	}
	buf := f.buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			c := max2(2*cap(buf), frameChunk)
			if c > n {
				c = n
			}
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		m, err := f.r.Read(buf[len(buf):min(cap(buf), n)]) // never past this frame: the next may follow
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, f.cut(err)
		}
	}
	f.buf = buf
	return buf, nil
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func sizeDetail(n, max int) string {
	if n < 0 {
		return "negative size " + strconv.Itoa(n)
	}
	return "size " + strconv.Itoa(n) + " above socket.request.max.bytes " + strconv.Itoa(max)
}

func (f *FrameReader) deadline(d time.Duration) error {
	if f.dl == nil {
		return nil
	}
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	return f.dl.SetReadDeadline(t)
}

func (f *FrameReader) cut(err error) error {
	if isTimeout(err) {
		return ErrSlow
	}
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
