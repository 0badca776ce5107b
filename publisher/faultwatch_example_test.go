package publisher_test

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// WatchFaults lets the component feeding a loader learn of the faults it
// raises without taking the fault handler from the embedder;
// ReportReadError reports what could not be read through the same path.
func ExampleLoader_WatchFaults() {
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(_ *publisher.Loader, f *publisher.Fault) {
		fmt.Println("fault handler:", f.Kind)
	}})
	defer l.Close()
	stop := l.WatchFaults(func(f *publisher.Fault) { fmt.Println("watcher:", f.Kind, "at offset", f.Offset) })
	defer stop()

	// A PartitionRecord for a topic the image does not have: skipped.
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Leader, pr.Replicas, pr.ISR = record.UUID{7}, 0, 1, []int32{1}, []int32{1}
	l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, Records: versioned(pr)})

	// A batch the reader could not read.
	l.ReportReadError(1, &metalog.CorruptionError{File: "00000000000000000000.log", Position: 90, Offset: 1, Err: errors.New("bad CRC")})
	fmt.Println("replay errors:", l.Stats().ReplayErrors, "read errors:", l.Stats().ReadErrors)
	// Output:
	// watcher: replay at offset 0
	// fault handler: replay
	// watcher: read at offset 1
	// fault handler: read
	// replay errors: 1 read errors: 1
}
