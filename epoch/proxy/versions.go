package proxy

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
// Entries hold the highest version plus one, so that a zero entry means
// "not offered" (an array, not a map: the table is read-only state).
var rewritable = [...]int16{
	0:  14, // Produce: NodeEndpoints (KIP-951, v10+) rewritten
	1:  19, // Fetch: NodeEndpoints (KIP-951, v16+) rewritten
	2:  12, // ListOffsets
	3:  14, // Metadata: Brokers rewritten
	8:  11, // OffsetCommit
	9:  11, // OffsetFetch
	10: 7,  // FindCoordinator: coordinators rewritten
	11: 10, // JoinGroup
	12: 5,  // Heartbeat
	13: 6,  // LeaveGroup
	14: 6,  // SyncGroup
	15: 7,  // DescribeGroups
	16: 6,  // ListGroups
	17: 2,  // SaslHandshake
	18: 6,  // ApiVersions (answered by the proxy itself)
	19: 8,  // CreateTopics
	20: 7,  // DeleteTopics
	21: 3,  // DeleteRecords
	22: 6,  // InitProducerId
	23: 5,  // OffsetForLeaderEpoch
	24: 6,  // AddPartitionsToTxn
	25: 5,  // AddOffsetsToTxn
	26: 6,  // EndTxn
	28: 7,  // TxnOffsetCommit
	29: 4,  // DescribeAcls
	30: 4,  // CreateAcls
	31: 4,  // DeleteAcls
	32: 5,  // DescribeConfigs
	33: 3,  // AlterConfigs
	34: 3,  // AlterReplicaLogDirs
	35: 6,  // DescribeLogDirs
	36: 3,  // SaslAuthenticate
	37: 4,  // CreatePartitions
	38: 4,  // CreateDelegationToken
	39: 3,  // RenewDelegationToken
	40: 3,  // ExpireDelegationToken
	41: 4,  // DescribeDelegationToken
	42: 4,  // DeleteGroups
	43: 3,  // ElectLeaders
	44: 2,  // IncrementalAlterConfigs
	45: 2,  // AlterPartitionReassignments
	46: 1,  // ListPartitionReassignments
	47: 1,  // OffsetDelete
	48: 2,  // DescribeClientQuotas
	49: 2,  // AlterClientQuotas
	50: 1,  // DescribeUserScramCredentials
	51: 1,  // AlterUserScramCredentials
	57: 3,  // UpdateFeatures
	60: 3,  // DescribeCluster: brokers rewritten, controllers through Rewriter.Controllers
	61: 1,  // DescribeProducers
	65: 1,  // DescribeTransactions
	66: 3,  // ListTransactions
	68: 2,  // ConsumerGroupHeartbeat (KIP-848)
	69: 2,  // ConsumerGroupDescribe
	71: 1,  // GetTelemetrySubscriptions
	72: 1,  // PushTelemetry
	74: 2,  // ListConfigResources
	75: 1,  // DescribeTopicPartitions: broker ids only
	76: 2,  // ShareGroupHeartbeat
	77: 2,  // ShareGroupDescribe
	78: 3,  // ShareFetch: NodeEndpoints rewritten
	79: 3,  // ShareAcknowledge: NodeEndpoints rewritten
	88: 2,  // StreamsGroupHeartbeat
	89: 2,  // StreamsGroupDescribe
	90: 2,  // DescribeShareGroupOffsets
	91: 1,  // AlterShareGroupOffsets
	92: 1,  // DeleteShareGroupOffsets
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
	if key < 0 || int(key) >= len(rewritable) || rewritable[key] == 0 {
		return 0, false
	}
	return rewritable[key] - 1, true
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
