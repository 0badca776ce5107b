package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// APIRange is an API key and the versions of it this package decodes.
type APIRange struct{ Key, Min, Max int16 }

// Supported are the requests DecodeBody decodes, at Kafka 4.4's versions
// (the validVersions of their schemas): a broker answering exactly these
// lists them in its ApiVersions answer.
var Supported = [...]APIRange{
	{3, 0, 13}, // Metadata
	{10, 0, 6}, // FindCoordinator
	{18, 0, 5}, // ApiVersions (v5: KIP-1242)
	{60, 0, 2}, // DescribeCluster
	{75, 0, 0}, // DescribeTopicPartitions
}

// IsSupported reports whether DecodeBody decodes key at version.
func IsSupported(key, version int16) bool {
	for _, a := range Supported {
		if a.Key == key {
			return version >= a.Min && version <= a.Max
		}
	}
	return false
}

// IsUnsupportedApiVersions reports whether h is an ApiVersions request at a
// version DecodeBody does not decode: Kafka does not parse its body and
// answers it at version 0 with UNSUPPORTED_VERSION and its own ApiVersions
// range (RequestContext.parseRequest, ApiVersionsRequest.getErrorResponse,
// KIP-511).
func IsUnsupportedApiVersions(h Header) bool {
	return h.APIKey == 18 && !IsSupported(18, h.APIVersion)
}

// Decode decodes a whole request frame (the bytes after its 4-byte size):
// its header and then its body (DecodeBody).
func Decode(frame []byte) (Header, kmsg.Request, error) {
	h, err := ParseHeader(frame)
	if err != nil {
		return h, nil, err
	}
	req, err := DecodeBody(h, frame)
	return h, req, err
}

// DecodeBody decodes the body of the request whose header h was parsed from
// frame (the body starts at h.Size), for the APIs and versions in
// Supported; others are ErrUnsupportedVersion. Bytes after the body are
// ignored, as Kafka ignores them. The request returned holds no reference to
// frame.
func DecodeBody(h Header, frame []byte) (kmsg.Request, error) {
	r := reader{b: frame, off: h.Size, key: h.APIKey, ver: h.APIVersion}
	if h.Size > len(frame) {
		r.off = len(frame)
		r.fail(ErrTruncated, "header size %d beyond the frame", h.Size)
		return nil, r.err
	}
	if !IsSupported(h.APIKey, h.APIVersion) {
		r.fail(ErrUnsupportedVersion, "")
		return nil, r.err
	}
	v := h.APIVersion
	var req kmsg.Request
	switch h.APIKey {
	case 3:
		req = r.metadata(v)
	case 10:
		req = r.findCoordinator(v)
	case 18:
		req = r.apiVersions(v)
	case 60:
		req = r.describeCluster(v)
	case 75:
		req = r.describeTopicPartitions(v)
	}
	if r.failed {
		return nil, r.err
	}
	return req, nil
}

// grow is the capacity to reserve for n elements of at least min bytes
// each: never more than the bytes left could hold.
func (r *reader) grow(n int32, min int) int {
	if c := r.left() / min; int(n) > c {
		return c
	}
	return int(n)
}

// metadata reads MetadataRequestData: Topics (nullable from v1, each a
// TopicId from v10 and a Name nullable from v10), AllowAutoTopicCreation
// (v4+), IncludeClusterAuthorizedOperations (v8-10),
// IncludeTopicAuthorizedOperations (v8+); flexible from v9.
func (r *reader) metadata(v int16) *kmsg.MetadataRequest {
	flex := v >= 9
	req := kmsg.NewPtrMetadataRequest()
	req.Version = v
	r.field = "Topics"
	n, null := r.arrayLen(flex, v >= 1)
	if !null {
		min := 2 // a name: int16 length, or compact length and tagged fields
		if v >= 10 {
			min = 18
		}
		c := r.grow(n, min)
		req.Topics = make([]kmsg.MetadataRequestTopic, 0, c)
		names := make([]string, 0, c) // one allocation for the names' pointers
		for i := int32(0); i < n && !r.failed; i++ {
			t := kmsg.NewMetadataRequestTopic()
			if v >= 10 {
				r.field = "Topics.TopicId"
				t.TopicID = r.uuid()
			}
			r.field = "Topics.Name"
			if v < 10 {
				names = append(names, r.string(flex))
				t.Topic = &names[len(names)-1]
			} else if s, ok := r.nullableStringValue(flex); ok {
				names = append(names, s)
				t.Topic = &names[len(names)-1]
			}
			if flex {
				r.tags("Topics.TaggedFields")
			}
			req.Topics = append(req.Topics, t)
		}
	}
	if v >= 4 {
		r.field = "AllowAutoTopicCreation"
		req.AllowAutoTopicCreation = r.bool()
	} else {
		req.AllowAutoTopicCreation = true
	}
	if v >= 8 && v <= 10 {
		r.field = "IncludeClusterAuthorizedOperations"
		req.IncludeClusterAuthorizedOperations = r.bool()
	}
	if v >= 8 {
		r.field = "IncludeTopicAuthorizedOperations"
		req.IncludeTopicAuthorizedOperations = r.bool()
	}
	if flex {
		r.tags("TaggedFields")
	}
	return req
}

