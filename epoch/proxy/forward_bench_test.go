package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// fakeUpstream is a one-broker cluster for the forwarder's benchmarks: it
// answers ApiVersions and Metadata (itself as broker 1, one topic of 3
// partitions) and a fixed Produce or Fetch answer, allocating nothing per
// request, so that a benchmark's allocations are the proxy's.
type fakeUpstream struct {
	ln      net.Listener
	answers map[int16][]byte // body by api key
}

func newFakeUpstream(tb testing.TB, records int) *fakeUpstream {
	return newFakeUpstreamWith(tb, records, nil)
}

// newFakeUpstreamWith is newFakeUpstream whose answers edit changes before
// it serves (a test's own brokers, topics, APIs or answers).
func newFakeUpstreamWith(tb testing.TB, records int, edit func(u *fakeUpstream, md *kmsg.MetadataResponse, av *kmsg.ApiVersionsResponse)) *fakeUpstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u := &fakeUpstream{ln: ln, answers: map[int16][]byte{}}
	host, portS, _ := net.SplitHostPort(ln.Addr().String())
	port, _ := net.LookupPort("tcp", portS)

	av := kmsg.NewPtrApiVersionsResponse()
	av.Version = 3
	for _, k := range []struct{ key, max int16 }{{0, 11}, {1, 16}, {3, 12}, {18, 3}, {60, 1}} {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MaxVersion = k.key, k.max
		av.ApiKeys = append(av.ApiKeys, ak)
	}
	md := kmsg.NewPtrMetadataResponse()
	md.Version = 12
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 1, host, int32(port)
	md.Brokers = append(md.Brokers, b)
	cid := "bench"
	md.ClusterID, md.ControllerID = &cid, 1
	mt := kmsg.NewMetadataResponseTopic()
	name := "bench"
	mt.Topic, mt.TopicID = &name, [16]byte{1}
	for p := range int32(3) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.LeaderEpoch, mp.Replicas, mp.ISR = p, 1, 0, []int32{1}, []int32{1}
		mt.Partitions = append(mt.Partitions, mp)
	}
	md.Topics = append(md.Topics, mt)

	pr := kmsg.NewPtrProduceResponse()
	pr.Version = 11
	pt := kmsg.NewProduceResponseTopic()
	pt.Topic = name
	pp := kmsg.NewProduceResponseTopicPartition()
	pt.Partitions = append(pt.Partitions, pp)
	pr.Topics = append(pr.Topics, pt)
	u.answers[0] = pr.AppendTo(nil)

	fr := kmsg.NewPtrFetchResponse()
	fr.Version = 16
	ft := kmsg.NewFetchResponseTopic()
	ft.TopicID = [16]byte{1}
	fp := kmsg.NewFetchResponseTopicPartition()
	fp.HighWatermark = 1000
	fp.RecordBatches = make([]byte, records)
	ft.Partitions = append(ft.Partitions, fp)
	fr.Topics = append(fr.Topics, ft)
	u.answers[1] = fr.AppendTo(nil)

	if edit != nil {
		edit(u, md, av)
	}
	u.answers[18] = av.AppendTo(nil)
	u.answers[3] = md.AppendTo(nil)
	go u.serve()
	tb.Cleanup(func() { ln.Close() })
	return u
}

func (u *fakeUpstream) serve() {
	for {
		c, err := u.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			fr := NewFrameReader(c)
			w := bufio.NewWriter(c)
			var hdr [9]byte
			for {
				frame, err := fr.Next()
				if err != nil {
					return
				}
				key := int16(binary.BigEndian.Uint16(frame))
				ver := int16(binary.BigEndian.Uint16(frame[2:]))
				body := u.answers[key]
				flex := flexibleResponseHeader(key, ver)
				n := 4 + len(body)
				if flex {
					n++
				}
				binary.BigEndian.PutUint32(hdr[:], uint32(n))
				copy(hdr[4:8], frame[4:8])
				h := hdr[:8]
				if flex {
					h = hdr[:9]
				}
				w.Write(h)
				w.Write(body)
				w.Flush()
			}
		}()
	}
}

// benchForwarder starts a forwarder in front of u and returns it with the
// address of broker 1's port.
func benchForwarder(tb testing.TB, u *fakeUpstream) (*Forwarder, string) {
	return benchForwarderWith(tb, u, nil)
}

// benchForwarderWith is benchForwarder with edit applied to the forwarder
// before it starts.
func benchForwarderWith(tb testing.TB, u *fakeUpstream, edit func(f *Forwarder)) (*Forwarder, string) {
	var f *Forwarder
	ports := newBrokerPorts("127.0.0.1", 0, func(ln net.Listener, id int32) { f.serveBrokerPort(ln, id) })
	f = newForwarder([]string{u.ln.Addr().String()}, 10*time.Second, ports)
	tb.Cleanup(ports.Close)
	if edit != nil {
		edit(f)
	}
	if err := f.start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	addr, ok := ports.Addrs()[1]
	if !ok {
		tb.Fatal("no port for broker 1")
	}
	return f, addr
}

