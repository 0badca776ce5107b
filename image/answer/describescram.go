package answer

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/internal/javahash"
)

// DescribeUserSCRAMCredentials answers a DescribeUserScramCredentials
// request (v0, KIP-554) as Kafka's
// KafkaApis.handleDescribeUserScramCredentialsRequest and
// ScramImage.describe do: DESCRIBE on the cluster is required, else every
// listed user gets CLUSTER_AUTHORIZATION_FAILED (as does the answer); no
// users (null or empty) describes every user with a credential; a user
// listed twice gets DUPLICATE_RESOURCE, one without a credential
// RESOURCE_NOT_FOUND, each with Kafka's message; the others get the
// mechanism and iteration count of each of their credentials.
//
// The results come in the iteration order of the java.util.HashMap Kafka
// collects the users in (javahash.HashMapOrder over the users in request
// order; for all users, SCRAM-SHA-256's then SCRAM-SHA-512's in name order,
// where Kafka's insertion order, and so the order of users sharing a
// bucket, follows its image's history). A user's credentials are listed
// SCRAM-SHA-256 first; Kafka's order is that of a HashMap keyed by the
// mechanism enum, whose hash differs from one JVM to the next.
//
// Kafka throws a NullPointerException on an unauthorized request whose user
// list is null (getErrorResponse walks the list) and sends no answer; kmeta
// answers it with the error and no results.
func (r *Responder) DescribeUserSCRAMCredentials(img *image.Image, req *kmsg.DescribeUserSCRAMCredentialsRequest, rq Request) *kmsg.DescribeUserSCRAMCredentialsResponse {
	resp := kmsg.NewPtrDescribeUserSCRAMCredentialsResponse()
	resp.Version = req.Version
	if a := r.cfg.Authorizer; a != nil && !a.Authorize(authz.Context{Principal: rq.Principal, Host: rq.Host},
		authz.OpDescribe, authz.ResourceCluster, authz.ClusterName) {
		resp.ErrorCode = int16(kafkaerr.ClusterAuthorizationFailed)
		for range req.Users {
			res := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
			res.ErrorCode = resp.ErrorCode
			resp.Results = append(resp.Results, res)
		}
		return resp
	}
	resp.ErrorMessage = new(string)
	scram := img.Scram()
	var names []string
	if len(req.Users) == 0 {
		for k := range scram.Keys() {
			names = append(names, k.User)
		}
	} else {
		names = make([]string, len(req.Users))
		for i, u := range req.Users {
			names[i] = u.Name
		}
	}
	counts := make(map[string]int, len(names))
	for _, n := range names {
		counts[n]++
	}
	for _, i := range javahash.HashMapOrder(names) {
		resp.Results = append(resp.Results, scramResult(scram, names[i], counts[names[i]] > 1 && len(req.Users) > 0))
	}
	return resp
}

// scramResult is one user's result of ScramImage.describe.
func scramResult(scram *image.Scram, user string, duplicate bool) kmsg.DescribeUserSCRAMCredentialsResponseResult {
	res := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
	res.User = user
	if duplicate {
		res.ErrorCode = int16(kafkaerr.DuplicateResource)
		msg := "Cannot describe SCRAM credentials for the same user twice in a single request: " + user
		res.ErrorMessage = &msg
		return res
	}
	for _, m := range [...]int8{image.ScramSHA256, image.ScramSHA512} {
		if c, ok := scram.Get(image.ScramKey{Mechanism: m, User: user}); ok {
			info := kmsg.NewDescribeUserSCRAMCredentialsResponseResultCredentialInfo()
			info.Mechanism, info.Iterations = m, c.Iterations
			res.CredentialInfos = append(res.CredentialInfos, info)
		}
	}
	if len(res.CredentialInfos) == 0 {
		res.ErrorCode = int16(kafkaerr.ResourceNotFound)
		msg := "Attempt to describe a user credential that does not exist: " + user
		res.ErrorMessage = &msg
		return res
	}
	res.ErrorMessage = new(string)
	return res
}
