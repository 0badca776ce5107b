package publisher

import "time"

// MetricKind says how an exporter should expose a Metric.
type MetricKind int

const (
	// Gauge is a value that goes up and down.
	Gauge MetricKind = iota
	// Counter only grows while the loader lives.
	Counter
)

// Metric is one of the loader's numbers as a monitoring system exports it:
// Kafka's name for it, a Prometheus name that follows Prometheus' naming
// conventions (a kafka_server_ namespace after Kafka's JMX domain, base
// units, _total on counters), a help text and the value. The library
// depends on no metrics package; an embedder registers these with its own
// (prometheus/client_golang's GaugeFunc and CounterFunc, expvar, OpenTelemetry
// observers), reading Loader.Stats at each scrape.
type Metric struct {
	// Name is the Prometheus name, e.g.
	// "kafka_server_broker_metadata_last_applied_record_offset".
	Name string
	// Kafka is Kafka's group and name, e.g.
	// "broker-metadata-metrics last-applied-record-offset", or "" for a
	// number Kafka does not export.
	Kafka string
	// Help says what it is, for the exporter's HELP line.
	Help  string
	Kind  MetricKind
	Value float64
}

// Metrics returns s as the metrics a Kafka broker exports about its
// metadata loader, at time now (the lag is measured from it). Kafka's name
// (group broker-metadata-metrics, BrokerServerMetrics; type MetadataLoader,
// MetadataLoaderMetrics), then the Prometheus name, then what it is made of:
//
//	last-applied-record-offset     kafka_server_broker_metadata_last_applied_record_offset             LastApplied.LastContainedOffset
//	last-applied-record-timestamp  kafka_server_broker_metadata_last_applied_record_timestamp_seconds  LastApplied.LastContainedLogTimeMs / 1000
//	last-applied-record-lag-ms     kafka_server_broker_metadata_last_applied_record_lag_seconds        now − that timestamp
//	metadata-load-error-count      kafka_server_broker_metadata_load_errors_total                      ReplayErrors + ApplyErrors + ReadErrors
//	metadata-apply-error-count     kafka_server_broker_metadata_apply_errors_total                     PublisherErrors
//	HandleLoadSnapshotCount        kafka_server_metadata_loader_handle_load_snapshot_total             SnapshotLoads
//	CurrentControllerId            kafka_server_metadata_loader_current_controller_id                  Leader.LeaderID
//	(kmeta)                        kafka_server_metadata_loader_offset_lag                             HighWatermark − 1 − LastApplied.LastContainedOffset, at least 0
//	(kmeta)                        kafka_server_metadata_loader_caught_up                              1 when CaughtUp, else 0
//
// Kafka's broker counts in metadata-load-error-count every fault its
// metadata loader's fault handler gets (BrokerServerMetrics, SharedServer's
// "metadata loading" fault handler): kmeta's replay and apply faults, and
// the read faults an embedder reports with Loader.ReportReadError, which go
// to the same handler. metadata-apply-error-count counts publisher failures
// (the "metadata publishing" fault handler). Kafka's timestamp and lag are in
// milliseconds; the Prometheus names carry seconds, Prometheus' base unit.
// Before the first publication the offset is -1 and the timestamp and lag 0.
func (s Stats) Metrics(now time.Time) []Metric {
	la := s.LastApplied
	ts, lag := 0.0, 0.0
	if la.LastContainedOffset >= 0 {
		ts = float64(la.LastContainedLogTimeMs) / 1000
		lag = float64(now.UnixMilli()-la.LastContainedLogTimeMs) / 1000
	}
	offsetLag := 0.0
	if s.HighWatermark > 0 && s.HighWatermark-1 > la.LastContainedOffset {
		offsetLag = float64(s.HighWatermark - 1 - la.LastContainedOffset)
	}
	caught := 0.0
	if s.CaughtUp {
		caught = 1
	}
	const bm, ml = "broker-metadata-metrics ", "MetadataLoader "
	return []Metric{
		{"kafka_server_broker_metadata_last_applied_record_offset", bm + "last-applied-record-offset",
			"Offset of the last record in the last published metadata image.", Gauge, float64(la.LastContainedOffset)},
		{"kafka_server_broker_metadata_last_applied_record_timestamp_seconds", bm + "last-applied-record-timestamp",
			"Append time of the batch of the last record in the last published metadata image.", Gauge, ts},
		{"kafka_server_broker_metadata_last_applied_record_lag_seconds", bm + "last-applied-record-lag-ms",
			"Time since the append time of the last record in the last published metadata image.", Gauge, lag},
		{"kafka_server_broker_metadata_load_errors_total", bm + "metadata-load-error-count",
			"Faults reading, replaying or applying metadata records.", Counter, float64(s.ReplayErrors + s.ApplyErrors + s.ReadErrors)},
		{"kafka_server_broker_metadata_apply_errors_total", bm + "metadata-apply-error-count",
			"Publisher failures on a new metadata image.", Counter, float64(s.PublisherErrors)},
		{"kafka_server_metadata_loader_handle_load_snapshot_total", ml + "HandleLoadSnapshotCount",
			"Snapshots the metadata loader has loaded.", Counter, float64(s.SnapshotLoads)},
		{"kafka_server_metadata_loader_current_controller_id", ml + "CurrentControllerId",
			"The raft leader last heard of, -1 when unknown.", Gauge, float64(s.Leader.LeaderID)},
		{"kafka_server_metadata_loader_offset_lag", "",
			"Records between the last published image and the high watermark.", Gauge, offsetLag},
		{"kafka_server_metadata_loader_caught_up", "",
			"1 once the metadata loader has reached the high watermark.", Gauge, caught},
	}
}
