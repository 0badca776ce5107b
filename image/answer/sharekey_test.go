package answer

import (
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
	"github.com/kmeta-go/kmeta/record"
)

// TestShareCoordinatorKey follows SharePartitionKey.getInstance(String) and
// asCoordinatorKey: String.split(":") drops trailing empty parts, the key is
// read from the right, the group id is trimmed (String.trim) only to test
// that it is not empty, Uuid.fromString takes 22 URL-safe base64 characters
// with optional "==" and Uuid.toString prints them back without padding,
// Integer.parseInt takes a sign and Unicode decimal digits within int32.
// The valid/invalid split of the keys of fc-v6-share-batch is also checked
// against Kafka's answers by TestKafkaAnswerVectors.
func TestShareCoordinatorKey(t *testing.T) {
	const id = "LBZ5mSidlfqWYaQyRjAs2Q"
	valid := map[string]string{
		"g:" + id + ":0":           "g:" + id + ":0",
		"g:" + id + ":+5":          "g:" + id + ":5",
		"g:" + id + ":007":         "g:" + id + ":7",
		"g:" + id + ":-3":          "g:" + id + ":-3",
		"g:" + id + "==:2":         "g:" + id + ":2",
		"a:b:" + id + ":1":         "a:b:" + id + ":1",
		"g:" + id + ":1:":          "g:" + id + ":1", // trailing empty part dropped by split
		"g:" + id + ":1::":         "g:" + id + ":1",
		"::" + id + ":1":           "::" + id + ":1", // the group id is ":"
		" g :" + id + ":1":         " g :" + id + ":1",
		"g:" + id + ":2147483647":  "g:" + id + ":2147483647",
		"g:" + id + ":-2147483648": "g:" + id + ":-2147483648",
		"g:" + id + ":٣":           "g:" + id + ":3",       // ARABIC-INDIC DIGIT THREE
		"g:" + id[:21] + "R:0":     "g:" + id[:21] + "Q:0", // unused low bits ignored, printed as zero
	}
	for key, want := range valid {
		got, ok := ShareCoordinatorKey(key)
		if !ok || got != want {
			t.Errorf("ShareCoordinatorKey(%q) = %q, %t; want %q", key, got, ok, want)
		}
	}
	invalid := []string{
		"", ":", "::", "g", "g:" + id, "g:" + id + ":", " :" + id + ":0", "\t:" + id + ":0",
		"g:notauuid:0", "g:" + id + "=:0", "g:" + id + "===:0", "g:" + id[:21] + ":0", "g:" + id + "A:0",
		"g:!!!!!!!!!!!!!!!!!!!!!!:0", "g:" + id[:20] + "+/:0", "g:" + id[:11] + "\n" + id[11:21] + ":0",
		"g:" + id + ":x", "g:" + id + ":+", "g:" + id + ":-", "g:" + id + ":1.0", "g:" + id + ": 1",
		"g:" + id + ":99999999999", "g:" + id + ":2147483648", "g:" + id + ":-2147483649",
		"g:" + id + ":𝟑", // MATHEMATICAL BOLD DIGIT THREE: two UTF-16 units in Java, not a digit
	}
	for _, key := range invalid {
		if got, ok := ShareCoordinatorKey(key); ok {
			t.Errorf("ShareCoordinatorKey(%q) = %q, want invalid", key, got)
		}
	}
}

// TestFindCoordinatorShareHashesCoordinatorKey: share keys are hashed as
// ShareCoordinatorService.partitionFor does, over asCoordinatorKey, so keys
// that parse to the same SharePartitionKey find the same coordinator.
func TestFindCoordinatorShareHashesCoordinatorKey(t *testing.T) {
	const id = "LBZ5mSidlfqWYaQyRjAs2Q"
	dl := delta.New(edgeImage(t))
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = ShareStateTopic, record.UUID{0: 0x5e}
	if err := dl.Replay(tr); err != nil {
		t.Fatal(err)
	}
	leaders := []int32{1, 2, 4}
	for p := int32(0); p < 50; p++ {
		r := record.NewPartitionRecord()
		l := leaders[p%3]
		r.TopicID, r.PartitionID, r.Leader, r.Replicas, r.ISR = tr.TopicID, p, l, []int32{l}, []int32{l}
		if err := dl.Replay(r); err != nil {
			t.Fatal(err)
		}
	}
	img, err := dl.Apply(image.Provenance{LastContainedOffset: 200, LastContainedEpoch: 1, BatchAligned: true})
	if err != nil {
		t.Fatal(err)
	}
	r, rq := New(Config{}), Request{Listener: "PLAINTEXT"}
	discriminating := 0
	for _, k := range []string{"g:" + id + ":5", "g:" + id + ":+5", "g:" + id + "==:5", "g:" + id + ":005", "g:" + id + ":5:", "other:" + id + ":-0"} {
		norm, _ := ShareCoordinatorKey(k)
		want, _, _ := img.Leader(ShareStateTopic, CoordinatorPartition(norm, 50))
		if raw, _, _ := img.Leader(ShareStateTopic, CoordinatorPartition(k, 50)); raw != want {
			discriminating++
		}
		c, ct := r.FindCoordinatorKey(img, 6, CoordinatorShare, k, rq)
		if ct != nil || c.ErrorCode != kafkaerr.None || c.NodeID != want || c.Key != k {
			t.Errorf("%q: %+v, want node %d (partition of %q)", k, c, want, norm)
		}
	}
	if discriminating == 0 {
		t.Fatal("no key whose raw hash picks another coordinator: the test cannot tell the hashes apart")
	}
}
