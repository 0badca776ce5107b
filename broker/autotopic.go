package broker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// The internal topics auto-creation knows (org.apache.kafka.common.internals.Topic).
const (
	GroupMetadataTopic    = "__consumer_offsets"
	TransactionStateTopic = "__transaction_state"
	ShareGroupStateTopic  = "__share_group_state"
)

// CreatableTopic is the CreateTopicsRequest topic a broker sends its
// controller to auto-create a topic (CreatableTopic): -1 partitions or
// replication factor leave the choice to the controller's defaults
// (CreateTopicsRequest.NO_NUM_PARTITIONS, NO_REPLICATION_FACTOR).
type CreatableTopic struct {
	Name              string
	NumPartitions     int32
	ReplicationFactor int16
	// Configs are the topic's configs, sorted by name.
	Configs []image.ConfigEntry
}

// AutoTopicConfig is the part of a broker's configuration auto-creation
// reads, parsed and checked as Kafka's ConfigDef does: the three
// coordinators' topic settings (GroupCoordinatorConfig,
// TransactionLogConfig, ShareCoordinatorConfig) and the broker defaults
// num.partitions and default.replication.factor, which count only when set.
type AutoTopicConfig struct {
	offsetsPartitions, offsetsSegmentBytes    int32
	offsetsRF                                 int16
	txnPartitions, txnMinISR, txnSegmentBytes int32
	txnRF                                     int16
	sharePartitions, shareSegmentBytes        int32
	shareRF, shareMinISR                      int16
	numPartitions, defaultRF                  int32
	numPartitionsSet, defaultRFSet            bool
}

// autoTopicKey is one broker config auto-creation reads: its name, Kafka's
// default, whether it is a SHORT (else an INT) and whether it must be at
// least 1 (ConfigDef.Range.atLeast(1)).
type autoTopicKey struct {
	name    string
	def     int32
	short   bool
	atLeast bool
}

var autoTopicKeys = [...]autoTopicKey{
	{"offsets.topic.num.partitions", 50, false, true},
	{"offsets.topic.replication.factor", 3, true, true},
	{"offsets.topic.segment.bytes", 100 << 20, false, true},
	{"transaction.state.log.num.partitions", 50, false, true},
	{"transaction.state.log.replication.factor", 3, true, true},
	{"transaction.state.log.min.isr", 2, false, true},
	{"transaction.state.log.segment.bytes", 100 << 20, false, true},
	{"share.coordinator.state.topic.num.partitions", 50, false, true},
	{"share.coordinator.state.topic.replication.factor", 3, true, true},
	{"share.coordinator.state.topic.min.isr", 2, true, true},
	{"share.coordinator.state.topic.segment.bytes", 100 << 20, false, true},
	{"num.partitions", 1, false, true},
	{"default.replication.factor", 1, false, false},
}

// ParseAutoTopicConfig reads the keys auto-creation uses from a broker's
// configuration (the properties it was started with: Kafka's
// config.originals()). A value that is not a number of its type, or is
// below 1 where Kafka requires at least 1, is an error naming the key, as
// Kafka refuses to start with it.
func ParseAutoTopicConfig(cfg map[string]string) (AutoTopicConfig, error) {
	var v [len(autoTopicKeys)]int32
	var set [len(autoTopicKeys)]bool
	for i, k := range autoTopicKeys {
		v[i] = k.def
		s, ok := cfg[k.name]
		if !ok {
			continue
		}
		bitSize, typ := 32, "int"
		if k.short {
			bitSize, typ = 16, "short"
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bitSize)
		if err != nil {
			return AutoTopicConfig{}, fmt.Errorf("invalid value %s for configuration %s: not a number of type %s", s, k.name, typ)
		}
		if k.atLeast && n < 1 {
			return AutoTopicConfig{}, fmt.Errorf("invalid value %d for configuration %s: value must be at least 1", n, k.name)
		}
		v[i], set[i] = int32(n), true
	}
	return AutoTopicConfig{
		offsetsPartitions: v[0], offsetsRF: int16(v[1]), offsetsSegmentBytes: v[2],
		txnPartitions: v[3], txnRF: int16(v[4]), txnMinISR: v[5], txnSegmentBytes: v[6],
		sharePartitions: v[7], shareRF: int16(v[8]), shareMinISR: int16(v[9]), shareSegmentBytes: v[10],
		numPartitions: v[11], numPartitionsSet: set[11], defaultRF: v[12], defaultRFSet: set[12],
	}, nil
}

// CreatableTopic is DefaultAutoTopicCreationManager.creatableTopic: the
// three coordinator topics get their coordinator's partition count,
// replication factor and topic configs (GroupCoordinatorService.groupMetadataTopicConfigs,
// TransactionCoordinator.transactionStateTopicConfigs,
// ShareCoordinatorService.shareGroupStateTopicConfigs); any other topic
// gets num.partitions and default.replication.factor when the broker's
// configuration sets them, else -1 (the controller's defaults), and no
// configs.
func (c AutoTopicConfig) CreatableTopic(name string) CreatableTopic {
	itoa := func(n int32) string { return strconv.Itoa(int(n)) }
	switch name {
	case GroupMetadataTopic:
		return CreatableTopic{Name: name, NumPartitions: c.offsetsPartitions, ReplicationFactor: c.offsetsRF, Configs: []image.ConfigEntry{
			{Name: "cleanup.policy", Value: "compact"},
			{Name: "compression.type", Value: "producer"},
			{Name: "segment.bytes", Value: itoa(c.offsetsSegmentBytes)},
		}}
	case TransactionStateTopic:
		return CreatableTopic{Name: name, NumPartitions: c.txnPartitions, ReplicationFactor: c.txnRF, Configs: []image.ConfigEntry{
			{Name: "cleanup.policy", Value: "compact"},
			{Name: "compression.type", Value: "uncompressed"},
			{Name: "min.insync.replicas", Value: itoa(c.txnMinISR)},
			{Name: "segment.bytes", Value: itoa(c.txnSegmentBytes)},
			{Name: "unclean.leader.election.enable", Value: "false"},
		}}
	case ShareGroupStateTopic:
		return CreatableTopic{Name: name, NumPartitions: c.sharePartitions, ReplicationFactor: c.shareRF, Configs: []image.ConfigEntry{
			{Name: "cleanup.policy", Value: "delete"},
			{Name: "compression.type", Value: "producer"},
			{Name: "min.insync.replicas", Value: itoa(int32(c.shareMinISR))},
			{Name: "retention.ms", Value: "-1"},
			{Name: "segment.bytes", Value: itoa(c.shareSegmentBytes)},
		}}
	}
	t := CreatableTopic{Name: name, NumPartitions: -1, ReplicationFactor: -1}
	if c.numPartitionsSet {
		t.NumPartitions = c.numPartitions
	}
	if c.defaultRFSet {
		t.ReplicationFactor = int16(c.defaultRF) // Kafka casts the INT to a short
	}
	return t
}
