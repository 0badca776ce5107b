package delta

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// ErrRejected is wrapped by every error Replay returns for a record that
// contradicts the image (errors.Is(err, ErrRejected)).
var ErrRejected = errors.New("record rejected")

// ErrNewerVersion is wrapped (with ErrRejected) by the error Replay returns
// for a record that only a newer Kafka than kmeta knows can have written: a
// FeatureLevelRecord for a metadata.version feature level above
// image.LatestMetadataVersion (Kafka's MetadataVersion.fromFeatureLevel
// throws "No MetadataVersion with feature level N"). Unlike a record that
// contradicts the image, such a record cannot be skipped without serving a
// wrong image: publisher's loader halts on it in every mode. Record versions
// and apiKeys kmeta does not know fail earlier, when the record is decoded
// (record.ErrUnsupportedVersion, record.ErrUnknownType).
var ErrNewerVersion = errors.New("written by a newer Kafka than kmeta knows")

// ErrNilRecord is the cause (RecordError.Err) of the error Replay returns
// for a nil record.
var ErrNilRecord = errors.New("nil record")

// RecordError is the error Replay and ReplayAt return for a record the
// delta rejects (Kafka's MetadataDelta.replay throws; its loader reports
// the record and skips it). It adds the delta's facts once, as
// metalog.CorruptionError does for a file: the record's offset, the record
// itself, and the cause. Callers around it add their own facts (the file,
// the snapshot) and nothing about the record.
type RecordError struct {
	// Offset is the record's offset in the metadata log, as given to
	// ReplayAt; -1 when the record was replayed with Replay.
	Offset int64
	// Record is the rejected record; nil for a nil record (Err is then
	// ErrNilRecord).
	Record record.Record
	// Err says why; it is ErrNewerVersion for a record only a newer Kafka
	// can have written, ErrNilRecord for a nil record.
	Err error
}

// Error names the record's type and offset, prints the record in Kafka's
// JsonConverter form at its highest version, and the
// cause: "delta: PARTITION_RECORD at offset 7 {…}: unknown topic id …".
func (e *RecordError) Error() string {
	at := ""
	if e.Offset >= 0 {
		at = fmt.Sprintf(" at offset %d", e.Offset)
	}
	if e.Record == nil {
		return fmt.Sprintf("delta: record%s: %v", at, e.Err)
	}
	js, jerr := e.Record.AppendJSON(nil, e.Record.HighestVersion())
	if jerr != nil {
		return fmt.Sprintf("delta: %s%s: %v", e.Record.Type(), at, e.Err)
	}
	return fmt.Sprintf("delta: %s%s %s: %v", e.Record.Type(), at, js, e.Err)
}

// Unwrap returns ErrRejected and Err, for errors.Is and errors.As.
func (e *RecordError) Unwrap() []error { return []error{ErrRejected, e.Err} }

// Delta accumulates records replayed over a base image (Kafka's
// MetadataDelta) and applies them into the next image.
//
// A Delta is not safe for concurrent use; the images it reads and makes are.
// A record that Replay rejects leaves the Delta exactly as it was, so the
// caller may skip it and go on, as Kafka's loader does.
type Delta struct {
	base     *image.Image
	snapshot bool

	// features (FeaturesDelta)
	mv       image.MetadataVersion // 0 = unchanged
	features map[string]int16      // 0 = removed

	// cluster (ClusterDelta); nil = unregistered
	brokers     map[int32]*image.Broker
	controllers map[int32]*image.Controller

	// topics (TopicsDelta)
	topics   map[record.UUID]*topicDelta
	order    topicDeltas              // every topicDelta made, in order; dropped ones are skipped
	growing  *topicDelta              // the topic the last partition was put in
	sizeHint int                      // partitions of the topic growing before it
	deleted  map[record.UUID]struct{} // ids of base topics
	created  nameMap                  // names created in this delta

	// configs (ConfigurationsDelta)
	configs map[image.ConfigResource]*configDelta

	// client quotas (ClientQuotasDelta)
	quotas map[string]*quotaDelta

	// producer ids (ProducerIdsDelta)
	producerID    int64
	producerIDSet bool

	// ACLs (AclsDelta); nil = removed
	acls    map[record.UUID]*image.ACL
	aclSeq  map[record.UUID]int // replay position of each id in acls (AclsDelta.changes order)
	aclNext int

	// SCRAM (ScramDelta); nil = removed
	scram map[image.ScramKey]*image.ScramCredential

	// delegation tokens (DelegationTokenDelta); nil = removed
	tokens map[string]*image.Token
}

