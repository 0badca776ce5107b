package clientview

import (
	"testing"
	"unsafe"
)

// TestTopicHotFieldsInOneLine guards the Topic layout Merge's fast path
// relies on (BENCHMARKS-HISTORY.md, "Session 4: faster Merge"): a Topic fills the
// 128-byte size class, so it is 128-byte aligned, and every field
// unchangedTopic reads lies in its first 64 bytes.
func TestTopicHotFieldsInOneLine(t *testing.T) {
	var x Topic
	if n := unsafe.Sizeof(x); n != 128 {
		t.Fatalf("Topic is %d bytes, want 128", n)
	}
	hot := map[string]uintptr{
		"name":       unsafe.Offsetof(x.name) + unsafe.Sizeof(x.name),
		"parts":      unsafe.Offsetof(x.parts) + unsafe.Sizeof(x.parts),
		"id":         unsafe.Offsetof(x.id) + unsafe.Sizeof(x.id),
		"errorCode":  unsafe.Offsetof(x.errorCode) + unsafe.Sizeof(x.errorCode),
		"internal":   unsafe.Offsetof(x.internal) + unsafe.Sizeof(x.internal),
		"refresh":    unsafe.Offsetof(x.refresh) + unsafe.Sizeof(x.refresh),
		"gone":       unsafe.Offsetof(x.gone) + unsafe.Sizeof(x.gone),
		"idStreak.n": unsafe.Offsetof(x.idStreak) + unsafe.Offsetof(x.idStreak.n) + unsafe.Sizeof(x.idStreak.n),
	}
	for f, end := range hot {
		if end > 64 {
			t.Errorf("Topic.%s ends at byte %d, past the first cache line", f, end)
		}
	}
}
