package image_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
)

// KRaftMetadataCache's endpoint lookups: the leader's node (or why there
// is none), the alive replicas' nodes for the preferred read replica
// (KIP-392), an alive broker's node, and the racks the group coordinator
// sees.
func ExampleImage_AppendReplicaEndpoints() {
	sim := deltatest.MustNew(deltatest.Config{})
	if err := sim.AddBrokers(3, "az-a", "az-b"); err != nil {
		panic(err)
	}
	sim.MustCreateTopic("orders", 1, 3)        // replicas [3 2 1]
	if err := sim.FenceBroker(3); err != nil { // leadership moves to 2
		panic(err)
	}
	img := sim.Image()
	orders, _ := img.Topic("orders")

	n, lk := img.LeaderEndpoint("orders", 0, "PLAINTEXT")
	fmt.Println(lk, n.ID, n.Host, n.Port, n.Rack)
	_, lk = img.LeaderEndpoint("orders", 0, "SSL")
	fmt.Println(lk)
	_, lk = img.LeaderEndpoint("orders", 9, "PLAINTEXT")
	fmt.Println(lk)

	for _, r := range img.AppendReplicaEndpoints(nil, orders, 0, "PLAINTEXT") {
		fmt.Println("replica", r.ID, r.Host, r.Rack) // broker 3 is fenced
	}
	_, alive := img.Cluster().AliveBrokerNode(3, "PLAINTEXT")
	_, registered := img.Cluster().Broker(3)
	fmt.Println("broker 3 alive:", alive, "registered:", registered)
	fmt.Println("racks", img.AppendPartitionRacks(nil, orders, 0))
	// Output:
	// found 2 broker-2 9092 az-b
	// listener missing
	// unknown
	// replica 2 broker-2 az-b
	// replica 1 broker-1 az-a
	// broker 3 alive: false registered: true
	// racks [az-a az-b az-a]
}

// The request versions a follower sends at a metadata.version, and a
// version name parsed as Kafka's fromVersionString parses it.
func ExampleMetadataVersion_FetchRequestVersion() {
	for _, v := range []image.MetadataVersion{image.MV3_3_IV3, image.MV3_9_IV0, image.MV4_3_IV0} {
		fmt.Println(v, v.FetchRequestVersion(), v.ListOffsetRequestVersion())
	}
	v, err := image.ParseMetadataVersion("3.7", false)
	fmt.Println(v, err)
	_, err = image.ParseMetadataVersion("4.4-IV2", false)
	fmt.Println(err != nil)
	// Output:
	// 3.3-IV3 13 7
	// 3.9-IV0 17 9
	// 4.3-IV0 18 11
	// 3.7-IV4 <nil>
	// true
}