// topicDelta is Kafka's TopicDelta: a topic's partitions as changed so far.
type topicDelta struct {
	base    image.Topic // the base image's topic; zero when created by a TopicRecord here
	name    string
	id      record.UUID
	b       *image.TopicBuilder // the partitions being changed, when changed since the last Apply
	built   image.Topic         // the topic the last Apply froze b into, when not changed since
	dropped bool                // no longer in Delta.topics (removed or replaced)
	changed map[int32]struct{}
	// dirsRewritten: changed partitions whose directories a record of the
	// delta replaced (see rewriteDirs); nil when none
	dirsRewritten map[int32]struct{}
}

type configDelta struct {
	clearBase bool
	changes   map[string]*string
}

type quotaDelta struct {
	parts     []image.QuotaEntityPart
	clearBase bool
	changes   map[string]*float64
}

// New returns an empty delta over base (nil means image.Empty()), for
// replaying log records.
func New(base *image.Image) *Delta {
	if base == nil {
		base = image.Empty()
	}
	return &Delta{base: base}
}

// NewSnapshot returns an empty delta over base for loading a snapshot: replay
// every record of the snapshot, call FinishSnapshot, then Apply (Kafka's
// MetadataLoader.loadSnapshot). In a snapshot delta a TopicRecord may name a
// topic that the base image holds under another id: the base topic is not
// re-asserted and FinishSnapshot deletes it.
func NewSnapshot(base *image.Image) *Delta {
	d := New(base)
	d.snapshot = true
	return d
}

// Base is the image the delta applies to.
func (d *Delta) Base() *image.Image { return d.base }

// MetadataVersionChanged returns the metadata.version replayed in this
// delta, if any (MetadataDelta.metadataVersionChanged).
func (d *Delta) MetadataVersionChanged() (image.MetadataVersion, bool) { return d.mv, d.mv != 0 }

func reject(r record.Record, format string, args ...any) error {
	return &RecordError{Record: r, Err: fmt.Errorf(format, args...)}
}

// Replay applies one record to the delta (MetadataDelta.replay). Records
// are dispatched by type; every rule is documented on the replay method of
// its type. Transaction markers (Begin/End/AbortTransaction) belong to the
// loader and are accepted and ignored here, as are NoOpRecord and
// ZkMigrationStateRecord (Kafka 4.x reads and ignores the latter).
//
// A rejected record returns a *RecordError (wrapping ErrRejected) and leaves
// the delta unchanged.
//
// Replay keeps no slice of r, only copies (and r's strings), so r may come
// from a record.Decoder, which reuses its records and their slices.
func (d *Delta) Replay(r record.Record) error { return d.ReplayAt(-1, r) }

// ReplayAt is Replay of the record at offset in the metadata log: a
// rejected record's *RecordError carries offset (-1 means none).
func (d *Delta) ReplayAt(offset int64, r record.Record) error {
	err := d.replay(r)
	if err != nil {
		setOffset(err, offset)
	}
	return err
}

// setOffset records offset in the *RecordError err holds (kept out of
// ReplayAt so that the variable errors.As needs is made only on an error).
func setOffset(err error, offset int64) {
	var re *RecordError
	if errors.As(err, &re) {
		re.Offset = offset
	}
}

