// Package answer builds the answers a Kafka broker gives from its metadata
// cache: Metadata (v0-v13), DescribeCluster (v0-v2), DescribeTopicPartitions
// (v0, KIP-966) and FindCoordinator (v0-v6), as kmsg responses, exactly as
// KafkaApis and KRaftMetadataCache build them. It also resolves a
// topic's effective configuration and a client's quotas from the image.
//
// Every answer is a pure function of an image, a request and Options (the
// listener the request came on, who sent it, the broker's configuration):
//
//	img := cache.Load()
//	mv, _ := img.Features().MetadataVersion()
//	az := authz.New(img.ACLs(), authz.Config{
//	    SuperUsers:      []string{"User:admin"},
//	    MetadataVersion: mv, // CIDR host patterns from 4.4-IV1
//	})
//	resp, create := answer.Metadata(img, req, &answer.Options{
//	    Listener:   "PLAINTEXT",
//	    ClusterID:  clusterID, // from meta.properties; not in the image
//	    Authorizer: az,
//	    Principal:  "User:alice", Host: "10.0.0.7",
//	})
//	for _, t := range create { /* ask the controller to create t (auto-creation) */ }
//
// Answers never alias the image: everything in a response is the caller's.
// Partitions come in ascending id order; the topic order of each answer is
// documented on its function (Kafka iterates hash sets, kmeta fixes an
// order). ControllerId, a random alive broker in Kafka
// (KIP-590), is the lowest alive broker id unless Options.ControllerID picks.
//
// Kafka's own answers are the reference: the package's tests replay Kafka
// 4.3.1's answers to every version of these requests, for real metadata logs
// and snapshots, and compare them byte for byte. Where Kafka throws instead
// of answering (a null Metadata topic name at v12, a DescribeTopicPartitions
// topic named "" without a cursor), kmeta answers as Kafka's code would
// without the exception; Metadata and DescribeTopicPartitions say how.
//
// For request storms, Memo hands out a Metadata answer's encoded bytes,
// built once per image and distinct request.
//
// Why a sub-package of image: answers need kmsg and the authorizer, which
// the image itself does not; keeping them apart keeps image free of the
// protocol library while answers read only image's exported API.
package answer
