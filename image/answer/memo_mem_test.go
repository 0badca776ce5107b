package answer

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMemoMemoryBound measures what a full AppendMetadata cache holds: distinct requests of
// 2 000 unknown topic names each (every one in the key, the answer and the
// topics to create, as in a storm of distinct large requests) fill it to
// MaxBytes and no further, and the heap it holds stays within MaxBytes
// (plus 5%) once the requests are gone.
func TestMemoMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills 16 MiB")
	}
	img := benchImage(t, 10, 1)
	rq := Request{Listener: "PLAINTEXT"}
	const limit = 16 << 20
	r := New(Config{ClusterID: "c", MetadataCacheBytes: limit})
	m := &r.memo
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	r.AppendMetadata(nil, img, kmsg.NewPtrMetadataRequest(), rq) // the memo's map and image
	before := heap()
	for i := 0; i < 300; i++ {
		req := kmsg.NewPtrMetadataRequest()
		req.Version = 12
		req.AllowAutoTopicCreation = true
		for j := 0; j < 2000; j++ {
			tp := kmsg.NewMetadataRequestTopic()
			tp.Topic = kmsg.StringPtr(fmt.Sprintf("request-%04d-topic-%05d-padding-padding", i, j))
			req.Topics = append(req.Topics, tp)
		}
		r.AppendMetadata(nil, img, req, rq)
	}
	held := heap() - before
	m.mu.RLock()
	entries, size := len(m.entries), m.size
	m.mu.RUnlock()
	t.Logf("%d entries, counted %d bytes, heap held %d bytes (limit %d)", entries, size, held, limit)
	if entries < 10 || size > limit || size < limit*3/4 {
		t.Fatalf("memo of %d entries counts %d bytes against a limit of %d", entries, size, limit)
	}
	if held > limit*105/100 {
		t.Fatalf("memo holds %d bytes of heap, limit %d", held, limit)
	}
	runtime.KeepAlive(r)
}
