package image

import (
	"fmt"
	"strconv"

	"github.com/kmeta-go/kmeta/record"
)

// Provenance says which log position an image reflects (MetadataProvenance).
type Provenance struct {
	// LastContainedOffset is the offset of the last record in the image.
	LastContainedOffset int64
	// LastContainedEpoch is the epoch of that record.
	LastContainedEpoch int32
	// LastContainedLogTimeMs is the append time of that record's batch.
	LastContainedLogTimeMs int64
	// BatchAligned is false when the image ends inside a batch (a delta cut
	// before a BeginTransaction); such an image is not snapshotted.
	BatchAligned bool
}

// EmptyProvenance is MetadataProvenance.EMPTY.
var EmptyProvenance = Provenance{LastContainedOffset: -1, LastContainedEpoch: -1, LastContainedLogTimeMs: -1}

// SnapshotName is the file name of a snapshot of this image
// ("<offset+1, 20 digits>-<epoch, 10 digits>.checkpoint").
func (p Provenance) SnapshotName() string {
	return fmt.Sprintf("%020d-%010d.checkpoint", p.LastContainedOffset+1, p.LastContainedEpoch)
}

// String prints the provenance as Kafka's MetadataProvenance.toString does.
func (p Provenance) String() string {
	return "MetadataProvenance(lastContainedOffset=" + strconv.FormatInt(p.LastContainedOffset, 10) +
		", lastContainedEpoch=" + strconv.Itoa(int(p.LastContainedEpoch)) +
		", lastContainedLogTimeMs=" + strconv.FormatInt(p.LastContainedLogTimeMs, 10) +
		", isOffsetBatchAligned=" + strconv.FormatBool(p.BatchAligned) + ")"
}

// Image is an immutable metadata image, Kafka's MetadataImage. An Image is a
// value: nothing reachable from it is ever modified, so any number of
// goroutines may read it while the next image is being built. Images made
// by a delta share every part that did not change with their base.
type Image struct {
	provenance Provenance
	features   *Features
	cluster    *Cluster
	topics     *Topics
	configs    *Configs
	quotas     *ClientQuotas
	producerID int64
	acls       *ACLs
	scram      *Scram
	tokens     *Tokens
}

var empty = &Image{
	provenance: EmptyProvenance,
	features:   emptyFeatures,
	cluster:    emptyCluster,
	topics:     emptyTopics,
	configs:    emptyConfigs,
	quotas:     emptyQuotas,
	producerID: -1,
	acls:       emptyACLs,
	scram:      emptyScram,
	tokens:     emptyTokens,
}

// Empty returns the empty image (MetadataImage.EMPTY): no metadata.version,
// nothing registered, provenance EmptyProvenance.
func Empty() *Image { return empty }

// Provenance is the log position the image reflects.
func (img *Image) Provenance() Provenance { return img.provenance }

// Features is the finalized features.
func (img *Image) Features() *Features { return img.features }

// Cluster is the broker and controller registrations.
func (img *Image) Cluster() *Cluster { return img.cluster }

// Topics is the topics and partitions.
func (img *Image) Topics() *Topics { return img.topics }

// Configs is the dynamic configurations.
func (img *Image) Configs() *Configs { return img.configs }

// ClientQuotas is the client quotas.
func (img *Image) ClientQuotas() *ClientQuotas { return img.quotas }

// NextProducerID is the first producer id of the next block, -1 if none was
// ever issued (ProducerIdsImage).
func (img *Image) NextProducerID() int64 { return img.producerID }

// ACLs is the access control entries.
func (img *Image) ACLs() *ACLs { return img.acls }

// Scram is the SCRAM credentials.
func (img *Image) Scram() *Scram { return img.scram }

// Tokens is the delegation tokens.
func (img *Image) Tokens() *Tokens { return img.tokens }

// IsEmpty reports whether the image holds nothing (MetadataImage.isEmpty;
// the provenance is not considered).
func (img *Image) IsEmpty() bool {
	return img.features.mv == 0 && len(img.features.finalized) == 0 && img.cluster.brokers.Len() == 0 &&
		img.cluster.controllers.Len() == 0 && img.topics.Len() == 0 && img.configs.Len() == 0 &&
		img.quotas.Len() == 0 && img.producerID < 0 && img.acls.Len() == 0 && img.scram.Len() == 0 &&
		img.tokens.Len() == 0
}

// Topic returns the topic named name.
func (img *Image) Topic(name string) (Topic, bool) { return img.topics.ByName(name) }

// TopicByID returns the topic with id.
func (img *Image) TopicByID(id record.UUID) (Topic, bool) { return img.topics.ByID(id) }

// Leader returns the leader of partition p of topic name and its leader
// epoch; ok is false when the topic or partition does not exist. A partition
// with no leader returns NoLeader.
func (img *Image) Leader(name string, p int32) (leader, leaderEpoch int32, ok bool) {
	t, ok := img.topics.byName.getName(name)
	if !ok {
		return NoLeader, -1, false
	}
	part, ok := t.partition(p)
	if !ok {
		return NoLeader, -1, false
	}
	return part.p.leader, part.p.leaderEpoch, true
}
