package answer_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/record"
)

// brokersImage registers one broker per entry of listeners (ids 1, 2, ...),
// each with the given listener names, fenced when fenced is true.
func brokersImage(t testing.TB, fenced bool, listeners ...[]string) *image.Image {
	t.Helper()
	dl := delta.New(image.Empty())
	for i, names := range listeners {
		b := record.NewRegisterBrokerRecord()
		b.BrokerID, b.Fenced, b.Rack = int32(i+1), fenced, nil
		for j, n := range names {
			b.EndPoints = append(b.EndPoints, record.BrokerEndpoint{Name: n, Host: fmt.Sprintf("kafka-%d", i+1), Port: uint16(9092 + j)})
		}
		if err := dl.Replay(b); err != nil {
			t.Fatal(err)
		}
	}
	img, err := dl.Apply(image.EmptyProvenance)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestInterBrokerListener: inter.broker.listener.name normalised and
// checked against the registrations (AbstractKafkaConfig
// .interBrokerListenerName, ListenerName.normalised); unset, Kafka's
// default PLAINTEXT when registered, else the lowest broker's first
// listener; fenced brokers count, so that a stopped cluster still has one.
func TestInterBrokerListener(t *testing.T) {
	for _, c := range []struct {
		name      string
		fenced    bool
		listeners [][]string
		config    string
		want      string
		wantErr   bool
	}{
		{"default PLAINTEXT", false, [][]string{{"PLAINTEXT_HOST", "PLAINTEXT"}}, "", "PLAINTEXT", false},
		{"default on a stopped cluster", true, [][]string{{"PLAINTEXT"}, {"PLAINTEXT"}}, "", "PLAINTEXT", false},
		{"no PLAINTEXT: lowest broker's first", false, [][]string{{"SSL", "BROKER"}, {"AAA"}}, "", "BROKER", false},
		{"configured, normalised", false, [][]string{{"INTERNAL", "EXTERNAL"}}, "internal", "INTERNAL", false},
		{"configured on a stopped cluster", true, [][]string{{"INTERNAL"}}, "INTERNAL", "INTERNAL", false},
		{"configured, not registered", false, [][]string{{"INTERNAL"}, {"EXTERNAL"}}, "REPLICATION", "", true},
		{"no broker", false, nil, "", "", true},
		{"no listener", false, [][]string{{}}, "", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := brokersImage(t, c.fenced, c.listeners...)
			got, err := answer.InterBrokerListener(img.Cluster(), c.config)
			var le *answer.ListenerError
			if c.wantErr != (err != nil) || got != c.want || (err != nil && !errors.As(err, &le)) {
				t.Fatalf("got %q, %v; want %q (error %v)", got, err, c.want, c.wantErr)
			}
		})
	}
}
