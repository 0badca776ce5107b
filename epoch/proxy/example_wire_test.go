package proxy_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// A request frame read from a connection, decoded, and its answer framed.
func ExampleDecode() {
	// A client's Metadata v12 request for topic "orders", as it arrives.
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr("orders")
	req.Topics = append(req.Topics, t)
	frame := []byte{0, 3, 0, 12, 0, 0, 0, 7, 0xff, 0xff, 0} // key, version, correlation id, null client id, no tags
	frame = req.AppendTo(frame)
	conn := bytes.NewReader(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...))

	f := proxy.NewFrameReader(conn)
	b, err := f.Next()
	if err != nil {
		panic(err)
	}
	h, body, err := proxy.Decode(b)
	if err != nil {
		panic(err)
	}
	md := body.(*kmsg.MetadataRequest)
	fmt.Println(kmsg.NameForKey(h.APIKey), h.APIVersion, h.CorrelationID, *md.Topics[0].Topic)

	// A hostile frame: one header tagged field of 100 bytes, none sent.
	_, _, err = proxy.Decode([]byte{0, 3, 0, 12, 0, 0, 0, 1, 0, 1, 'x', 1, 0, 100})
	fmt.Println(err)

	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = h.APIVersion
	out := proxy.AppendResponse(nil, h, resp.AppendTo(nil))
	fmt.Println(len(out), "bytes answered")
	// Output:
	// Metadata 12 7 orders
	// Metadata (key 3) v12: byte 14: HeaderTaggedFields: not enough bytes (100 bytes needed, 0 left)
	// 21 bytes answered
}

// ParseHeader reads any API's header, so a proxy can decide per request
// whether to answer it (DecodeBody) or pass the frame on.
func ExampleParseHeader() {
	produce := []byte{0, 0, 0, 9, 0, 0, 0, 5, 0, 2, 'c', '1', 0} // Produce v9: header v2
	h, err := proxy.ParseHeader(produce)
	if err != nil {
		panic(err)
	}
	fmt.Println(kmsg.NameForKey(h.APIKey), h.APIVersion, h.ClientID, "header", h.Version, "body at", h.Size)
	fmt.Println("answered here:", proxy.IsSupported(h.APIKey, h.APIVersion))
	_, err = proxy.DecodeBody(h, produce)
	fmt.Println(err)
	// Output:
	// Produce 9 c1 header 2 body at 13
	// answered here: false
	// Produce (key 0) v9: byte 13: unsupported api key or version
}

// An ApiVersions request at a version above 5 is answered, at version 0,
// with UNSUPPORTED_VERSION and ApiVersions' own range (KIP-511); its body is
// not read.
func ExampleIsUnsupportedApiVersions() {
	frame := []byte{0, 18, 0, 9, 0, 0, 0, 3, 0xff, 0xff, 0, 0xde, 0xad} // ApiVersions v9
	h, _ := proxy.ParseHeader(frame)
	if proxy.IsUnsupportedApiVersions(h) {
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = 0
		resp.ErrorCode = 35 // UNSUPPORTED_VERSION
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = 18, 0, 5
		resp.ApiKeys = append(resp.ApiKeys, k)
		out := proxy.AppendResponse(nil, h, resp.AppendTo(nil))
		fmt.Printf("header v%d, % x\n", proxy.ResponseHeaderVersion(h), out)
	}
	// Output:
	// header v0, 00 00 00 10 00 00 00 03 00 23 00 00 00 01 00 12 00 00 00 05
}
