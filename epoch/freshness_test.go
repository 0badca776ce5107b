package epoch

import (
	"testing"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// TestCheckErrorsAreInvalidMetadata: every error the broker-side checks
// return is one on which a client refreshes its metadata
// (InvalidMetadataException in Kafka's Errors), over every partition,
// epoch, broker and leadership need of the test image; and the codes that
// say nothing about metadata are not.
func TestCheckErrorsAreInvalidMetadata(t *testing.T) {
	img := testImage(t)
	seen := map[kafkaerr.Code]bool{}
	for _, topic := range []string{"orders", "nope"} {
		for p := int32(-1); p <= 3; p++ {
			for e := NoEpoch; e <= 10; e++ {
				for local := int32(1); local <= 4; local++ {
					for _, need := range []bool{false, true} {
						r := CheckName(img, topic, p, e, local, need)
						if r.ErrorCode == kafkaerr.None {
							continue
						}
						seen[r.ErrorCode] = true
						if !InvalidMetadata(r.ErrorCode) {
							t.Fatalf("Check(%s, %d, epoch %d, at %d, %v) = %v: not an invalid-metadata error", topic, p, e, local, need, r.ErrorCode)
						}
					}
				}
			}
		}
	}
	for _, c := range []kafkaerr.Code{kafkaerr.UnknownTopicOrPartition, kafkaerr.NotLeaderOrFollower,
		kafkaerr.FencedLeaderEpoch, kafkaerr.UnknownLeaderEpoch} {
		if !seen[c] {
			t.Errorf("Check never returned %v over the test image", c)
		}
	}
	for _, c := range []kafkaerr.Code{kafkaerr.None, kafkaerr.TopicAuthorizationFailed, kafkaerr.InvalidTopic,
		kafkaerr.UnknownServerError} {
		if InvalidMetadata(c) {
			t.Errorf("InvalidMetadata(%v) = true", c)
		}
	}
}
