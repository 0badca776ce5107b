package proxy

import (
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// TestApiVersionsAsKafka44 answers ApiVersions v0 to v5, and above, as
// Kafka 4.4's KafkaApis.handleApiVersionsRequest does: unsupported version
// first (v0 answer, UNSUPPORTED_VERSION, ApiVersions' own range: KIP-511),
// then ApiVersionsRequest.isValid (INVALID_REQUEST), then the KIP-1242
// cluster and node check (REBOOTSTRAP_REQUIRED), else the supported list.
func TestApiVersionsAsKafka44(t *testing.T) {
	_, addr := demoServer(t, DefaultLimits())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	type want struct {
		code    int16
		apiKeys int // number of API keys in the answer
	}
	all := len(Supported)
	cases := []struct {
		name  string
		v     int16
		setup func(r *kmsg.ApiVersionsRequest)
		want  want
	}{
		{"v0", 0, nil, want{0, all}},
		{"v1", 1, nil, want{0, all}},
		{"v2", 2, nil, want{0, all}},
		{"v3", 3, nil, want{0, all}},
		{"v4", 4, nil, want{0, all}},
		{"v5 without ids", 5, nil, want{0, all}},
		{"v3 empty software name", 3, func(r *kmsg.ApiVersionsRequest) { r.ClientSoftwareName = "" }, want{kafkaerr.InvalidRequest.Int16(), 0}},
		{"v3 software version with a space", 3, func(r *kmsg.ApiVersionsRequest) { r.ClientSoftwareVersion = "1 0" }, want{kafkaerr.InvalidRequest.Int16(), 0}},
		{"v3 software name ends in a dash", 3, func(r *kmsg.ApiVersionsRequest) { r.ClientSoftwareName = "client-" }, want{kafkaerr.InvalidRequest.Int16(), 0}},
		{"v5 cluster id without node id", 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID = strp("demo-cluster") }, want{kafkaerr.InvalidRequest.Int16(), 0}},
		{"v5 node id without cluster id", 5, func(r *kmsg.ApiVersionsRequest) { r.NodeID = 1 }, want{kafkaerr.InvalidRequest.Int16(), 0}},
		{"v5 matching ids", 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("demo-cluster"), 2 }, want{0, all}},
		{"v5 other cluster", 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("other"), 2 }, want{kafkaerr.RebootstrapRequired.Int16(), 0}},
		{"v5 unknown node", 5, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("demo-cluster"), 99 }, want{kafkaerr.RebootstrapRequired.Int16(), 0}},
		{"v4 ignores ids it cannot carry", 4, func(r *kmsg.ApiVersionsRequest) { r.ClusterID, r.NodeID = strp("other"), 99 }, want{0, all}},
		{"v6 unsupported", 6, nil, want{kafkaerr.UnsupportedVersion.Int16(), 1}},
		{"v32767 unsupported", 32767, nil, want{kafkaerr.UnsupportedVersion.Int16(), 1}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := kmsg.NewPtrApiVersionsRequest()
			req.Version = c.v
			req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta-test", "4.4.0-rc.1"
			if c.setup != nil {
				c.setup(req)
			}
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.Version = c.v
			if c.v > 5 {
				resp.Version = 0 // Kafka answers an unknown version at v0
			}
			if err := roundTrip(conn, req, resp, int32(i)); err != nil {
				t.Fatal(err)
			}
			if resp.ErrorCode != c.want.code || len(resp.ApiKeys) != c.want.apiKeys {
				t.Fatalf("got error %d with %d api keys, want %d with %d", resp.ErrorCode, len(resp.ApiKeys), c.want.code, c.want.apiKeys)
			}
			if c.want.code == kafkaerr.UnsupportedVersion.Int16() {
				if k := resp.ApiKeys[0]; k.ApiKey != 18 || k.MinVersion != 0 || k.MaxVersion != 5 {
					t.Fatalf("unsupported answer lists %+v, want ApiVersions 0-5", k)
				}
			}
			if c.want.code == 0 {
				got := map[int16][2]int16{}
				for _, k := range resp.ApiKeys {
					got[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
				}
				for _, a := range Supported {
					if got[a.Key] != [2]int16{a.Min, a.Max} {
						t.Fatalf("api %d: %v, want %d-%d", a.Key, got[a.Key], a.Min, a.Max)
					}
				}
			}
		})
	}
	// The connection served every answer above; a Metadata request still works.
	checkDemoMetadata(t, conn)
}

// TestUnservedClosesConnection: an API the proxy does not serve, a version
// above a served API's, and an API key Kafka does not know close the
// connection (SocketServer's parseRequestHeader: not enabled), without an
// answer; the server goes on serving others.
func TestUnservedClosesConnection(t *testing.T) {
	s, addr := demoServer(t, DefaultLimits())
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 14
	produce := kmsg.NewPtrProduceRequest()
	produce.Version = 9
	for _, frame := range [][]byte{
		requestFrame(md, 1),
		requestFrame(produce, 2),
		{0, 0, 0, 10, 0x7f, 0x00, 0, 0, 0, 0, 0, 1, 0xff, 0xff}, // api key 32512
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write(frame)
		if n, err := conn.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("frame %x: answered (%d bytes, %v)", frame, n, err)
		}
		conn.Close()
	}
	if got := s.stats.Invalid.Load(); got != 3 {
		t.Fatalf("%d invalid-request closes counted, want 3", got)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	checkDemoMetadata(t, conn)
}

// TestApiVersionsFeatures: from v3 the answer carries the image's finalized
// features (metadata.version among them) with the image's last offset as
// their epoch, and the supported features of the lowest broker id's
// registration, without those whose minimum is 0 below v4 (KAFKA-17492).
func TestApiVersionsFeatures(t *testing.T) {
	s, addr := demoServer(t, DefaultLimits())
	img := s.img.Load()
	mv, ok := img.Features().MetadataVersion()
	if !ok {
		t.Fatal("the demo image has no metadata.version")
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for v := int16(3); v <= 5; v++ {
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = v
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta-test", "1"
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = v
		if err := roundTrip(conn, req, resp, int32(v)); err != nil {
			t.Fatal(err)
		}
		if resp.FinalizedFeaturesEpoch != img.Provenance().LastContainedOffset {
			t.Errorf("v%d: finalized features epoch %d, want %d", v, resp.FinalizedFeaturesEpoch, img.Provenance().LastContainedOffset)
		}
		fin := map[string]int16{}
		for _, f := range resp.FinalizedFeatures {
			if f.MinVersionLevel != f.MaxVersionLevel || f.MaxVersionLevel == 0 {
				t.Errorf("v%d: finalized %+v", v, f)
			}
			fin[f.Name] = f.MaxVersionLevel
		}
		if fin["metadata.version"] != int16(mv) || len(fin) != len(img.Features().Finalized())+1 {
			t.Errorf("v%d: finalized %v, image %v at metadata.version %d", v, fin, img.Features().Finalized(), mv)
		}
		var zeroMin, total int
		for b := range img.Cluster().Brokers() {
			if b.ID() == 1 {
				for _, r := range b.SupportedFeatures() {
					total++
					if r.Min == 0 {
						zeroMin++
					}
				}
			}
		}
		if v == 3 {
			t.Logf("lowest broker: %d supported features, %d with minimum 0; finalized %v", total, zeroMin, fin)
		}
		want := total
		if v < 4 {
			want = total - zeroMin
		}
		if len(resp.SupportedFeatures) != want || total == 0 {
			t.Errorf("v%d: %d supported features, want %d of %d (%d with minimum 0)", v, len(resp.SupportedFeatures), want, total, zeroMin)
		}
	}
}
