package node_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/node"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
)

// ordersImage is an image of one broker and a topic "orders" of two
// partitions, with a topic config.
func ordersImage() *image.Image {
	id := record.UUID{15: 1}
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.BrokerEpoch, b.Fenced = 1, 7, false
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", id
	recs := []record.Record{b, t}
	for i := int32(0); i < 2; i++ {
		p := record.NewPartitionRecord()
		p.TopicID, p.PartitionID, p.Replicas, p.ISR, p.Leader, p.LeaderEpoch, p.PartitionEpoch = id, i, []int32{1}, []int32{1}, 1, 0, 0
		recs = append(recs, p)
	}
	recs = append(recs, config(2, "orders", "retention.ms", "86400000"))
	d := delta.New(nil)
	for _, r := range recs {
		if err := d.Replay(r); err != nil {
			panic(err)
		}
	}
	img, err := d.Apply(image.Provenance{LastContainedOffset: 3, LastContainedEpoch: 1, LastContainedLogTimeMs: 1_700_000_000_000})
	if err != nil {
		panic(err)
	}
	return img
}

// Build the tree of an image and list a directory: children come sorted,
// as kafka-metadata-shell's ls prints them.
func ExampleImage() {
	root := node.Image(ordersImage(), redact.Disabled)
	fmt.Println(root.ChildNames())
	topic := root.Child("topics").Child("byName").Child("orders")
	fmt.Println(topic.IsDir(), topic.ChildNames())
	// Output:
	// [acls clientQuotas cluster configs delegationToken features producerIds provenance scram topics]
	// true [0 1 id name]
}

// Print a leaf: its Text is what Kafka's node prints. The criteria decide
// what is redacted; nil is redact.Strict, which hides every config value.
func ExampleImage_leaf() {
	img := ordersImage()
	root := node.Image(img, redact.Disabled)
	fmt.Println(root.Child("provenance").Text())
	fmt.Println(root.Child("topics").Child("byName").Child("orders").Child("0").Text())
	fmt.Println(root.Child("configs").Child("TOPIC:orders").Child("retention.ms").Text())
	fmt.Println(node.Image(img, nil).Child("configs").Child("TOPIC:orders").Child("retention.ms").Text())
	// Output:
	// offset 3, epoch 1, time 2023-11-14T22:13:20Z[UTC]
	// PartitionRegistration(replicas=[1], directories=[AAAAAAAAAAAAAAAAAAAAAA], isr=[1], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=1, leaderRecoveryState=RECOVERED, leaderEpoch=0, partitionEpoch=0)
	// 86400000
	// [redacted]
}

// Walk a glob, relative to a working directory, as the shell's GlobVisitor
// does.
func ExampleVisit() {
	root := node.Image(ordersImage(), redact.Disabled)
	cwd := []string{"topics", "byName"}
	ok := node.Visit(root, cwd, "orders/{0,1}", func(path []string, n node.Node) {
		fmt.Println("/"+strings.Join(path, "/"), n.IsDir())
	})
	fmt.Println(ok, node.Visit(root, cwd, "nope*", func([]string, node.Node) {}))
	// Output:
	// /topics/byName/orders/0 false
	// /topics/byName/orders/1 false
	// true false
}

// Resolve a path against a working directory, dropping "." and "..".
func ExampleResolve() {
	fmt.Println(node.Resolve([]string{"topics", "byName"}, "../byId/./x"))
	fmt.Println(node.Resolve([]string{"topics"}, "/cluster/brokers"))
	// Output:
	// [topics byId x]
	// [cluster brokers]
}

// Print walks a node as MetadataNode.print does; a Printer decides how it
// looks, here TreePrinter, the shell's tree command. Fixed and Leaf build a
// tree of one's own.
func ExamplePrint() {
	root := node.Fixed(map[string]func() node.Node{
		"image": func() node.Node {
			return node.Image(ordersImage(), redact.Disabled).Child("configs")
		},
		"version": func() node.Node { return node.Leaf("1.0") },
	})
	node.Print(root, &node.TreePrinter{W: os.Stdout})
	// Output:
	// image:
	//   TOPIC:orders:
	//     retention.ms:
	//       86400000
	// version:
	//   1.0
}
