package advertise

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// rewritable is, per API key a Kafka client sends to brokers, the highest
// version whose response this package has been written against: either the
// Rewriter rewrites every broker address it can carry, or it carries none.
// APIs absent from it are not offered: inter-broker and controller APIs
// (LeaderAndIsr, UpdateMetadata, the KRaft quorum APIs, broker and
// controller registration), whose answers carry addresses clients must not
// see or that a client never sends, and DescribeQuorum, whose answer lists
// the controllers' listeners (KIP-853) that a broker proxy cannot reach.
// A version newer than this table (a kmsg upgrade adding fields) is not
// offered until the table is checked against it.
var rewritable = map[int16]int16{
	0:  13, // Produce: NodeEndpoints (KIP-951, v10+) rewritten
	1:  18, // Fetch: NodeEndpoints (KIP-951, v16+) rewritten
	2:  11, // ListOffsets
	3:  13, // Metadata: Brokers rewritten
	8:  10, // OffsetCommit
	9:  10, // OffsetFetch
	10: 6,  // FindCoordinator: coordinators rewritten
	11: 9,  // JoinGroup
	12: 4,  // Heartbeat
	13: 5,  // LeaveGroup
	14: 5,  // SyncGroup
	15: 6,  // DescribeGroups
	16: 5,  // ListGroups
	17: 1,  // SaslHandshake
	18: 5,  // ApiVersions (answered by the proxy itself)
	19: 7,  // CreateTopics
	20: 6,  // DeleteTopics
	21: 2,  // DeleteRecords
	22: 5,  // InitProducerId
	23: 4,  // OffsetForLeaderEpoch
	24: 5,  // AddPartitionsToTxn
	25: 4,  // AddOffsetsToTxn
	26: 5,  // EndTxn
	28: 6,  // TxnOffsetCommit
	29: 3,  // DescribeAcls
	30: 3,  // CreateAcls
	31: 3,  // DeleteAcls
	32: 4,  // DescribeConfigs
	33: 2,  // AlterConfigs
	34: 2,  // AlterReplicaLogDirs
	35: 5,  // DescribeLogDirs
	36: 2,  // SaslAuthenticate
	37: 3,  // CreatePartitions
	38: 3,  // CreateDelegationToken
	39: 2,  // RenewDelegationToken
	40: 2,  // ExpireDelegationToken
	41: 3,  // DescribeDelegationToken
	42: 3,  // DeleteGroups
	43: 2,  // ElectLeaders
	44: 1,  // IncrementalAlterConfigs
	45: 1,  // AlterPartitionReassignments
	46: 0,  // ListPartitionReassignments
	47: 0,  // OffsetDelete
	48: 1,  // DescribeClientQuotas
	49: 1,  // AlterClientQuotas
	50: 0,  // DescribeUserScramCredentials
	51: 0,  // AlterUserScramCredentials
	57: 2,  // UpdateFeatures
	60: 2,  // DescribeCluster: brokers rewritten, controllers through Rewriter.Controllers
	61: 0,  // DescribeProducers
	65: 0,  // DescribeTransactions
	66: 2,  // ListTransactions
	68: 1,  // ConsumerGroupHeartbeat (KIP-848)
	69: 1,  // ConsumerGroupDescribe
	71: 0,  // GetTelemetrySubscriptions
	72: 0,  // PushTelemetry
	74: 1,  // ListConfigResources
	75: 0,  // DescribeTopicPartitions: broker ids only
	76: 1,  // ShareGroupHeartbeat
	77: 1,  // ShareGroupDescribe
	78: 2,  // ShareFetch: NodeEndpoints rewritten
	79: 2,  // ShareAcknowledge: NodeEndpoints rewritten
	88: 1,  // StreamsGroupHeartbeat
	89: 1,  // StreamsGroupDescribe
	90: 1,  // DescribeShareGroupOffsets
	91: 0,  // AlterShareGroupOffsets
	92: 0,  // DeleteShareGroupOffsets
}

// carriesAddress reports the keys whose responses carry broker addresses,
// which only the Rewriter's own methods may let through.
func carriesAddress(key int16) bool {
	switch key {
	case 0, 1, 3, 10, 60, 78, 79:
		return true
	}
	return false
}

// CarriesAddress reports whether responses of the API key can carry a
// broker address (Produce, Fetch, Metadata, FindCoordinator,
// DescribeCluster, ShareFetch, ShareAcknowledge): a proxy must rewrite them
// with a Rewriter before answering.
func CarriesAddress(key int16) bool { return carriesAddress(key) }

// Rewritable returns the highest version of an API key whose responses a
// proxy may pass to a client after Rewriter.Response; ok is false for APIs a
// proxy must not offer.
func Rewritable(key int16) (max int16, ok bool) {
	max, ok = rewritable[key]
	return max, ok
}

// VersionsFunc gives the version range of an API key that one side (the
// proxy, or what it parses) supports; ok false means none.
type VersionsFunc func(key int16) (min, max int16, ok bool)

// RewritableVersions is Rewritable as a VersionsFunc (minimum 0).
func RewritableVersions(key int16) (min, max int16, ok bool) {
	max, ok = Rewritable(key)
	return 0, max, ok
}

// Intersect returns the ApiVersions keys a proxy may offer: each key that
// upstream offers and every one of local allows, with the range narrowed to
// what all of them support; keys whose ranges do not meet are left out.
// Typically local is RewritableVersions and, for APIs the proxy answers
// itself, its own ranges. The result is in key order.
func Intersect(upstream []kmsg.ApiVersionsResponseApiKey, local ...VersionsFunc) []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(upstream))
	for _, k := range upstream {
		lo, hi := k.MinVersion, k.MaxVersion
		ok := true
		for _, f := range local {
			fl, fh, fok := f(k.ApiKey)
			if !fok {
				ok = false
				break
			}
			lo, hi = max(lo, fl), min(hi, fh)
		}
		if !ok || lo > hi {
			continue
		}
		nk := kmsg.NewApiVersionsResponseApiKey()
		nk.ApiKey, nk.MinVersion, nk.MaxVersion = k.ApiKey, lo, hi
		out = append(out, nk)
	}
	slices.SortFunc(out, func(a, b kmsg.ApiVersionsResponseApiKey) int { return int(a.ApiKey) - int(b.ApiKey) })
	return out
}
