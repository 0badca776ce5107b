// Package answer builds the answers a Kafka broker gives from its metadata
// cache: Metadata (v0-v13), DescribeCluster (v0-v2), DescribeTopicPartitions
// (v0, KIP-966) and FindCoordinator (v0-v6), as kmsg responses, exactly as
// KafkaApis and KRaftMetadataCache build them. It also resolves a
// topic's effective configuration and a client's quotas from the image.
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
