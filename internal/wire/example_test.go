package wire_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/internal/wire"
)

// A request frame read from a connection, decoded, and its answer framed.
func Example() {
	// A client's Metadata v12 request for topic "orders", as it arrives.
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr("orders")
	req.Topics = append(req.Topics, t)
	frame := []byte{0, 3, 0, 12, 0, 0, 0, 7, 0xff, 0xff, 0} // key, version, correlation id, null client id, no tags
	frame = req.AppendTo(frame)
	conn := bytes.NewReader(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...))

	f := wire.NewFrameReader(conn)
	b, err := f.Next()
	if err != nil {
		panic(err)
	}
	h, body, err := wire.Decode(b)
	if err != nil {
		panic(err)
	}
	md := body.(*kmsg.MetadataRequest)
	fmt.Println(kmsg.NameForKey(h.APIKey), h.APIVersion, h.CorrelationID, *md.Topics[0].Topic)

	// A hostile frame: one header tagged field of 100 bytes, none sent.
	_, _, err = wire.Decode([]byte{0, 3, 0, 12, 0, 0, 0, 1, 0, 1, 'x', 1, 0, 100})
	fmt.Println(err)

	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = h.APIVersion
	out := wire.AppendResponse(nil, h, resp.AppendTo(nil))
	fmt.Println(len(out), "bytes answered")
	// Output:
	// Metadata 12 7 orders
	// Metadata (key 3) v12: byte 14: HeaderTaggedFields: not enough bytes (100 bytes needed, 0 left)
	// 21 bytes answered
}
