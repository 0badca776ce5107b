package proxy

import (
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/publisher/dirfollow"
)

// TestHandle answers ApiVersions and a flexible Metadata request frame with
// the advertised address.
func TestHandle(t *testing.T) {
	dir := sharedtest.Path(t, "vectors", "snapshots", "mv-4.0-IV0-kraft0", "__cluster_metadata-0")
	img, err := dirfollow.LoadImage(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(DefaultListener(img), "cid", "127.0.0.1:7777")
	if _, err := s.handle(nil, nil); err == nil {
		t.Fatal("a server with no image yet must refuse")
	}
	if err := s.OnUpdate(publisher.Update{Image: img}); err != nil {
		t.Fatal(err)
	}
	frame := func(key, v int16, body []byte, flexible bool) []byte {
		f := binary.BigEndian.AppendUint16(nil, uint16(key))
		f = binary.BigEndian.AppendUint16(f, uint16(v))
		f = binary.BigEndian.AppendUint32(f, 42)
		f = binary.BigEndian.AppendUint16(f, 0xffff) // null client id
		if flexible {
			f = append(f, 0)
		}
		return append(f, body...)
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 3
	av.ClientSoftwareName, av.ClientSoftwareVersion = "kmeta-test", "1.0"
	out, err := s.handle(nil, frame(18, 3, av.AppendTo(nil), true))
	if err != nil {
		t.Fatal(err)
	}
	avr := kmsg.NewPtrApiVersionsResponse()
	avr.Version = 3
	if err := avr.ReadFrom(out[8:]); err != nil || len(avr.ApiKeys) != len(Supported) {
		t.Fatalf("ApiVersions: %v %+v", err, avr)
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	out, err = s.handle(nil, frame(3, 12, md.AppendTo(nil), true))
	if err != nil {
		t.Fatal(err)
	}
	if binary.BigEndian.Uint32(out[4:]) != 42 || out[8] != 0 {
		t.Fatal("response header")
	}
	mr := kmsg.NewPtrMetadataResponse()
	mr.Version = 12
	if err := mr.ReadFrom(out[9:]); err != nil {
		t.Fatal(err)
	}
	if len(mr.Brokers) == 0 || *mr.ClusterID != "cid" {
		t.Fatalf("metadata %+v", mr)
	}
	for _, b := range mr.Brokers {
		if b.Host != "127.0.0.1" || b.Port != 7777 {
			t.Errorf("broker %d not advertised as the proxy: %s:%d", b.NodeID, b.Host, b.Port)
		}
	}
}
