// Package answer builds the answers a Kafka broker gives from its metadata
// cache: Metadata (v0-v13), DescribeCluster (v0-v2), DescribeTopicPartitions
// (v0, KIP-966) and FindCoordinator (v0-v6), as kmsg responses, exactly as
// KafkaApis and KRaftMetadataCache build them. It also resolves a
// topic's effective configuration from the image (client quotas: package
// image/quota).
//
// A Responder answers as one broker. It is built once from the broker's
// configuration (Config: cluster id, authorizer, coordinator partition
// counts, auto-creation) and owns what it caches; each call takes the image
// to answer from, the request and a small Request value (the listener the
// request came on and who sent it):
//
//	img := cache.Load()
//	mv, _ := img.Features().MetadataVersion()
//	r := answer.New(answer.Config{
//	    ClusterID: clusterID, // from meta.properties; not in the image
//	    Authorizer: authz.New(img.ACLs(), authz.Config{
//	        SuperUsers:      []string{"User:admin"},
//	        MetadataVersion: mv, // CIDR host patterns from 4.4-IV1
//	    }),
//	})
//	resp, create := r.Metadata(img, req, answer.Request{
//	    Listener: "PLAINTEXT", Principal: "User:alice", Host: "10.0.0.7",
//	})
//	for _, t := range create { /* ask the controller to create t (auto-creation) */ }
//
// Every answer is a pure function of the Config, the image, the request and
// the Request; the Responder's caches change how fast it comes, never what
// it is. The package keeps no state of its own: two Responders share
// nothing.
//
// Answers never alias the image: everything in a response is the caller's.
// Partitions come in ascending id order; the topic order of each answer is
// documented on its function (Kafka iterates hash sets, kmeta fixes an
// order). ControllerId, a random alive broker in Kafka
// (KIP-590), is the lowest alive broker id unless Config.ControllerID picks.
//
// Kafka's own answers are the reference: the package's tests replay Kafka
// 4.3.1's answers to every version of these requests, for real metadata logs
// and snapshots, and compare them byte for byte. Where Kafka throws instead
// of answering (a null Metadata topic name at v12, a DescribeTopicPartitions
// topic named "" without a cursor), kmeta answers as Kafka's code would
// without the exception; Metadata and DescribeTopicPartitions say how.
//
// # Versions
//
// The request's Version sets the answer's: every answer is built at
// req.Version (resp.Version is set to it) with exactly the fields and error
// codes Kafka gives at that version, and resp.AppendTo encodes it at that
// version. A request read from the wire must therefore carry the version of
// its request header before its body is read, as kmsg requires anyway:
//
//	req := kmsg.NewPtrMetadataRequest()
//	req.SetVersion(hdr.APIVersion) // the header's request_api_version
//	if err := req.ReadFrom(body); err != nil { ... }
//	resp, _ := r.Metadata(img, req, rq) // resp.Version == hdr.APIVersion
//
// A zero Version in a request built in code answers at version 0 (Metadata
// v0 has no cluster id, no controller and no rack). The Responder does not
// refuse a version: a server checks the header's version against the range
// it advertises in ApiVersions (kmsg's MaxVersion, capped by what Kafka 4.4
// supports for the API) and answers UNSUPPORTED_VERSION itself. The response
// header (correlation id, and a tag section when the response is flexible,
// kmsg's IsFlexible) is the server's too: AppendMetadata returns the body
// only.
//
// For request storms, Responder.AppendMetadata hands out a Metadata answer's
// encoded bytes, built once per image and distinct request.
//
// The credentials' describe answers come from the same image:
// DescribeUserSCRAMCredentials (ScramImage.describe), DescribeACLs
// (StandardAuthorizer.acls) and DescribeDelegationToken
// (DelegationTokenManager's filter, with a TokenRequest for the secret key
// and the connection's security), replayed against Kafka 4.4's own answers
// byte for byte; logging a client in is package image/credential's.
//
// Why a sub-package of image: answers need kmsg and the authorizer, which
// the image itself does not; keeping them apart keeps image free of the
// protocol library while answers read only image's exported API.
package answer
