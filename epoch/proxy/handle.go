package proxy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// handle answers one request frame (the bytes after its size), appending the
// whole response frame to out. An error means the connection is to be
// closed, as Kafka closes it: a frame that cannot be decoded, an API key it
// does not know, an API or version the proxy does not serve (except
// ApiVersions, which is answered at any version).
func (s *Server) handle(out, frame []byte) ([]byte, error) {
	return s.handleAs(out, frame, s.rq)
}

// handleAs is handle for the client rq names (its principal and host, for
// the authorizer of SetAuthorization).
func (s *Server) handleAs(out, frame []byte, rq answer.Request) ([]byte, error) {
	ans := s.responder()
	img := s.img.Load()
	if img == nil {
		return nil, errors.New("no image published yet")
	}
	h, err := ParseHeader(frame)
	if err != nil {
		return nil, err
	}
	start := len(out)
	out = AppendResponseHeader(out, h)
	if IsUnsupportedApiVersions(h) {
		out = unsupportedApiVersions().AppendTo(out)
		FinishResponse(out, start)
		return out, nil
	}
	req, err := DecodeBody(h, frame)
	if err != nil {
		return nil, err
	}
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		out = s.apiVersions(img, r).AppendTo(out)
	case *kmsg.MetadataRequest:
		out, _ = ans.AppendMetadata(out, img, r, rq)
	case *kmsg.DescribeClusterRequest:
		out = ans.DescribeCluster(img, r, rq).AppendTo(out)
	case *kmsg.DescribeTopicPartitionsRequest:
		out = ans.DescribeTopicPartitions(img, r, rq).AppendTo(out)
	case *kmsg.FindCoordinatorRequest:
		fr, _ := ans.FindCoordinator(img, r, rq)
		out = fr.AppendTo(out)
	default:
		return nil, fmt.Errorf("api %d not served", h.APIKey)
	}
	FinishResponse(out, start)
	return out, nil
}

// softwareNameVersion is ApiVersionsRequest's SOFTWARE_NAME_VERSION_PATTERN.
var softwareNameVersion = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

// apiVersions answers an ApiVersions request at a supported version as
// KafkaApis.handleApiVersionsRequest does in Kafka 4.4: INVALID_REQUEST when
// ApiVersionsRequest.isValid fails (from v3 a client software name and
// version matching Kafka's pattern; from v5 ClusterId and NodeId both set or
// both unset), REBOOTSTRAP_REQUIRED when a v5 request names a cluster id
// other than the proxy's or a node the proxy does not answer for (KIP-1242),
// else the supported APIs. Error answers carry no API keys
// (ApiVersionsRequest.getErrorResponse).
func (s *Server) apiVersions(img *image.Image, r *kmsg.ApiVersionsRequest) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = r.Version
	switch {
	case !apiVersionsValid(r):
		resp.ErrorCode = kafkaerr.InvalidRequest.Int16()
	case r.Version >= 5 && r.ClusterID != nil && (*r.ClusterID != s.ans.Config().ClusterID || !s.servesNode(img, r.NodeID)):
		resp.ErrorCode = kafkaerr.RebootstrapRequired.Int16()
	default:
		for _, a := range Supported {
			k := kmsg.NewApiVersionsResponseApiKey()
			k.ApiKey, k.MinVersion, k.MaxVersion = a.Key, a.Min, a.Max
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
		apiVersionsFeatures(resp, img, r.Version < 4)
	}
	return resp
}

// apiVersionsFeatures fills the features of an ApiVersions answer (tagged
// fields, carried from v3) as DefaultApiVersionManager.apiVersionResponse
// does from KRaftMetadataCache.features: the finalized features of the image
// at non-zero levels with metadata.version among them, and as their epoch
// the image's last contained offset; an image without a metadata.version
// has none and epoch -1 (FinalizedFeatures.unknown). The supported features
// are the broker's own ranges (BrokerFeatures.supportedFeatures); the proxy
// has none of its own and reports those the lowest broker id registered
// with. Below v4 a supported feature whose minimum is 0 is left out
// (ApiVersionsResponse.maybeFilterSupportedFeatureKeys, KAFKA-17492). The
// kraft.version Kafka adds from its raft client is not in the image and not
// reported.
func apiVersionsFeatures(resp *kmsg.ApiVersionsResponse, img *image.Image, alterLevel0 bool) {
	resp.FinalizedFeaturesEpoch = -1
	f := img.Features()
	if mv, ok := f.MetadataVersion(); ok {
		resp.FinalizedFeaturesEpoch = img.Provenance().LastContainedOffset
		levels := append(f.Finalized(), image.FeatureLevel{Name: image.MetadataVersionFeature, Level: int16(mv)})
		slices.SortFunc(levels, func(a, b image.FeatureLevel) int { return strings.Compare(a.Name, b.Name) })
		for _, l := range levels {
			if l.Level != 0 {
				k := kmsg.NewApiVersionsResponseFinalizedFeature()
				k.Name, k.MinVersionLevel, k.MaxVersionLevel = l.Name, l.Level, l.Level
				resp.FinalizedFeatures = append(resp.FinalizedFeatures, k)
			}
		}
	}
	var lowest *image.Broker
	for b := range img.Cluster().Brokers() {
		if lowest == nil || b.ID() < lowest.ID() {
			lowest = b
		}
	}
	if lowest == nil {
		return
	}
	for _, r := range lowest.SupportedFeatures() {
		if alterLevel0 && r.Min == 0 {
			continue
		}
		k := kmsg.NewApiVersionsResponseSupportedFeature()
		k.Name, k.MinVersion, k.MaxVersion = r.Name, r.Min, r.Max
		resp.SupportedFeatures = append(resp.SupportedFeatures, k)
	}
}

// apiVersionsValid is ApiVersionsRequest.isValid.
func apiVersionsValid(r *kmsg.ApiVersionsRequest) bool {
	if r.Version >= 5 && (r.ClusterID == nil) != (r.NodeID == -1) {
		return false
	}
	if r.Version >= 3 {
		return softwareNameVersion.MatchString(r.ClientSoftwareName) && softwareNameVersion.MatchString(r.ClientSoftwareVersion)
	}
	return true
}

// servesNode reports whether a client expecting node id at this address is
// where it meant to be: the proxy answers for every broker of the image
// (with -advertise they are all at its address), so any registered broker
// id is, where Kafka's broker accepts only its own (KafkaApis'
// clusterIdOrNodeIdIsInvalid).
func (s *Server) servesNode(img *image.Image, id int32) bool {
	_, ok := img.Cluster().Broker(id)
	return ok
}

// unsupportedApiVersions is Kafka's answer to an ApiVersions request at a
// version it does not know: version 0, UNSUPPORTED_VERSION, and only
// ApiVersions' own range (ApiVersionsRequest.getErrorResponse, KIP-511), so
// that the client retries at a version both sides know.
func unsupportedApiVersions() *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	resp.ErrorCode = kafkaerr.UnsupportedVersion.Int16()
	for _, a := range Supported {
		if a.Key == 18 {
			k := kmsg.NewApiVersionsResponseApiKey()
			k.ApiKey, k.MinVersion, k.MaxVersion = a.Key, a.Min, a.Max
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
	}
	return resp
}
