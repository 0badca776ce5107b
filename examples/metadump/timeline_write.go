package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/image"
)

// What -timeline writes: the text summary for terminals and the HTML report.

// writeTimelineHTML writes the report: the page of timeline.html with the
// timeline as JSON in it. encoding/json escapes <, > and &, so the data
// cannot end the script element that holds it.
func writeTimelineHTML(w io.Writer, t *timeline) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	const marker = "/*TIMELINE_DATA*/null"
	i := strings.Index(timelineHTML, marker)
	if i < 0 {
		return errors.New("timeline.html has no data marker")
	}
	if _, err := io.WriteString(w, timelineHTML[:i]); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	_, err = io.WriteString(w, timelineHTML[i+len(marker):])
	return err
}

func fmtMs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

var laneNames = [...]string{"registered", "fenced", "shutting down"}

// writeTimelineText prints the summary for terminals: the log's range, its
// raft leader epochs, its brokers, its partitions and its moments.
func writeTimelineText(w io.Writer, t *timeline) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", t.Source)
	fmt.Fprintf(&b, "offsets %d..%d, %d batches, %d records\n", t.FirstOffset, t.LastOffset, t.Batches, t.Records)
	fmt.Fprintf(&b, "time    %s .. %s (%s)\n", fmtMs(t.Start), fmtMs(t.End), time.Duration(t.End-t.Start)*time.Millisecond)
	writeRaftText(&b, t)
	writeBrokersText(&b, t)
	writePartitionsText(&b, t)
	fmt.Fprintf(&b, "\nmoments with changes: %d (the HTML report, -o FILE.html, shows the diff of each)\n", len(t.Moments))
	_, err := w.Write(b.Bytes())
	return err
}

// writeRaftText prints the raft leader epochs: the first eight and the last
// when there are more than ten.
func writeRaftText(b *bytes.Buffer, t *timeline) {
	fmt.Fprintf(b, "\nraft leader epochs: %d\n", len(t.Raft))
	for i, r := range t.Raft {
		if i == 8 && len(t.Raft) > 10 {
			fmt.Fprintf(b, "  ... %d more\n", len(t.Raft)-9)
			r = t.Raft[len(t.Raft)-1]
		} else if i > 8 && len(t.Raft) > 10 {
			continue
		}
		leader := "leader unknown"
		if r.Leader >= 0 {
			leader = fmt.Sprintf("leader %d", r.Leader)
		}
		fmt.Fprintf(b, "  epoch %-4d from %s  offset %-8d %s\n", r.Epoch, fmtMs(r.Start), r.Offset, leader)
	}
}

// writeBrokersText prints each broker's lane: its state at the end, how
// often it was fenced or shut down, and its last ten fenced or shutdown
// segments.
func writeBrokersText(b *bytes.Buffer, t *timeline) {
	fmt.Fprintf(b, "\nbrokers: %d\n", len(t.Brokers))
	for _, l := range t.Brokers {
		var fenced, shut int
		var fencedMs int64
		for _, s := range l.Segs {
			switch s[2] {
			case laneFenced:
				fenced++
				fencedMs += s[1] - s[0]
			case laneShutdown:
				shut++
			}
		}
		state := "not registered"
		if n := len(l.Segs); n > 0 && l.Segs[n-1][1] == t.End {
			state = laneNames[l.Segs[n-1][2]]
		}
		fmt.Fprintf(b, "  broker %-5d now %-14s fenced %d time(s) for %s, controlled shutdowns %d\n",
			l.ID, state, fenced, time.Duration(fencedMs)*time.Millisecond, shut)
		var notable [][3]int64
		for _, s := range l.Segs {
			if s[2] != laneRegistered {
				notable = append(notable, s)
			}
		}
		if len(notable) > 10 {
			fmt.Fprintf(b, "    ... %d earlier\n", len(notable)-10)
			notable = notable[len(notable)-10:]
		}
		for _, s := range notable {
			fmt.Fprintf(b, "    %-13s %s .. %s\n", laneNames[s[2]], fmtMs(s[0]), fmtMs(s[1]))
		}
	}
}

// writePartitionsText prints the partition totals, the ten partitions with
// the most leader changes and the peak of partitions without a leader.
func writePartitionsText(b *bytes.Buffer, t *timeline) {
	fmt.Fprintf(b, "\npartitions: %d, leader changes %d, ISR shrinks %d, without a leader now %d\n",
		len(t.Partitions), t.Totals["leaderChanges"], t.Totals["isrShrinks"], t.Totals["offlineNow"])
	rows := slices.Clone(t.Partitions)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Changes > rows[j].Changes })
	if len(rows) > 10 {
		rows = rows[:10]
	}
	if len(rows) > 0 && rows[0].Changes > 0 {
		fmt.Fprintf(b, "  most leader changes:\n")
		for _, r := range rows {
			if r.Changes == 0 {
				break
			}
			fmt.Fprintf(b, "    %s-%d  %d changes, %d ISR shrinks, leaderless %s, leaders %s\n", r.Topic, r.Partition, r.Changes, r.Shrinks,
				time.Duration(r.OfflineMs)*time.Millisecond, joinIDs(r.Leaders, " -> "))
		}
	}
	peak, at := 0, 0
	for i, n := range t.Offline {
		if n > peak {
			peak, at = n, i
		}
	}
	if peak > 0 {
		fmt.Fprintf(b, "  most partitions without a leader: %d, around %s\n", peak, fmtMs(t.Start+int64(float64(at)*t.BucketMs)))
	}
}

func joinIDs(ids []int32, sep string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		if id == image.NoLeader {
			s[i] = "none"
		} else {
			s[i] = fmt.Sprint(id)
		}
	}
	return strings.Join(s, sep)
}

// runTimeline is -timeline: the HTML report to out when it is set, else the
// text summary to stdout.
func runTimeline(path, out string, stdout io.Writer) error {
	t, err := buildTimeline(path)
	if err != nil {
		return err
	}
	if out == "" {
		return writeTimelineText(stdout, t)
	}
	var buf bytes.Buffer
	if err := writeTimelineHTML(&buf, t); err != nil {
		return err
	}
	return writeFileAtomic(out, buf.Bytes())
}
