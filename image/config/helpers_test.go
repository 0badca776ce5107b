package config

import (
	"encoding/json"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

// describeVector is one DescribeConfigs request of a vector and Kafka's
// answer encoded at every version (base64 by version).
type describeVector struct {
	Synonyms      bool              `json:"synonyms"`
	Documentation bool              `json:"documentation"`
	Resources     []describeRes     `json:"resources"`
	Docs          int               `json:"docs"`
	Responses     map[string][]byte `json:"responses"`
}

type describeRes struct {
	Type int8      `json:"type"`
	Name string    `json:"name"`
	Keys *[]string `json:"keys"`
}

// putTopics adds topics with one partition each.
func putTopics(t testing.TB, b *image.Builder, names []string) {
	t.Helper()
	var ts []image.Topic
	for i, n := range names {
		tb := image.NewTopicBuilder(n, record.UUID{byte(i + 1), 7})
		ts = append(ts, tb.Topic())
	}
	if err := b.PutTopics(nil, ts); err != nil {
		t.Fatal(err)
	}
}

// topicWant is Kafka's LogConfig values of one topic, or isErr when
// LogConfig rejected its config.
func topicWant(t testing.TB, raw json.RawMessage) (want map[string]*string, isErr bool) {
	t.Helper()
	if string(raw) == `"error"` {
		return nil, true
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	return want, false
}

// authzCtx is the client of the tests' requests.
var authzCtx = authz.Context{Principal: "User:test", Host: "127.0.0.1"}
