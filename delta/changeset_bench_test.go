package delta

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// BenchmarkChangeSetsSingleRecordChange: what a broker's publishers add to
// TopicsImageSingleRecordChange: Apply, then every change set (Configs,
// ClientQuotas, Scram, Tokens, ACLs, Features, Controllers, Brokers), the
// replica changes and the coordinator changes of one broker. Compare with
// BenchmarkTopicsImageSingleRecordChange (Apply alone).
func BenchmarkChangeSetsSingleRecordChange(b *testing.B) {
	for _, n := range topicCounts {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			d := scaleAddTopic(b, fullImage(b, n))
			b.ReportAllocs()
			runtime.GC()
			b.ResetTimer()
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for b.Loop() {
				if _, err := d.Apply(image.EmptyProvenance); err != nil {
					b.Fatal(err)
				}
				_, _, _, _ = d.Configs(), d.ClientQuotas(), d.Scram(), d.Tokens()
				_, _, _, _ = d.ACLs(), d.Features(), d.Controllers(), d.Brokers()
				_ = d.ReplicaChanges(0, false)
				_ = d.Coordinators(0)
			}
		})
	}
}
