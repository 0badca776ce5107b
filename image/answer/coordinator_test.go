package answer

import (
	"fmt"
	"testing"
	"unicode/utf16"
)

// javaHashUTF16 computes String.hashCode independently: encode to UTF-16
// code units with the standard library, then h = 31*h + unit in int64,
// truncated to int32 at the end (the same value as per-step wrap-around).
func javaHashUTF16(s string) int32 {
	var h int64
	for _, u := range utf16.Encode([]rune(s)) {
		h = (31*h + int64(u)) & 0xFFFFFFFF
	}
	return int32(uint32(h))
}

// TestJavaHashCode checks JavaHashCode (String.hashCode) against values known
// from Java and the independent UTF-16 computation, for ASCII, Latin-1,
// CJK and keys outside the BMP (surrogate pairs).
func TestJavaHashCode(t *testing.T) {
	known := map[string]int32{
		"":                   0,
		"hello":              99162322,
		"polygenelubricants": -2147483648, // Integer.MIN_VALUE
		"é":                  233,
		"😀":                  31*0xD83D + 0xDE00,
	}
	for s, want := range known {
		if got := JavaHashCode(s); got != want {
			t.Errorf("JavaHashCode(%q) = %d, want %d", s, got, want)
		}
	}
	for _, s := range []string{"group-1", "ñandú", "日本語グループ", "😀-emoji", "𝄞 clef", "orders-consumer-with-a-long-name-0123456789", "tx-1", "\x00"} {
		if got, want := JavaHashCode(s), javaHashUTF16(s); got != want {
			t.Errorf("JavaHashCode(%q) = %d, UTF-16 computation %d", s, got, want)
		}
	}
}

// TestCoordinatorPartition: Utils.abs(hashCode) % n, with MIN_VALUE mapped
// to 0 (Utils.abs), as GroupCoordinator.partitionFor and
// TransactionStateManager.partitionFor compute it.
func TestCoordinatorPartition(t *testing.T) {
	for i, s := range []string{"", "group-1", "polygenelubricants", "ñandú", "日本語グループ", "😀-emoji", "tx-1"} {
		for _, n := range []int32{1, 3, 50, 51} {
			t.Run(fmt.Sprintf("%d/n=%d", i, n), func(t *testing.T) {
				h := int64(javaHashUTF16(s))
				if h == -2147483648 {
					h = 0
				}
				if h < 0 {
					h = -h
				}
				if got, want := CoordinatorPartition(s, n), int32(h%int64(n)); got != want {
					t.Errorf("CoordinatorPartition(%q, %d) = %d, want %d", s, n, got, want)
				}
			})
		}
	}
}

// TestFindCoordinatorPicksKafkasPartition: the coordinator answered is the
// leader of partition abs(hash) % N of the internal topic, N its partition
// count in the image (50 by Kafka's default) or the fixed option.
func TestFindCoordinatorPicksKafkasPartition(t *testing.T) {
	img := edgeImage(t)
	r, rq := New(Config{}), Request{Listener: "PLAINTEXT"}
	for _, key := range []string{"ñandú", "日本語グループ", "😀-emoji", "tx-1", "group-1"} {
		c, _ := r.FindCoordinatorKey(img, 4, CoordinatorTransaction, key, rq)
		p := CoordinatorPartition(key, 2)
		leader, _, _ := img.Leader(TransactionTopic, p)
		if c.ErrorCode != 0 || c.NodeID != leader {
			t.Errorf("%q: got node %d err %d, want leader %d of partition %d", key, c.NodeID, c.ErrorCode, leader, p)
		}
	}
}
