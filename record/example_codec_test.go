package record_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/record"
)

// Encode a PartitionChangeRecord the way Kafka's controller writes it when it
// moves a partition's leader, decode it back, and print it as Kafka's tools
// do. Build records with their New function: it sets Kafka's defaults, such
// as Leader = -2 ("unchanged") for a PartitionChangeRecord.
func ExampleDecode() {
	change := record.NewPartitionChangeRecord()
	change.TopicID, _ = record.ParseUUID("ASNFZ4mr3wB-3LqYdlQP7g")
	change.PartitionID = 3
	change.Leader = 2
	change.ISR = []int32{2, 3}

	value, err := record.Append(nil, change, 1) // the framed value stored in the log
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes: % x\n", len(value), value[:3])

	rec, version, err := record.Decode(value)
	if err != nil {
		panic(err)
	}
	line, _ := record.AppendEnvelopeJSON(nil, rec, version)
	fmt.Println(string(line))
	// Output:
	// 41 bytes: 01 05 01
	// {"type":"PARTITION_CHANGE_RECORD","version":1,"data":{"partitionId":3,"topicId":"ASNFZ4mr3wB-3LqYdlQP7g","isr":[2,3],"leader":2}}
}

// A version that cannot carry a field refuses a non-default value, as
// Kafka's generated writers do.
func ExampleAppend_unsupportedVersion() {
	p := record.NewPartitionRecord()
	p.Replicas = []int32{1, 2, 3}
	p.Directories = []record.UUID{{1}, {2}, {3}} // JBOD directories: PartitionRecord v1+
	_, err := record.Append(nil, p, 0)
	fmt.Println(err)
	// Output:
	// unsupported version: attempted to write a non-default Directories at version 0 of PartitionRecord
}

// Read a line Kafka's kafka-dump-log printed and encode the record.
func ExampleParseEnvelopeJSON() {
	line := `{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"ASNFZ4mr3wB-3LqYdlQP7g"}}`
	rec, version, err := record.ParseEnvelopeJSON([]byte(line))
	if err != nil {
		panic(err)
	}
	t := rec.(*record.TopicRecord)
	fmt.Println(t.Name, t.TopicID, version)
	// Output:
	// orders ASNFZ4mr3wB-3LqYdlQP7g 0
}
