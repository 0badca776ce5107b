package main

import (
	"github.com/kmeta-go/kmeta/internal/proxytest"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkConnections1000 opens 1 000 concurrent connections on loopback to
// a proxy process (-demo), has each answered (an ApiVersions and a Metadata
// request), and reports the proxy's resident memory per open connection
// (proxy-RSS-B/conn: its VmRSS with the 1 000 open, minus before, over
// 1 000), and the time per connection set up and answered. Each iteration
// starts a fresh process, so that no earlier iteration's memory is reused.
//
//	go test -run '^$' -bench Connections1000 -benchtime 3x ./examples/proxy
func BenchmarkConnections1000(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	b.ReportAllocs()
	var perConn float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cmd, addr, _ := proxytest.StartProcess(b, "-listen", "127.0.0.1:0", "-demo")
		warm, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		proxytest.CheckDemoMetadata(b, warm) // the answer cache and image warm
		time.Sleep(200 * time.Millisecond)
		_, before := proxytest.ProcStat(b, cmd.Process.Pid)
		b.StartTimer()
		conns := make([]net.Conn, 1000)
		for j := range conns {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns[j] = c
			av := kmsg.NewPtrApiVersionsRequest()
			av.Version = 3
			av.ClientSoftwareName, av.ClientSoftwareVersion = "bench", "1"
			avr := kmsg.NewPtrApiVersionsResponse()
			avr.Version = 3
			if err := proxytest.RoundTrip(c, av, avr, 1); err != nil || avr.ErrorCode != 0 {
				b.Fatal(err, avr.ErrorCode)
			}
			proxytest.CheckDemoMetadata(b, c)
		}
		b.StopTimer()
		time.Sleep(200 * time.Millisecond)
		_, with := proxytest.ProcStat(b, cmd.Process.Pid)
		perConn += float64(with-before) * 1024 / 1000
		for _, c := range conns {
			c.Close()
		}
		warm.Close()
		cmd.Process.Kill()
		cmd.Wait()
		b.StartTimer()
	}
	b.ReportMetric(perConn/float64(b.N), "proxy-RSS-B/conn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/conn")
}
