package deltatest

import (
	"errors"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
	"github.com/kmeta-go/kmeta/record"
)

// TestFailLogDirMovesLeadershipAndReportsDirs: a failed directory takes the
// broker out of the ISR and leadership of its replicas there and leaves the
// registration with the other directory
// (ReplicationControlManager.handleDirectoriesOffline); the broker's
// ReplicaChanges then show it following with a new leader epoch.
func TestFailLogDirMovesLeadershipAndReportsDirs(t *testing.T) {
	s := MustNew(Config{MetadataVersion: image.MV4_4_IV2})
	for id := int32(1); id <= 3; id++ {
		dirs := []record.UUID{{byte(id), 1}, {byte(id), 2}}
		if err := s.AddBroker(BrokerSpec{ID: id, LogDirs: dirs}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateTopic(TopicSpec{Name: "t", Assignment: [][]int32{{1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	p, _ := s.Image().Topics().ByName("t")
	// A new replica is UNASSIGNED with two directories until the broker
	// assigns it (AssignReplicasToDirs).
	dir := record.UUID{1, 1}
	if err := s.AssignReplicaToDir("t", 0, 1, dir); err != nil {
		t.Fatal(err)
	}
	d, img, err := s.Step(func() error { return s.FailLogDir(1, dir) })
	if err != nil {
		t.Fatal(err)
	}
	np, _ := img.Topics().Partition(p.ID(), 0)
	if np.Leader() == 1 || np.InISR(1) {
		t.Fatalf("after the failure: %s", np.String())
	}
	b, _ := img.Cluster().Broker(1)
	if b.HasOnlineDir(dir) || b.NumDirectories() != 1 {
		t.Fatalf("broker 1 directories %v", b.Directories())
	}
	if rc := d.ReplicaChanges(1, false); len(rc.Followers) != 1 || !rc.Followers[0].NewLeaderEpoch {
		t.Fatalf("broker 1 replica changes %+v", rc)
	}
	if err := s.FailLogDir(1, b.Directories()[0]); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("failing the last directory: %v", err)
	}
}

// TestAssignReplicaToDir: AssignReplicasToDirs moves the replica's
// directory; to a directory that is not online the broker also leaves the
// ISR and leadership (offline-dir-assignment).
func TestAssignReplicaToDir(t *testing.T) {
	s := MustNew(Config{MetadataVersion: image.MV4_4_IV2})
	for id := int32(1); id <= 3; id++ {
		dirs := []record.UUID{{byte(id), 1}, {byte(id), 2}}
		if err := s.AddBroker(BrokerSpec{ID: id, LogDirs: dirs}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateTopic(TopicSpec{Name: "t", Assignment: [][]int32{{1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Image().Cluster().Broker(2)
	tp, _ := s.Image().Topics().ByName("t")
	cur, _ := tp.Partition(0)
	from, _ := cur.DirectoryOf(2)
	to := b.Directories()[0]
	if to == from {
		to = b.Directories()[1]
	}
	d, img, err := s.Step(func() error { return s.AssignReplicaToDir("t", 0, 2, to) })
	if err != nil {
		t.Fatal(err)
	}
	np, _ := img.Topics().Partition(tp.ID(), 0)
	if got, _ := np.DirectoryOf(2); got != to || !np.InISR(2) {
		t.Fatalf("after the assignment: %s", np.String())
	}
	if got := d.LocalChanges(2).Directories; len(got) != 1 {
		t.Fatalf("broker 2 directory changes %v", got)
	}
	offline := record.UUID{0xde, 0xad}
	_, img, err = s.Step(func() error { return s.AssignReplicaToDir("t", 0, 2, offline) })
	if err != nil {
		t.Fatal(err)
	}
	np, _ = img.Topics().Partition(tp.ID(), 0)
	if got, _ := np.DirectoryOf(2); got != offline || np.InISR(2) {
		t.Fatalf("after the offline assignment: %s", np.String())
	}
}

// TestRedundantFenceFromKafka40: a broker fenced by a controlled shutdown
// that then stops heartbeating is fenced again when its session expires from
// Kafka 4.0 (a BrokerRegistrationChangeRecord with Fenced=1 for a fenced
// broker); Kafka 3.9 writes nothing.
func TestRedundantFenceFromKafka40(t *testing.T) {
	for _, c := range []struct {
		mv   image.MetadataVersion
		want int
	}{{image.MV3_9_IV0, 0}, {image.MV4_0_IV3, 1}} {
		s := MustNew(Config{MetadataVersion: c.mv})
		if err := s.AddBrokers(3); err != nil {
			t.Fatal(err)
		}
		if err := s.ControlledShutdown(3); err != nil {
			t.Fatal(err)
		}
		from := s.NextOffset()
		if err := s.Advance(20 * time.Second); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range s.BatchesFrom(from) {
			for _, r := range b.Records {
				if ch, ok := r.Record.(*record.BrokerRegistrationChangeRecord); ok && ch.BrokerID == 3 && ch.Fenced == 1 {
					n++
				}
			}
		}
		if n != c.want {
			t.Fatalf("mv %s: %d fence records for the fenced broker, want %d", c.mv, n, c.want)
		}
	}
}

// TestValidateBrokerConfigs: with Config.ValidateBrokerConfigs, a
// non-dynamic broker config, an unprefixed security config and a per-broker
// config at the cluster default are refused as a Kafka broker refuses them
// (DynamicBrokerConfig.validateConfigs); dynamic ones are written.
func TestValidateBrokerConfigs(t *testing.T) {
	s := MustNew(Config{ValidateBrokerConfigs: true})
	if err := s.AddBrokers(1); err != nil {
		t.Fatal(err)
	}
	v := "1"
	for _, c := range []struct {
		name, key string
		ok        bool
	}{
		{"", "log.retention.ms", true},
		{"", "log.retention.hours", false},
		{"1", "num.partitions", false},
		{"1", "ssl.keystore.password", false},
		{"1", "listener.name.internal.ssl.keystore.password", true},
		{"", "listener.name.internal.ssl.keystore.password", false},
		{"", "listener.name.internal.max.connections", true},
		{"", "listeners", false},
		{"1", "listeners", true},
		{"", "leader.replication.throttled.rate", true},
		{"", "no.such.config", true},
	} {
		err := s.AlterConfigs(BrokerResource, c.name, map[string]*string{c.key: &v})
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("broker %q %s: %v, want ok=%v", c.name, c.key, err, c.ok)
		}
	}
	if err := MustCluster(1).AlterConfigs(BrokerResource, "", map[string]*string{"log.retention.hours": &v}); err != nil {
		t.Errorf("without ValidateBrokerConfigs: %v", err)
	}
}

// dynamicConfigVector is one line of changes-dynamic-configs: what Kafka
// 4.4's DynamicBrokerConfig says of one broker config name.
type dynamicConfigVector struct {
	Name                  string `json:"name"`
	Known                 bool   `json:"known"`
	NonDynamic            bool   `json:"nonDynamic"`
	SecurityWithoutPrefix bool   `json:"securityWithoutPrefix"`
	PerBroker             bool   `json:"perBroker"`
}

// TestOracleDynamicBrokerConfigs: for every name of Kafka 4.4's KafkaConfig
// ConfigDef, every dynamic broker config and a few listener-prefixed and
// unknown names, the simulator's ValidateBrokerConfigs rules equal Kafka's
// DynamicBrokerConfig.nonDynamicConfigs, securityConfigsWithoutListenerPrefix
// and perBrokerConfigs (changes-dynamic-configs vectors).
func TestOracleDynamicBrokerConfigs(t *testing.T) {
	kafkaoracle.Decode(t, "changes-dynamic-configs", func(n int, v *dynamicConfigVector) {
		got := brokerConfigRuleOf(v.Name)
		want := brokerConfigRule{nonDynamic: v.NonDynamic, listenerOnly: v.SecurityWithoutPrefix, perBroker: v.PerBroker}
		if got != want {
			t.Errorf("%s: %s: kmeta %+v, Kafka %+v", kafkaoracle.Name("changes-dynamic-configs", n), v.Name, got, want)
		}
	})
}