// fwdRequestFrame is a whole request frame with client id "bench".
func fwdRequestFrame(req kmsg.Request) []byte {
	return appendRequest(nil, req, 1, "bench")
}

// benchRoundTrips is benchTLSRoundTrips in plaintext.
func benchRoundTrips(b *testing.B, addr string, frame []byte) {
	benchTLSRoundTrips(b, addr, nil, frame)
}

// BenchmarkForwardProduce is the proxy's cost per forwarded Produce (v11,
// one partition, 1 KiB of records, acks=all) and its answer: frame read,
// header parse, write upstream under the proxy's correlation id, answer
// read, scanned for addresses and errors (ScanProduce), written
// back under the client's id.
func BenchmarkForwardProduce(b *testing.B) {
	u := newFakeUpstream(b, 0)
	_, addr := benchForwarder(b, u)
	benchRoundTrips(b, addr, fwdRequestFrame(benchProduceRequest()))
}

// benchProduceRequest is a Produce v11 for one partition with 1 KiB of
// records, acks=all.
func benchProduceRequest() *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = 11, -1, 30000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "bench"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = make([]byte, 1024)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// BenchmarkForwardFetch is BenchmarkForwardProduce for a Fetch (v16) whose
// answer carries 64 KiB of records for one partition.
func BenchmarkForwardFetch(b *testing.B) {
	u := newFakeUpstream(b, 64<<10)
	_, addr := benchForwarder(b, u)
	benchRoundTrips(b, addr, fwdRequestFrame(benchFetchRequest()))
}

// benchFetchRequest is a Fetch v16 for one partition of the topic with id
// 1, 1 MiB at most.
func benchFetchRequest() *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.MaxBytes = 16, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.TopicID = [16]byte{1}
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.PartitionMaxBytes = 1 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// BenchmarkMetadata1000Clients is the metadata path under 1000 concurrent
// clients, each on its own connection to the bootstrap port, asking for
// every topic (v12) one request at a time: the answer is built from the
// view and rewritten per client; the view refreshes from upstream when the
// policy allows (a client's request asks for one, within the backoff and
// MinInterval). ns/op is per answered request, all clients together.
func BenchmarkMetadata1000Clients(b *testing.B) {
	const clients = 1000
	u := newFakeUpstream(b, 0)
	f, _ := benchForwarder(b, u)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go f.serveBroker(ln, -1)
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	frame := fwdRequestFrame(req)
	conns := make([]net.Conn, clients)
	for i := range conns {
		if conns[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			b.Fatal(err)
		}
		defer conns[i].Close()
	}
	per := b.N/clients + 1
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := bufio.NewReader(c)
			buf := make([]byte, 4096)
			var size [4]byte
			for range per {
				if _, err := c.Write(frame); err != nil {
					b.Error(err)
					return
				}
				if _, err := io.ReadFull(r, size[:]); err != nil {
					b.Error(err)
					return
				}
				n := int(binary.BigEndian.Uint32(size[:]))
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				if _, err := io.ReadFull(r, buf[:n]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(f.stats.Refreshes.Load()), "refreshes")
}

// TestForwardAllocationsPerRequest holds the forwarding path to the bound
// of BENCHMARKS.md: a forwarded Produce or Fetch whose answer needs no
// rewriting allocates nothing per request, in the proxy, the test client
// and the fake upstream together (the connection's answer buffer is
// reused, and its header's client id is the last request's: parseHeader).
// It runs the
// benchmarks once each (not timed: only allocations are compared). The
// race detector's own allocations would be counted, so it is skipped
// under -race.
func TestForwardAllocationsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, c := range []struct {
		name string
		b    func(*testing.B)
	}{{"Produce", BenchmarkForwardProduce}, {"Fetch", BenchmarkForwardFetch}} {
		r := testing.Benchmark(c.b)
		if r.N == 0 {
			t.Fatalf("%s: the benchmark failed", c.name)
		}
		// Not AllocsPerOp, which rounds down: 0.9 would pass as 0. The
		// 0.05 is room for the runtime's own rare allocations.
		if a := float64(r.MemAllocs) / float64(r.N); a > 0.05 {
			t.Errorf("%s: %.2f allocations per forwarded request (%d B), want none", c.name, a, r.AllocedBytesPerOp())
		}
		t.Logf("%s: %.3f allocations, %d B per request over %d requests", c.name, float64(r.MemAllocs)/float64(r.N), r.AllocedBytesPerOp(), r.N)
	}
}
