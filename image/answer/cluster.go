package answer

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// Endpoint types of DescribeCluster (KIP-919, EndpointType).
const (
	EndpointUnknown    int8 = 0
	EndpointBroker     int8 = 1
	EndpointController int8 = 2
)

// ViaController says that a request arrived on a controller's listener
// (ControllerApis rather than KafkaApis). LeaderID is the raft leader, which
// is not in the image (-1 when unknown).
type ViaController struct {
	LeaderID int32
}

// DescribeCluster answers a DescribeCluster request (v0-v2) as Kafka 4.x's
// KafkaApis.handleDescribeCluster and AuthHelper.computeDescribeClusterResponse
// do: the registered brokers with the request's listener, fenced
// ones only when IncludeFencedBrokers (v2, KIP-1073); ControllerId an alive
// broker id, or -1 when that id is not among the brokers answered. The
// endpoint type is checked first, against the listener's
// (UNSUPPORTED_ENDPOINT_TYPE or MISMATCHED_ENDPOINT_TYPE, INVALID_REQUEST at
// v0); such an answer carries only the error and its message, and the
// cluster authorized operations are computed only after the check.
//
// With rq.Controller non-nil the listener is a controller's (ControllerApis
// .handleDescribeCluster): a metadata.version below 3.7-IV0 (or none) is
// answered UNSUPPORTED_VERSION, as Kafka's UnsupportedVersionException through
// DescribeClusterRequest.getErrorResponse; then ALTER on CLUSTER is required;
// the nodes are the registered controllers with the listener (KIP-919) and
// ControllerId is rq.Controller.LeaderID.
func (r *Responder) DescribeCluster(img *image.Image, req *kmsg.DescribeClusterRequest, rq Request) *kmsg.DescribeClusterResponse {
	o := r.call(rq)
	return describeCluster(img, req, &o)
}

// describeCluster is DescribeCluster.
func describeCluster(img *image.Image, req *kmsg.DescribeClusterRequest, o *call) *kmsg.DescribeClusterResponse {
	resp := kmsg.NewPtrDescribeClusterResponse()
	resp.Version = req.Version
	endpointType := EndpointBroker
	if o.Controller != nil {
		endpointType = EndpointController
		if code, msg := controllerEndpointError(img, o); code != kafkaerr.None {
			resp.ErrorCode, resp.ErrorMessage = int16(code), &msg
			return resp
		}
	}
	if code, msg := endpointTypeError(req, endpointType); code != kafkaerr.None {
		resp.ErrorCode, resp.ErrorMessage = int16(code), &msg
		return resp
	}
	resp.ClusterAuthorizedOperations = noAuthorizedOps
	if req.IncludeClusterAuthorizedOperations {
		if o.authorize(authz.OpDescribe, authz.ResourceCluster, authz.ClusterName) {
			resp.ClusterAuthorizedOperations = o.authorizedOps(authz.ResourceCluster, authz.ClusterName)
		} else {
			resp.ClusterAuthorizedOperations = 0
		}
	}
	resp.EndpointType = endpointType
	if o.ClusterID != "" {
		resp.ClusterID = o.ClusterID
	}
	var controller int32
	if o.Controller != nil {
		resp.Brokers = controllerNodes(resp.Brokers, img, o.Listener)
		controller = o.Controller.LeaderID
	} else {
		resp.Brokers = brokerNodes(resp.Brokers, img, o.Listener, req.Version >= 2 && req.IncludeFencedBrokers)
		controller = o.controllerID(img)
	}
	resp.ControllerID = -1
	for i := range resp.Brokers {
		if resp.Brokers[i].NodeID == controller {
			resp.ControllerID = controller
		}
	}
	return resp
}

// controllerEndpointError is the error of a DescribeCluster sent to a
// controller (ControllerApis.handleDescribeCluster): unsupported before
// controller registrations (3.7-IV0), refused without ALTER on the cluster.
func controllerEndpointError(img *image.Image, o *call) (kafkaerr.Code, string) {
	if mv, ok := img.Features().MetadataVersion(); !ok || !mv.ControllerRegistrationSupported() {
		return kafkaerr.UnsupportedVersion, "Direct-to-controller communication is not supported with the current MetadataVersion."
	}
	if !o.authorize(authz.OpAlter, authz.ResourceCluster, authz.ClusterName) {
		// Kafka's message names the request (RequestChannel.Request
		// .toString), which an answer built from an image does not
		// have; the error code is Kafka's.
		return kafkaerr.ClusterAuthorizationFailed, "Cluster authorization failed."
	}
	return kafkaerr.None, ""
}

// endpointTypeError checks the request's endpoint type (v1+; v0 asks for
// brokers) against the endpoint it reached (KafkaApis and ControllerApis
// handleDescribeCluster): an unknown type, or the other one, is an error,
// INVALID_REQUEST at v0.
func endpointTypeError(req *kmsg.DescribeClusterRequest, reached int8) (kafkaerr.Code, string) {
	want := req.EndpointType
	if req.Version < 1 {
		want = EndpointBroker
	}
	code, msg := kafkaerr.None, ""
	switch {
	case want != EndpointBroker && want != EndpointController:
		code, msg = kafkaerr.UnsupportedEndpointType, fmt.Sprintf("Unsupported endpoint type %d", want)
	case want != reached:
		code = kafkaerr.MismatchedEndpointType
		msg = fmt.Sprintf("The request was sent to an endpoint of type %s, but we wanted an endpoint of type %s", endpointTypeName(reached), endpointTypeName(want))
	}
	if code != kafkaerr.None && req.Version == 0 {
		code = kafkaerr.InvalidRequest
	}
	return code, msg
}

// controllerNodes appends the registered controllers' endpoints on
// listener.
func controllerNodes(out []kmsg.DescribeClusterResponseBroker, img *image.Image, listener string) []kmsg.DescribeClusterResponseBroker {
	for c := range img.Cluster().Controllers() {
		for _, ep := range c.Listeners() {
			if ep.Name == listener {
				b := kmsg.NewDescribeClusterResponseBroker()
				b.NodeID = c.ID()
				b.Host = ep.Host
				b.Port = int32(ep.Port)
				out = append(out, b)
			}
		}
	}
	return out
}

// brokerNodes appends the brokers with listener, fenced ones only when
// fenced is asked (v2, KIP-1073).
func brokerNodes(out []kmsg.DescribeClusterResponseBroker, img *image.Image, listener string, fenced bool) []kmsg.DescribeClusterResponseBroker {
	for b := range img.Cluster().Brokers() {
		ep, ok := b.Listener(listener)
		if !ok || (b.Fenced() && !fenced) {
			continue
		}
		e := kmsg.NewDescribeClusterResponseBroker()
		e.NodeID = b.ID()
		e.Host = ep.Host
		e.Port = int32(ep.Port)
		if r, ok := b.Rack(); ok {
			e.Rack = &r
		}
		e.IsFenced = b.Fenced()
		out = append(out, e)
	}
	return out
}

func endpointTypeName(t int8) string {
	switch t {
	case EndpointBroker:
		return "BROKER"
	case EndpointController:
		return "CONTROLLER"
	}
	return "UNKNOWN"
}
