package proxy

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// readFrame reads one response frame (after its size).
func readFrame(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var size [4]byte
	_, err := io.ReadFull(r, size[:])
	require.NoError(t, err)
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	_, err = io.ReadFull(r, b)
	require.NoError(t, err)
	return b
}

// TestForwardPipelinedInOrder writes a forwarded Produce, a Metadata the
// proxy answers itself, an API the proxy does not offer and a second
// Produce back to back on one connection: the answers come in request
// order, each under its request's correlation id (the proxy forwards under
// ids of its own), the Metadata brokers are the proxy's ports, and the
// unoffered API (DescribeQuorum, whose answer lists controller listeners no
// rewriter handles) is refused with UNSUPPORTED_VERSION without reaching
// upstream.
func TestForwardPipelinedInOrder(t *testing.T) {
	u := newFakeUpstream(t, 0)
	f, addr := benchForwarder(t, u)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))

	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	dq := kmsg.NewPtrDescribeQuorumRequest()
	dq.Version = 1
	var out []byte
	out = appendRequest(out, produce, 1001, "t")
	out = appendRequest(out, md, 1002, "t")
	out = appendRequest(out, dq, 1003, "t")
	out = appendRequest(out, produce, 1004, "t")
	forwardedBefore := f.stats.Forwarded.Load()
	_, err = conn.Write(out)
	require.NoError(t, err)

	r := bufio.NewReader(conn)
	for _, want := range []int32{1001, 1002, 1003, 1004} {
		frame := readFrame(t, r)
		require.Equal(t, want, int32(binary.BigEndian.Uint32(frame)), "answers in request order, under the client's ids")
		switch want {
		case 1002:
			resp := kmsg.NewPtrMetadataResponse()
			resp.Version = 12
			require.NoError(t, resp.ReadFrom(frame[5:]))
			require.Len(t, resp.Brokers, 1)
			got := net.JoinHostPort(resp.Brokers[0].Host, itoa(resp.Brokers[0].Port))
			require.Equal(t, addr, got, "broker 1 at its proxy port")
			require.Len(t, resp.Topics, 1)
		case 1003:
			resp := kmsg.NewPtrDescribeQuorumResponse()
			resp.Version = 1
			require.NoError(t, resp.ReadFrom(frame[5:])) // flexible: response header v1
			require.Equal(t, int16(kafkaerr.UnsupportedVersion.Int16()), resp.ErrorCode)
		}
	}
	require.Equal(t, int64(2), f.stats.Forwarded.Load()-forwardedBefore, "only the two Produce requests reached upstream")
	require.Equal(t, int64(1), f.stats.Refused.Load())
}

// TestForwardUpstreamGone: a broker port whose upstream is gone, and that
// no refresh within the upstream timeout finds elsewhere (connectUpstream),
// closes the client's connection (as a dead broker's would) instead of
// answering.
func TestForwardUpstreamGone(t *testing.T) {
	u := newFakeUpstream(t, 0)
	f, addr := benchForwarderWith(t, u, func(f *Forwarder) { f.timeout = time.Second })
	u.ln.Close() // the broker stops listening; the view still names it
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	_, err = conn.Write(appendRequest(nil, produce, 1, "t"))
	require.NoError(t, err)
	_, err = conn.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the connection is closed, not answered")
	require.Equal(t, int64(1), f.stats.UpstreamFails.Load())
}
