package publisher_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
)

// TestStatsMetrics: the metrics follow the loader (offset, timestamp, lag
// from the given now, offset lag to the high watermark, load errors) and
// their names follow Prometheus' conventions: valid, unique, snake case,
// counters ending in _total, time in seconds.
func TestStatsMetrics(t *testing.T) {
	l := publisher.NewLoader(publisher.Config{FaultHandler: func(*publisher.Loader, *publisher.Fault) {}})
	defer l.Close()
	m := metricsByName(l.Stats().Metrics(time.UnixMilli(5000)))
	if m["kafka_server_broker_metadata_last_applied_record_offset"] != -1 || m["kafka_server_broker_metadata_last_applied_record_lag_seconds"] != 0 {
		t.Fatalf("before the first publication: %v", m)
	}

	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = "orders", record.UUID{1}
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.Leader, pr.Replicas, pr.ISR = tr.TopicID, 1, []int32{1}, []int32{1}
	l.SetHighWatermark(2)
	if err := l.HandleCommit(record.Batch{BaseOffset: 0, LeaderEpoch: 1, AppendTime: 2000, Records: versioned(tr, pr)}); err != nil {
		t.Fatal(err)
	}
	l.SetHighWatermark(10) // offsets 3..9 not yet seen
	bad := record.NewPartitionRecord()
	bad.TopicID, bad.Leader, bad.Replicas, bad.ISR = record.UUID{9}, 1, []int32{1}, []int32{1}
	if err := l.HandleCommit(record.Batch{BaseOffset: 2, LeaderEpoch: 1, AppendTime: 3000, Records: versioned(bad)}); err != nil {
		t.Fatal(err)
	}
	s := l.Stats()
	if s.LastApplied.LastContainedOffset != 2 || s.LastApplied.LastContainedLogTimeMs != 3000 || s.ReplayErrors == 0 {
		t.Fatalf("the test's loader: %+v", s)
	}
	m = metricsByName(s.Metrics(time.UnixMilli(7500)))
	want := map[string]float64{
		"kafka_server_broker_metadata_last_applied_record_offset":            float64(s.LastApplied.LastContainedOffset),
		"kafka_server_broker_metadata_last_applied_record_timestamp_seconds": float64(s.LastApplied.LastContainedLogTimeMs) / 1000,
		"kafka_server_broker_metadata_last_applied_record_lag_seconds":       7.5 - float64(s.LastApplied.LastContainedLogTimeMs)/1000,
		"kafka_server_broker_metadata_load_errors_total":                     float64(s.ReplayErrors),
		"kafka_server_broker_metadata_apply_errors_total":                    0,
		"kafka_server_metadata_loader_offset_lag":                            float64(9 - s.LastApplied.LastContainedOffset),
		"kafka_server_metadata_loader_caught_up":                             1, // once caught up, always (MetadataLoader)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (stats %+v)", k, m[k], v, s)
		}
	}
}

func metricsByName(ms []publisher.Metric) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ms {
		out[m.Name] = m.Value
	}
	return out
}

// TestMetricNamesPrometheus checks the naming conventions of every name.
func TestMetricNamesPrometheus(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]bool{}
	for _, m := range (publisher.Stats{}).Metrics(time.Now()) {
		switch {
		case !valid.MatchString(m.Name), seen[m.Name], m.Help == "":
			t.Errorf("%q: invalid, duplicate or without help", m.Name)
		case (m.Kind == publisher.Counter) != strings.HasSuffix(m.Name, "_total"):
			t.Errorf("%q: counters and only counters end in _total", m.Name)
		case strings.Contains(m.Name, "_ms") || strings.HasSuffix(m.Name, "_count"):
			t.Errorf("%q: base units, no _count suffix", m.Name)
		}
		seen[m.Name] = true
	}
}
