package clientview

import (
	"testing"

	"github.com/kmeta-go/kmeta/epoch/partitioner"
	"github.com/kmeta-go/kmeta/record"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// ruleWant is what a merge rule leaves in the partition it names.
type ruleWant struct {
	leader, epoch, seen int32
	flags               Flags // flags that must be set
	clear               Flags // flags that must not be set
}

// mergeRule is one case of TestMergeRules: answers merged in turn into an
// empty view, and what the named partition, the events and check must show.
type mergeRule struct {
	name   string
	cfg    ViewConfig
	steps  []step
	topic  string
	p      int32
	want   ruleWant
	events []EventKind
	check  func(t *testing.T, v *View, reps []Report)
}

// mergeRules is the table of every merge rule, each case named after the
// failure it guards against.
var mergeRules = []mergeRule{
	{
		// Metadata.updateLatestMetadata: an older epoch never replaces a newer one.
		name: "KAFKA-7738/older epoch is ignored and marks refresh",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 7)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 6)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 7, seen: 7, flags: Stale | NeedsRefresh},
		events: []EventKind{StaleAnswer},
	},
	{
		// redpanda#27629: a broker without the epoch answered the first
		// replica at epoch 0; a view that refuses it must ask again soon
		// rather than wait for metadata.max.age.ms.
		name: "redpanda#27629/guessed epoch 0 is refused and asked again soon",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 7)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 0)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 7, seen: 7, flags: Stale | NeedsRefresh},
		check: func(t *testing.T, v *View, _ []Report) {
			if !v.NeedsRefresh() {
				t.Fatal("view does not ask for a refresh after a refused answer")
			}
		},
	},
	{
		// franz-go#119: a cluster that really went back must not loop
		// forever; after RewindAfter agreeing answers the view follows it.
		name: "franz-go#119/five agreeing older answers are accepted",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
		},
		topic: "t", want: ruleWant{leader: 3, epoch: 4, seen: 4, clear: Stale | NeedsRefresh},
		events: []EventKind{StaleAnswer, RewindAccepted},
	},
	{
		name: "franz-go#119/four agreeing older answers are not enough",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: Stale},
	},
	{
		name: "franz-go#119/disagreeing older answers restart the count",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 5)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: Stale},
	},
	{
		// One lagging broker answering the same old epoch five times
		// cannot roll a view back when the embedder names the brokers.
		name: "franz-go#119/one lagging broker alone cannot force a rewind",
		steps: []step{
			from(1, answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			from(3, answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: Stale},
		check: func(t *testing.T, v *View, reps []Report) {
			// A second broker agreeing completes the escape.
			v2, rep := v.Merge(answer(12, topicAnswer("t", 1, part(0, 3, 4))), MergeOptions{Node: 2, HasNode: true})
			if p := mustPart(t, v2, "t", 0); p.leader != 3 || p.seenEpoch != 4 || !hasEvent([]Report{rep}, RewindAccepted) {
				t.Fatalf("second broker did not complete the escape: %+v", *p)
			}
		},
	},
	{
		name: "franz-go#119/rewinds disabled never accept an older epoch",
		cfg:  ViewConfig{RewindAfter: -1},
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 4)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: Stale},
	},
	{
		// franz-go#1331: leaderless answers with epoch -1 were counted as
		// rewinds and, after five, accepted, skipping KIP-320 validation.
		name: "franz-go#1331/no leader and epoch -1 is never a rewind",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, -1)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: NoLeader | NeedsRefresh, clear: Stale},
		check: func(t *testing.T, v *View, reps []Report) {
			if hasEvent(reps, RewindAccepted) || hasEvent(reps, StaleAnswer) {
				t.Fatal("-1 counted as a rewind")
			}
			if _, _, ok := v.Leader("t", 0); ok {
				t.Fatal("Leader reports a leader for a leaderless partition")
			}
			// The leader comes back at the same epoch: usable again.
			v2, _ := v.Merge(answer(12, topicAnswer("t", 1, part(0, 2, 9))), MergeOptions{})
			if l, e, ok := v2.Leader("t", 0); !ok || l != 2 || e != 9 {
				t.Fatalf("leader back: got %d/%d/%v", l, e, ok)
			}
		},
	},
	{
		// Kafka's own leaderless answer (LEADER_NOT_AVAILABLE, leader -1)
		// carries the real, bumped epoch: the epoch advances, the last
		// leader is kept, and a lagging answer at the old epoch is stale.
		name: "franz-go#1331/leader -1 with a real epoch keeps the last leader",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, 10)))),
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 10, flags: NoLeader | NeedsRefresh | Stale},
	},
	{
		// KAFKA-9212: epochs of Metadata below v9 are unreliable; the Java
		// client drops them and takes the answer.
		name: "KAFKA-9212/below v9 the leader is taken without its epoch",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 20)))),
			st(answer(8, topicAnswer("t", 1, part(0, 1, 3)))),
		},
		topic: "t", want: ruleWant{leader: 1, epoch: -1, seen: 20, flags: EpochUnknown, clear: Stale | NeedsRefresh},
		check: func(t *testing.T, v *View, _ []Report) {
			// The epoch floor survives: a reliable answer older than it is refused.
			v2, _ := v.Merge(answer(12, topicAnswer("t", 1, part(0, 3, 19))), MergeOptions{})
			if p := mustPart(t, v2, "t", 0); p.leader != 1 || p.flags&Stale == 0 {
				t.Fatalf("older reliable answer after an unreliable one: %+v", *p)
			}
			v3, _ := v2.Merge(answer(12, topicAnswer("t", 1, part(0, 3, 21))), MergeOptions{})
			if p := mustPart(t, v3, "t", 0); p.leader != 3 || p.leaderEpoch != 21 || p.flags&EpochUnknown != 0 {
				t.Fatalf("newer reliable answer: %+v", *p)
			}
		},
	},
	{
		// librdkafka#4796: during a rolling upgrade old brokers answer
		// epoch -1; refusing "-1 < 20" routed everything to the wrong broker.
		name: "librdkafka#4796/epoch -1 from an old broker still moves the leader",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 20)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, -1)))),
		},
		topic: "t", want: ruleWant{leader: 1, epoch: -1, seen: 20, flags: EpochUnknown, clear: NeedsRefresh | Stale},
		events: []EventKind{LeaderMoved},
	},
	{
		// redpanda#31668: one broker named different leaders at one epoch;
		// librdkafka applied each and flipped between brokers.
		name: "redpanda#31668/equal epoch with another leader is suspect",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 9)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, flags: Suspect | NeedsRefresh},
		events: []EventKind{SuspectLeader},
		check: func(t *testing.T, v *View, reps []Report) {
			if hasEvent(reps, LeaderMoved) && len(reps[0].Events) == 0 {
				t.Fatal("leader moved on a suspect answer")
			}
			for _, r := range reps[1:] {
				for _, e := range r.Events {
					if e.Kind == LeaderMoved {
						t.Fatalf("leader moved on an equal epoch: %+v", e)
					}
				}
			}
		},
	},
	{
		name: "redpanda#31668/an agreeing answer clears the suspicion",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 3, 9)))),
			st(answer(12, topicAnswer("t", 1, part(0, 2, 9)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 9, seen: 9, clear: Suspect | NeedsRefresh},
	},
	{
		// kafka_ex#594: partitions with errors or without a leader were
		// dropped, shrinking the count the partitioner hashes modulo.
		name: "kafka_ex#594/leaderless and errored partitions are kept",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, 2, 1), part(2, 3, 1)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, -1, 2),
				withErr(part(2, 3, 1), kafkaerr.ReplicaNotAvailable.Int16())))),
		},
		topic: "t", p: 1, want: ruleWant{leader: 2, epoch: 1, seen: 2, flags: NoLeader | NeedsRefresh},
		check: func(t *testing.T, v *View, _ []Report) {
			tp, _ := v.Topic("t")
			if tp.NumPartitions() != 3 {
				t.Fatalf("NumPartitions %d, want 3", tp.NumPartitions())
			}
			if p := mustPart(t, v, "t", 2); p.errorCode != kafkaerr.ReplicaNotAvailable.Int16() || p.leader != 3 {
				t.Fatalf("errored partition: %+v", *p)
			}
		},
	},
	{
		// IBM/sarama#3514 (fixed by IBM/sarama#3525): with every broker
		// rebooting, every partition came back leaderless; sarama's refresh
		// returned success and its producers spun. The view keeps every
		// partition, says there is no leader (Leader reports !ok) and asks
		// for a refresh, which the Schedule backs off (TestScheduleRules).
		name: "sarama#3514/an all-leaderless answer keeps the partitions and asks again",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 1, 3), part(1, 2, 3)))),
			st(answer(12, topicAnswer("t", 1, part(0, -1, 4), part(1, -1, 4)))),
		},
		topic: "t", p: 1, want: ruleWant{leader: 2, epoch: 3, seen: 4, flags: NoLeader | NeedsRefresh},
		check: func(t *testing.T, v *View, _ []Report) {
			tp, _ := v.Topic("t")
			if tp.NumPartitions() != 2 || !v.NeedsRefresh() {
				t.Fatalf("NumPartitions %d, NeedsRefresh %v", tp.NumPartitions(), v.NeedsRefresh())
			}
			for p := int32(0); p < 2; p++ {
				if _, _, ok := v.Leader("t", p); ok {
					t.Fatalf("partition %d reports a leader", p)
				}
			}
		},
	},
	{
		name: "kafka_ex#594/a first answer with a leaderless partition keeps it",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, -1, 4), part(2, 3, 1)))),
		},
		topic: "t", p: 1, want: ruleWant{leader: -1, epoch: -1, seen: 4, flags: NoLeader | NeedsRefresh, clear: Missing},
		check: func(t *testing.T, v *View, _ []Report) {
			tp, _ := v.Topic("t")
			if tp.NumPartitions() != 3 || partitioner.ForKey([]byte("k"), tp.NumPartitions()) < 0 {
				t.Fatalf("NumPartitions %d, want 3", tp.NumPartitions())
			}
		},
	},
	{
		// A lagging broker that has not seen the growth answers fewer
		// partitions: the count never goes down (franz-go#119's logs:
		// "metadata update is missing partition in topic, keeping old data").
		name: "franz-go#119/an answer missing partitions keeps them",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, 2, 1), part(2, 3, 1), part(3, 1, 1)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 1), part(1, 2, 1)))),
		},
		topic: "t", p: 3, want: ruleWant{leader: 1, epoch: 1, seen: 1, clear: NeedsRefresh},
		check: func(t *testing.T, v *View, reps []Report) {
			tp, _ := v.Topic("t")
			if tp.NumPartitions() != 4 || reps[1].Changed {
				t.Fatalf("NumPartitions %d changed %v", tp.NumPartitions(), reps[1].Changed)
			}
		},
	},
	{
		// Scenario 3: growth is an event of its own.
		name: "CreatePartitions/partition growth is reported",
		steps: []step{
			st(answer(12, topicAnswer("orders", 1, part(0, 1, 0), part(1, 2, 0)))),
			st(answer(12, topicAnswer("orders", 1, part(0, 1, 0), part(1, 2, 0), part(2, 3, 0), part(3, 1, 0)))),
		},
		topic: "orders", p: 3, want: ruleWant{leader: 1, epoch: 0, seen: 0, clear: Missing | NeedsRefresh},
		check: func(t *testing.T, v *View, reps []Report) {
			for _, e := range reps[1].Events {
				if e.Kind == PartitionsGrew && e.Before == 2 && e.After == 4 && e.Topic == "orders" {
					return
				}
			}
			t.Fatalf("no growth event 2→4: %+v", reps[1].Events)
		},
	},
	{
		name: "CreatePartitions/a gap below the new count is a placeholder",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 1, 0)))),
			st(answer(12, topicAnswer("t", 1, part(0, 1, 0), part(2, 3, 0)))),
		},
		topic: "t", p: 1, want: ruleWant{leader: -1, epoch: -1, seen: -1, flags: Missing | NeedsRefresh},
	},
	{
		// KAFKA-12257: a changed topic id means the topic was recreated;
		// its epochs start again and are not stale.
		name: "KAFKA-12257/recreated topic resets epochs",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 30), part(1, 2, 30)))),
			st(answer(12, topicAnswer("t", 2, part(0, 3, 0)))),
		},
		topic: "t", want: ruleWant{leader: 3, epoch: 0, seen: 0, clear: Stale | NeedsRefresh},
		events: []EventKind{TopicRecreated},
		check: func(t *testing.T, v *View, _ []Report) {
			tp, _ := v.Topic("t")
			if tp.NumPartitions() != 1 || tp.ID() != record.UUID(tid(2)) {
				t.Fatalf("recreated topic: %d partitions id %v", tp.NumPartitions(), tp.ID())
			}
			if _, ok := v.TopicByID(record.UUID(tid(1))); ok {
				t.Fatal("old id still resolves")
			}
			if x, ok := v.TopicByID(record.UUID(tid(2))); !ok || x.Name() != "t" {
				t.Fatal("new id does not resolve")
			}
		},
	},
	{
		// A lagging broker still describing the deleted incarnation must
		// not flip the view back.
		name: "KAFKA-12257/answer about the retired incarnation is refused",
		steps: []step{
			st(answer(12, topicAnswer("t", 1, part(0, 2, 30)))),
			st(answer(12, topicAnswer("t", 2, part(0, 3, 0)))),
			st(answer(12, topicAnswer("t", 1, part(0, 2, 30)))),
		},
		topic: "t", want: ruleWant{leader: 3, epoch: 0, seen: 0},
		events: []EventKind{StaleTopicID},
	},
	{
		name: "KAFKA-12257/from no topic id to an id is not a recreation",
		steps: []step{
			st(answer(9, topicAnswer("t", 0, part(0, 2, 30)))),
			st(answer(12, topicAnswer("t", 1, part(0, 2, 30)))),
		},
		topic: "t", want: ruleWant{leader: 2, epoch: 30, seen: 30},
		check: func(t *testing.T, v *View, reps []Report) {
			if hasEvent(reps[1:], TopicRecreated) {
				t.Fatal("adopting an id counted as a recreation")
			}
		},
	},
}
