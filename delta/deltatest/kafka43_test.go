package deltatest

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

func envelope(t *testing.T, r image.VersionedRecord) string {
	t.Helper()
	b, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKafka43RegistrationsMatchRealSnapshots: the broker and controller
// registrations of the real Kafka 4.3 cluster (corpus/kraft-4.3: every
// snapshot holds one broker and one controller), re-made by a simulator at
// the metadata.version and features of that cluster's bootstrap.checkpoint
// with the same ids, incarnations, listeners and log directories, are the
// same records once written back, field for field — the supported features
// (metadata.version 7-30, kraft.version 0-1, the finalized features from 0),
// the empty cordoned list of RegisterBrokerRecord v4, zkMigrationReady
// false — except the broker epoch, which is the offset of the registration
// in the real log. Arrays that Kafka writes in HashMap order are compared as
// sets. The real broker has no rack (null); the simulator's RegisterBroker
// writes a missing rack as "" (the record's default), so a "" rack is read
// as null here — the null-rack correction of RegisterBroker is separate
// work.
func TestKafka43RegistrationsMatchRealSnapshots(t *testing.T) {
	root := sharedtest.Path(t, "corpus", "kraft-4.3")
	boot, err := metalog.ReadBootstrap(metalog.OS{}, filepath.Join(root, "KS9602__KASYNO", "data", metalog.BootstrapFileName))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Seed: 1, Features: map[string]int16{}}
	for _, e := range boot {
		r, _, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		fl := r.(*record.FeatureLevelRecord)
		if fl.Name == image.MetadataVersionFeature {
			cfg.MetadataVersion = image.MetadataVersion(fl.FeatureLevel)
		} else {
			cfg.Features[fl.Name] = fl.FeatureLevel
		}
	}
	if cfg.MetadataVersion != image.MV4_3_IV0 {
		t.Fatalf("bootstrap at %s", cfg.MetadataVersion)
	}
	def := MustNew(Config{MetadataVersion: image.MV4_3_IV0})
	if !maps(def.features, cfg.Features) {
		t.Errorf("default features at 4.3-IV0 %v, the real bootstrap %v (Feature.defaultLevel)", def.features, cfg.Features)
	}
	snaps, _ := filepath.Glob(filepath.Join(root, "KS9602__KASYNO", "data", metalog.MetadataPartitionDir, "*"+metalog.SnapshotSuffix))
	if len(snaps) == 0 {
		t.Fatal("no snapshots")
	}
	for _, p := range snaps {
		t.Run(filepath.Base(p), func(t *testing.T) {
			real := realRegistrations(t, p)
			s := MustNew(cfg)
			for _, r := range real {
				switch r := r.Record.(type) {
				case *record.RegisterControllerRecord:
					var ls []image.Endpoint
					for _, e := range r.EndPoints {
						ls = append(ls, image.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
					}
					if err := s.RegisterController(ControllerSpec{ID: r.ControllerID, Incarnation: r.IncarnationID, Listeners: ls}); err != nil {
						t.Fatal(err)
					}
				case *record.RegisterBrokerRecord:
					var ls []image.Endpoint
					for _, e := range r.EndPoints {
						ls = append(ls, image.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
					}
					spec := BrokerSpec{ID: r.BrokerID, Incarnation: r.IncarnationID, Listeners: ls, LogDirs: r.LogDirs}
					if r.Rack != nil {
						spec.Rack = *r.Rack
					}
					if err := s.AddBroker(spec); err != nil {
						t.Fatal(err)
					}
				}
			}
			recs, err := s.Image().Records(image.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var sim []image.VersionedRecord
			for _, r := range recs {
				switch rr := r.Record.(type) {
				case *record.RegisterBrokerRecord:
					rr.BrokerEpoch = real[brokerIndex(real)].Record.(*record.RegisterBrokerRecord).BrokerEpoch
					sim = append(sim, r)
				case *record.RegisterControllerRecord:
					sim = append(sim, r)
				}
			}
			if g, w := normalized(t, sim), normalized(t, real); !slices.Equal(g, w) {
				t.Fatalf("simulated registrations\n %s\nreal\n %s", strings.Join(g, "\n "), strings.Join(w, "\n "))
			}
		})
	}
}

func maps(a, b map[string]int16) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func brokerIndex(recs []image.VersionedRecord) int {
	for i, r := range recs {
		if _, ok := r.Record.(*record.RegisterBrokerRecord); ok {
			return i
		}
	}
	return -1
}

// realRegistrations reads the RegisterBrokerRecords and
// RegisterControllerRecords of a snapshot.
func realRegistrations(t *testing.T, path string) []image.VersionedRecord {
	t.Helper()
	sr, err := metalog.OpenSnapshot(metalog.OS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var out []image.VersionedRecord
	for {
		b, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.IsControl() {
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			switch r.Record.(type) {
			case *record.RegisterBrokerRecord, *record.RegisterControllerRecord:
				out = append(out, image.VersionedRecord{Record: r.Record, Version: r.Version})
			}
		}
	}
	if brokerIndex(out) < 0 {
		t.Fatalf("%s: no broker registration", path)
	}
	return out
}

// normalized is each record's envelope with its endPoints and features
// sorted by name (Kafka writes them in HashMap order), sorted.
func normalized(t *testing.T, recs []image.VersionedRecord) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		var env map[string]any
		if err := json.Unmarshal([]byte(envelope(t, r)), &env); err != nil {
			t.Fatal(err)
		}
		data := env["data"].(map[string]any)
		if data["rack"] == "" {
			data["rack"] = nil
		}
		for _, k := range []string{"endPoints", "features"} {
			arr, _ := data[k].([]any)
			slices.SortFunc(arr, func(a, b any) int {
				return strings.Compare(a.(map[string]any)["name"].(string), b.(map[string]any)["name"].(string))
			})
		}
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// TestCordonLogDirs: cordoning and uncordoning log directories (KIP-1066) is
// reported by the broker's next heartbeat as a BrokerRegistrationChangeRecord
// v3 with the whole list (in the HashSet order Kafka's broker sends), a
// broker whose every directory is cordoned gets no new replicas
// (BrokerHeartbeatManager.usableBrokers skips it when
// !BrokerRegistration.hasUncordonedDirs), and below 4.3-IV0 it is refused.
func TestCordonLogDirs(t *testing.T) {
	s := MustNew(Config{MetadataVersion: image.MV4_3_IV0, Seed: 3})
	d1, d2 := record.UUID{0x11, 1}, record.UUID{0x22, 2}
	if err := s.AddBroker(BrokerSpec{ID: 1, LogDirs: []record.UUID{d1, d2}}); err != nil {
		t.Fatal(err)
	}
	for id := int32(2); id <= 3; id++ {
		if err := s.AddBroker(BrokerSpec{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	cordoned := func() []record.UUID {
		b, _ := s.Image().Cluster().Broker(1)
		c, _ := b.CordonedDirectories()
		return c
	}
	if err := s.CordonLogDirs(1, d2); err != nil {
		t.Fatal(err)
	}
	if got := s.LastRecords(); len(got) != 1 || got[0].Version != 3 || !slices.Equal(cordoned(), []record.UUID{d2}) {
		t.Fatalf("cordon d2: %v, image %v", got, cordoned())
	}
	if err := s.CordonLogDirs(1, d1); err != nil {
		t.Fatal(err)
	}
	if c := cordoned(); len(c) != 2 || !slices.Equal(c, javaSetOrder([]record.UUID{d2, d1})) {
		t.Fatalf("cordoned %v", c)
	}
	if err := s.CordonLogDirs(1, d1); err != nil || len(s.LastRecords()) != 0 {
		t.Fatalf("cordoning again: %v %v", err, s.LastRecords())
	}
	b1, _ := s.Image().Cluster().Broker(1)
	if b1.HasUncordonedDirs() {
		t.Fatal("every directory cordoned, yet HasUncordonedDirs")
	}
	if _, err := s.CreateTopic(TopicSpec{Name: "t", Partitions: 12, ReplicationFactor: 2}); err != nil {
		t.Fatal(err)
	}
	tp, _ := s.Image().Topic("t")
	for p := range tp.Partitions() {
		if slices.Contains(p.Replicas(), 1) {
			t.Fatalf("a replica placed on broker 1, all of whose directories are cordoned: %v", p.Replicas())
		}
	}
	if err := s.UncordonLogDirs(1, d1, d2); err != nil {
		t.Fatal(err)
	}
	if c := cordoned(); c == nil || len(c) != 0 {
		t.Fatalf("uncordoned: %v", c)
	}
	if err := s.CordonLogDirs(1, record.UUID{9}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("a directory of no broker: %v", err)
	}
	old := MustNew(Config{MetadataVersion: image.MV4_2_IV1, Seed: 3})
	if err := old.AddBroker(BrokerSpec{ID: 1, LogDirs: []record.UUID{d1}}); err != nil {
		t.Fatal(err)
	}
	if err := old.CordonLogDirs(1, d1); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("cordon at 4.2-IV1: %v", err)
	}
	if err := old.RegisterBroker(BrokerSpec{ID: 2, LogDirs: []record.UUID{d2}, CordonedLogDirs: []record.UUID{d2}}); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("cordoned at registration at 4.2-IV1: %v", err)
	}
	// A broker that starts with a cordoned directory reports it in the
	// heartbeat that unfences it.
	if err := s.AddBroker(BrokerSpec{ID: 4, LogDirs: []record.UUID{{0x44}, {0x45}}, CordonedLogDirs: []record.UUID{{0x45}}}); err != nil {
		t.Fatal(err)
	}
	last := s.LastRecords()
	if r, ok := last[len(last)-1].Record.(*record.BrokerRegistrationChangeRecord); !ok || !slices.Equal(r.CordonedLogDirs, []record.UUID{{0x45}}) {
		t.Fatalf("unfencing heartbeat of broker 4: %v", last)
	}
}
