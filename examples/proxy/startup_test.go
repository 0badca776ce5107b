package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/internal/proxytest"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
)

func captureLog(t *testing.T) *proxytest.Log { return proxytest.CaptureLog(t) }

// startRun runs the proxy with args in-process and returns its address once
// it listens and serves (run never returns while it serves; the goroutine
// ends with the test binary).
func startRun(t *testing.T, wait time.Duration, args ...string) (string, chan error) {
	t.Helper()
	addr, _, errc := startRunReady(t, wait, args...)
	return addr, errc
}

// startRunReady is startRun that also returns the channel run signals ready
// on, for a proxy that was not ready within wait: its address arrives there
// later (a proxy following a directory that has no image yet).
func startRunReady(t *testing.T, wait time.Duration, args ...string) (string, <-chan net.Addr, chan error) {
	t.Helper()
	ready := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(append([]string{"-listen", "127.0.0.1:0"}, args...), ready) }()
	select {
	case addr := <-ready:
		return addr.String(), ready, errc
	case err := <-errc:
		t.Fatalf("run: %v", err)
	case <-time.After(wait):
	}
	return "", ready, errc
}

func metadataAll(t *testing.T, addr string) *kmsg.MetadataResponse {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	if err := proxytest.RoundTrip(c, req, resp, 1); err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestStartOnEmptyDirectories: an empty metadata directory, one holding only
// a .checkpoint.part (a snapshot Kafka is still writing), one whose only
// segment is still empty, and one that does not exist yet start the proxy serving an empty cluster, with a line
// saying so.
func TestStartOnEmptyDirectories(t *testing.T) {
	empty := t.TempDir()
	part := t.TempDir()
	if err := os.WriteFile(filepath.Join(part, "00000000000000000100-0000000001.checkpoint.part"), []byte("half a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "not-yet")
	emptyLog := t.TempDir() // a segment Kafka created and has not written to yet
	if err := os.WriteFile(filepath.Join(emptyLog, "00000000000000000000.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"empty": empty, "checkpoint.part only": part, "missing": missing, "empty segment": emptyLog} {
		t.Run(name, func(t *testing.T) {
			logs := captureLog(t)
			addr, _ := startRun(t, 20*time.Second, dir)
			if addr == "" {
				t.Fatal("the proxy did not start")
			}
			if !strings.Contains(logs.String(), dir+" holds no metadata snapshot or log yet: serving an empty cluster") {
				t.Fatalf("no start-up line saying so:\n%s", logs)
			}
			resp := metadataAll(t, addr)
			if len(resp.Brokers) != 0 || len(resp.Topics) != 0 || resp.ErrorCode != 0 {
				t.Fatalf("empty cluster answered %+v", resp)
			}
		})
	}
}

// TestFollowWaitsForFirstImage: with -follow on an empty directory the
// proxy says it waits, and serves once Kafka writes there: a first log
// segment (a node formatted and started after the proxy), or a snapshot
// (written as Kafka writes one: a .checkpoint.part, then renamed).
func TestFollowWaitsForFirstImage(t *testing.T) {
	vec := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0")
	for _, c := range []struct{ name, file string }{
		{"log segment", "00000000000000000000.log"},
		{"snapshot", "00000000000000000542-0000000005.checkpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			logs := captureLog(t)
			addr, ready, errc := startRunReady(t, 1500*time.Millisecond, "-follow", dir)
			if addr != "" {
				t.Fatal("the proxy served before the directory had an image")
			}
			if !strings.Contains(logs.String(), "waiting for Kafka to write it (-follow)") {
				t.Fatalf("no line saying it waits:\n%s", logs)
			}
			data, err := os.ReadFile(filepath.Join(vec, c.file))
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, c.file)
			if strings.HasSuffix(dst, ".checkpoint") {
				if err := os.WriteFile(dst+".part", data, 0o644); err != nil {
					t.Fatal(err)
				}
				time.Sleep(500 * time.Millisecond) // a .checkpoint.part alone is not an image
				if strings.Contains(logs.String(), "brokers,") {
					t.Fatal("served from a .checkpoint.part")
				}
				err = os.Rename(dst+".part", dst)
			} else {
				err = os.WriteFile(dst, data, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			// The address comes on the ready channel (the log is shared with
			// other proxies still running in this test binary).
			select {
			case a := <-ready:
				addr = a.String()
			case err := <-errc:
				t.Fatalf("run: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatalf("the proxy did not start after Kafka wrote the directory:\n%s", logs)
			}
			// A segment being written can be read half done (an image of
			// its first batches, or of none); the whole arrives next.
			resp := metadataAll(t, addr)
			for end := time.Now().Add(20 * time.Second); (len(resp.Brokers) == 0 || len(resp.Topics) == 0) && time.Now().Before(end); {
				time.Sleep(50 * time.Millisecond)
				resp = metadataAll(t, addr)
			}
			if len(resp.Brokers) == 0 || len(resp.Topics) == 0 {
				t.Fatalf("after Kafka wrote: %d brokers, %d topics", len(resp.Brokers), len(resp.Topics))
			}
		})
	}
}
