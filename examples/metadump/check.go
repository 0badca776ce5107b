package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
)

// -check PATH replays the log with Kafka's rules (history.Check) and prints,
// first, the first record Kafka's replay would reject (file, offset,
// record, and the state it contradicted), then every other finding in log
// order: further rejections, broken partition invariants (leader in ISR,
// ISR within replicas, ELR rules, epochs never going back), fenced brokers
// left with leaderships, snapshots that differ from the log replayed to
// their offset, controllers registered but missing from the voter set
// (KIP-1312), and partitions without a leader and since when. Findings
// carry a severity: error, warning, or info (a state a real Kafka log holds,
// with the reason). A log that cannot be read to its end ends with an
// "unreadable" error finding, counted in the summary, and the reader's
// error on stderr. A rejected record is printed at the version its file
// holds. -json prints a JSON array. It exits 0 when there is no error or
// warning, 1 otherwise or when the log cannot be read, 3 for a segment that
// starts mid-log given alone.

type jsonFinding struct {
	Severity    string          `json:"severity"`
	Rule        string          `json:"rule"`
	File        string          `json:"file"`
	Offset      int64           `json:"offset"`
	Snapshot    bool            `json:"snapshot,omitempty"`
	AppendTime  int64           `json:"appendTime"`
	Message     string          `json:"message"`
	Explanation string          `json:"explanation,omitempty"`
	Topic       string          `json:"topic,omitempty"`
	Partition   *int32          `json:"partition,omitempty"`
	Broker      *int32          `json:"broker,omitempty"`
	Record      json.RawMessage `json:"record,omitempty"`
}

func runCheck(path string, o options, w io.Writer, stderr io.Writer) int {
	h, err := history.Read(path, history.Options{Unredacted: o.unredacted})
	if h == nil {
		return fail(stderr, err, 1)
	}
	fs := h.Findings
	first, hasFirst := h.FirstRejection()
	if o.json {
		out := make([]jsonFinding, 0, len(fs))
		for _, f := range fs {
			jf := jsonFinding{Severity: f.Severity.String(), Rule: string(f.Rule), File: f.At.File, Offset: f.At.Offset, Snapshot: f.At.Snapshot,
				AppendTime: f.At.AppendTime, Message: f.Message, Explanation: f.Explanation, Topic: f.Topic}
			if f.Partition >= 0 {
				p := f.Partition
				jf.Partition = &p
			}
			if f.Broker >= 0 {
				b := f.Broker
				jf.Broker = &b
			}
			if f.Record != nil {
				if js, err := record.AppendEnvelopeJSON(nil, f.Record, f.At.RecordVersion); err == nil {
					jf.Record = js
				}
			}
			out = append(out, jf)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else {
		if hasFirst {
			fmt.Fprintf(w, "first record Kafka's replay rejects: %s\n", first)
		}
		var n [3]int
		for _, f := range fs {
			n[f.Severity]++
			if hasFirst && f.Rule == history.RuleRejected && f.At == first.At {
				continue
			}
			fmt.Fprintln(w, f)
		}
		fmt.Fprintf(w, "checked %d records in %d batches (%s): %d errors, %d warnings, %d notes\n", h.Records, h.Batches, filesOf(h), n[history.Error], n[history.Warning], n[history.Info])
	}
	if err != nil {
		fmt.Fprintln(stderr, "metadump:", err)
		return 1
	}
	if h.Failed() {
		return 1
	}
	return 0
}

func filesOf(h *history.History) string {
	switch len(h.Files) {
	case 0:
		return "no files"
	case 1:
		return h.Files[0]
	}
	return fmt.Sprintf("%s .. %s, %d files", h.Files[0], h.Files[len(h.Files)-1], len(h.Files))
}
