package delta

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// BenchmarkChangeSetsSingleRecordChange: what a broker's publishers add to
// TopicsImageSingleRecordChange: Apply alone ("apply"), then every change
// set ("changesets": Configs, ClientQuotas, Scram, Tokens, ACLs, Features,
// Controllers, Brokers), or the replica and coordinator changes of one
// broker ("broker").
func BenchmarkChangeSetsSingleRecordChange(b *testing.B) {
	for _, n := range topicCounts {
		d := (*Delta)(nil)
		for _, c := range []struct {
			name string
			read func(d *Delta)
		}{
			{"apply", func(*Delta) {}},
			{"changesets", func(d *Delta) {
				_, _, _, _ = d.Configs(), d.ClientQuotas(), d.Scram(), d.Tokens()
				_, _, _, _ = d.ACLs(), d.Features(), d.Controllers(), d.Brokers()
			}},
			{"broker", func(d *Delta) {
				_ = d.ReplicaChanges(0, false)
				_ = d.Coordinators(0)
			}},
		} {
			b.Run(fmt.Sprintf("topics=%d/%s", n, c.name), func(b *testing.B) {
				if d == nil {
					d = scaleAddTopic(b, fullImage(b, n))
				}
				b.ReportAllocs()
				runtime.GC()
				b.ResetTimer()
				defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
				for b.Loop() {
					if _, err := d.Apply(image.EmptyProvenance); err != nil {
						b.Fatal(err)
					}
					c.read(d)
				}
			})
		}
	}
}