// findCoordinator reads FindCoordinatorRequestData: Key (v0-3), KeyType
// (v1+), CoordinatorKeys (v4+); flexible from v3.
func (r *reader) findCoordinator(v int16) *kmsg.FindCoordinatorRequest {
	flex := v >= 3
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.Version = v
	if v <= 3 {
		r.field = "Key"
		req.CoordinatorKey = r.string(flex)
	}
	if v >= 1 {
		r.field = "KeyType"
		req.CoordinatorType = r.int8()
	}
	if v >= 4 {
		r.field = "CoordinatorKeys"
		n, _ := r.arrayLen(flex, false)
		req.CoordinatorKeys = make([]string, 0, r.grow(n, 1))
		for i := int32(0); i < n && !r.failed; i++ {
			req.CoordinatorKeys = append(req.CoordinatorKeys, r.string(flex))
		}
	}
	if flex {
		r.tags("TaggedFields")
	}
	return req
}

// apiVersions reads ApiVersionsRequestData: ClientSoftwareName and
// ClientSoftwareVersion (v3+), ClusterId (nullable) and NodeId (v5+,
// KIP-1242); flexible from v3.
func (r *reader) apiVersions(v int16) *kmsg.ApiVersionsRequest {
	flex := v >= 3
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = v
	if v >= 3 {
		r.field = "ClientSoftwareName"
		req.ClientSoftwareName = r.string(flex)
		r.field = "ClientSoftwareVersion"
		req.ClientSoftwareVersion = r.string(flex)
	}
	if v >= 5 {
		r.field = "ClusterId"
		req.ClusterID = r.nullableString(flex)
		r.field = "NodeId"
		req.NodeID = r.int32()
	}
	if flex {
		r.tags("TaggedFields")
	}
	return req
}

// describeCluster reads DescribeClusterRequestData:
// IncludeClusterAuthorizedOperations, EndpointType (v1+, default 1),
// IncludeFencedBrokers (v2+); flexible at every version.
func (r *reader) describeCluster(v int16) *kmsg.DescribeClusterRequest {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.Version = v
	r.field = "IncludeClusterAuthorizedOperations"
	req.IncludeClusterAuthorizedOperations = r.bool()
	if v >= 1 {
		r.field = "EndpointType"
		req.EndpointType = r.int8()
	}
	if v >= 2 {
		r.field = "IncludeFencedBrokers"
		req.IncludeFencedBrokers = r.bool()
	}
	r.tags("TaggedFields")
	return req
}

// describeTopicPartitions reads DescribeTopicPartitionsRequestData v0:
// Topics (each a Name), ResponsePartitionLimit, Cursor (a nullable struct:
// a marker byte, negative for null, then TopicName and PartitionIndex);
// flexible.
func (r *reader) describeTopicPartitions(v int16) *kmsg.DescribeTopicPartitionsRequest {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.Version = v
	r.field = "Topics"
	n, _ := r.arrayLen(true, false)
	req.Topics = make([]kmsg.DescribeTopicPartitionsRequestTopic, 0, r.grow(n, 2))
	for i := int32(0); i < n && !r.failed; i++ {
		t := kmsg.NewDescribeTopicPartitionsRequestTopic()
		r.field = "Topics.Name"
		t.Topic = r.string(true)
		r.tags("Topics.TaggedFields")
		req.Topics = append(req.Topics, t)
	}
	r.field = "ResponsePartitionLimit"
	req.ResponsePartitionLimit = r.int32()
	r.field = "Cursor"
	if r.int8() >= 0 && !r.failed {
		c := &kmsg.DescribeTopicPartitionsRequestCursor{}
		c.Default()
		r.field = "Cursor.TopicName"
		c.Topic = r.string(true)
		r.field = "Cursor.PartitionIndex"
		c.Partition = r.int32()
		r.tags("Cursor.TaggedFields")
		req.Cursor = c
	}
	r.tags("TaggedFields")
	return req
}
