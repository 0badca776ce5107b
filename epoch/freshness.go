package epoch

import "github.com/kmeta-go/kmeta/image/kafkaerr"

// InvalidMetadata reports whether a partition or topic error code is one of
// Kafka's InvalidMetadataException errors: the answers by which a broker
// tells a client that its metadata is out of date, and on which the Java
// client requests a metadata update (Metadata.handleMetadataResponse,
// Sender.completeBatch). Every error Check and CheckProduce return is one of
// them.
func InvalidMetadata(code kafkaerr.Code) bool {
	switch code {
	case kafkaerr.UnknownTopicOrPartition, kafkaerr.LeaderNotAvailable, kafkaerr.NotLeaderOrFollower,
		kafkaerr.ReplicaNotAvailable, kafkaerr.KafkaStorageError, kafkaerr.ListenerNotFound,
		kafkaerr.FencedLeaderEpoch, kafkaerr.UnknownLeaderEpoch, kafkaerr.UnknownTopicID,
		kafkaerr.InconsistentTopicID:
		return true
	}
	return false
}