func (d *Delta) replay(r record.Record) error {
	switch r := r.(type) {
	case *record.FeatureLevelRecord:
		return d.replayFeatureLevel(r)
	case *record.RegisterBrokerRecord:
		return d.replayRegisterBroker(r)
	case *record.UnregisterBrokerRecord:
		return d.replayUnregisterBroker(r)
	case *record.FenceBrokerRecord:
		return d.replayFence(r, r.ID, r.Epoch, true)
	case *record.UnfenceBrokerRecord:
		return d.replayFence(r, r.ID, r.Epoch, false)
	case *record.BrokerRegistrationChangeRecord:
		return d.replayBrokerChange(r)
	case *record.RegisterControllerRecord:
		return d.replayRegisterController(r)
	case *record.UnregisterControllerRecord:
		d.replayUnregisterController(r)
		return nil
	case *record.TopicRecord:
		return d.replayTopic(r)
	case *record.PartitionRecord:
		return d.replayPartition(r)
	case *record.PartitionChangeRecord:
		return d.replayPartitionChange(r)
	case *record.RemoveTopicRecord:
		return d.replayRemoveTopic(r)
	case *record.ClearElrRecord:
		return d.replayClearELR(r)
	case *record.ConfigRecord:
		d.replayConfig(r)
		return nil
	case *record.ClientQuotaRecord:
		return d.replayClientQuota(r)
	case *record.ProducerIdsRecord:
		// ProducerIdsDelta.replay: no ordering check.
		d.producerID, d.producerIDSet = r.NextProducerID, true
		return nil
	case *record.AccessControlEntryRecord:
		d.replayACL(r)
		return nil
	case *record.RemoveAccessControlEntryRecord:
		return d.replayRemoveACL(r)
	case *record.UserScramCredentialRecord:
		k, c := image.ScramFromRecord(r)
		d.putScram(k, &c)
		return nil
	case *record.RemoveUserScramCredentialRecord:
		// ScramDelta.replay(RemoveUserScramCredentialRecord): no existence check.
		d.putScram(image.ScramKey{Mechanism: r.Mechanism, User: r.Name}, nil)
		return nil
	case *record.DelegationTokenRecord:
		t := image.TokenFromRecord(r)
		d.putToken(t.TokenID, &t)
		return nil
	case *record.RemoveDelegationTokenRecord:
		// DelegationTokenDelta.replay(RemoveDelegationTokenRecord): no existence check.
		d.putToken(r.TokenID, nil)
		return nil
	case *record.NoOpRecord, *record.ZkMigrationStateRecord,
		*record.BeginTransactionRecord, *record.EndTransactionRecord, *record.AbortTransactionRecord:
		return nil
	case nil:
		return &RecordError{Record: nil, Err: ErrNilRecord}
	}
	return reject(r, "record type %s is unknown to the delta", r.Type())
}

// topicDeltas holds the topicDeltas of a delta, in the order they were
// made, in chunks that never move (so pointers to them stay valid) and that
// double up to maxTopicDeltaChunk: a snapshot of a million topics then costs a
// few thousand allocations for them instead of a million, and no growing
// slice of pointers for the collector to scan again and again.
type topicDeltas struct {
	chunks [][]topicDelta
}

const (
	minTopicDeltaChunk = 4
	maxTopicDeltaChunk = 1024
)

// add stores td and returns a pointer to the copy held.
func (o *topicDeltas) add(td topicDelta) *topicDelta {
	n := len(o.chunks)
	if n == 0 || len(o.chunks[n-1]) == cap(o.chunks[n-1]) {
		size := minTopicDeltaChunk
		if n > 0 {
			size = min(2*cap(o.chunks[n-1]), maxTopicDeltaChunk)
		}
		o.chunks = append(o.chunks, make([]topicDelta, 0, size))
		n++
	}
	c := &o.chunks[n-1]
	*c = append(*c, td)
	return &(*c)[len(*c)-1]
}
