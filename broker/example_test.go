package broker_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/broker"
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// A broker registered before JBOD (no log directories) must re-register
// once the cluster reaches metadata.version 3.7-IV2; a broker with several
// log directories cannot run below it.
func ExampleTrackRegistration() {
	sim := deltatest.MustNew(deltatest.Config{MetadataVersion: image.MV3_6_IV2})
	if err := sim.AddBrokers(1); err != nil {
		panic(err)
	}
	img := sim.Image()

	d := delta.New(img)
	if err := d.Replay(&record.FeatureLevelRecord{Name: image.MetadataVersionFeature, FeatureLevel: int16(image.MV3_7_IV2)}); err != nil {
		panic(err)
	}
	next, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		panic(err)
	}
	refresh, err := broker.TrackRegistration(d, next, 1)
	fmt.Println("re-register:", refresh, err)
	reg, _ := next.Cluster().Broker(1)
	fmt.Println(broker.RegistrationNeedsRefresh(image.MV3_6_IV2, reg), broker.RegistrationNeedsRefresh(image.MV3_7_IV2, nil))
	fmt.Println(broker.ValidateMetadataVersion(d, next, true))

	d = delta.New(img)
	_ = d.Replay(&record.FeatureLevelRecord{Name: image.MetadataVersionFeature, FeatureLevel: int16(image.MV3_6_IV2)})
	next, _ = d.Apply(image.EmptyProvenance)
	fmt.Println(broker.ValidateMetadataVersion(d, next, true))
	// Output:
	// re-register: true <nil>
	// false false
	// <nil>
	// multiple log directories (JBOD) are not supported in the current metadata.version 3.6-IV2: need 3.7-IV2 or higher
}

// The finalized features a Kafka 4.4 broker cannot run.
func ExampleIncompatibleFeatures() {
	supported := broker.DefaultSupportedFeatures(false)
	fmt.Println(supported[len(supported)-1])
	fmt.Println(broker.IncompatibleFeatures(supported, map[string]int16{
		"metadata.version": int16(image.MV4_4_IV2), "group.version": 1, "future.version": 1,
	}))
	fmt.Println(broker.DefaultFinalizedFeatures(supported)["kraft.version"])

	sim := deltatest.MustNew(deltatest.Config{MetadataVersion: image.MV4_0_IV3})
	fmt.Println(broker.IncompatibleFeatures(supported, broker.FinalizedLevels(sim.Image().Features())))
	// Output:
	// {transaction.version 0 2}
	// map[future.version:1 metadata.version:33]
	// 0
	// map[]
}

// The logs a broker deletes at startup, and the follower it names to a
// consumer in another rack than the leader (KIP-392).
func ExamplePreferredReadReplica() {
	sim := deltatest.MustNew(deltatest.Config{})
	if err := sim.AddBrokers(3, "az-a", "az-b", "az-c"); err != nil {
		panic(err)
	}
	sim.MustCreateTopic("orders", 1, 2) // replicas [3 1], leader 3 in az-c
	img := sim.Image()
	orders, _ := img.Topic("orders")
	fmt.Println("stray on 2:", broker.IsStrayReplica(img, orders.ID(), true, 0, 2),
		"on 1:", broker.IsStrayReplica(img, orders.ID(), true, 0, 1))

	req := broker.ReadReplicaRequest{ReplicaID: -1, ClientRack: "az-a", Listener: "PLAINTEXT", FetchOffset: 100, NowMs: 1000,
		Followers: []broker.ReplicaState{{BrokerID: 1, LogEndOffset: 120, LogStartOffset: 0, LastCaughtUpTimeMs: 990}}}
	fmt.Println(broker.PreferredReadReplica(img, orders, 0, 3, req))
	req.ClientRack = "az-c" // the leader's rack: fetch from the leader
	fmt.Println(broker.PreferredReadReplica(img, orders, 0, 3, req))
	// Output:
	// stray on 2: true on 1: false
	// 1 true
	// 0 false
}

// The topics auto-creation asks the controller for.
func ExampleParseAutoTopicConfig() {
	cfg, err := broker.ParseAutoTopicConfig(map[string]string{"offsets.topic.replication.factor": "1", "num.partitions": "6"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", cfg.CreatableTopic(broker.GroupMetadataTopic))
	fmt.Printf("%+v\n", cfg.CreatableTopic("orders"))
	_, err = broker.ParseAutoTopicConfig(map[string]string{"offsets.topic.num.partitions": "0"})
	fmt.Println(err)
	// Output:
	// {Name:__consumer_offsets NumPartitions:50 ReplicationFactor:1 Configs:[{Name:cleanup.policy Value:compact} {Name:compression.type Value:producer} {Name:segment.bytes Value:104857600}]}
	// {Name:orders NumPartitions:6 ReplicationFactor:-1 Configs:[]}
	// invalid value 0 for configuration offsets.topic.num.partitions: value must be at least 1
}
