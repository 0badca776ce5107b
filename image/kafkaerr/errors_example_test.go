package kafkaerr_test

import (
	"errors"
	"fmt"

	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// A Code is an error: wrap it, test it with errors.Is, pull it back out
// with CodeOf.
func ExampleCodeOf() {
	err := fmt.Errorf("topic %q: %w", "orders", kafkaerr.UnknownTopicOrPartition)
	fmt.Println(err)
	fmt.Println(errors.Is(err, kafkaerr.UnknownTopicOrPartition), errors.Is(err, kafkaerr.InvalidTopic))
	c := kafkaerr.CodeOf(err)
	fmt.Println(c.Int16(), c.Retriable())
	fmt.Println(kafkaerr.CodeOf(nil), kafkaerr.CodeOf(errors.New("disk full")))
	// Output:
	// topic "orders": UNKNOWN_TOPIC_OR_PARTITION
	// true false
	// 3 true
	// NONE UNKNOWN_SERVER_ERROR
}

// A code read from a response: FromInt16, then Err gives nil for None.
func ExampleFromInt16() {
	for _, v := range []int16{0, 74, 31} {
		c := kafkaerr.FromInt16(v)
		fmt.Println(c, c.Err() == nil, c.Retriable())
	}
	// Output:
	// NONE true false
	// FENCED_LEADER_EPOCH false true
	// CLUSTER_AUTHORIZATION_FAILED false false
}

// Is matches only the same code, whatever wraps it.
func ExampleCode_Is() {
	err := fmt.Errorf("create: %w", kafkaerr.TopicAlreadyExists)
	fmt.Println(kafkaerr.TopicAlreadyExists.Is(kafkaerr.TopicAlreadyExists), errors.Is(err, kafkaerr.InvalidPartitions))
	// Output:
	// true false
}
