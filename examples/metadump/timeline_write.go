package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher/history"
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
// often it was fenced (history.BrokerHistory.Fencings) or shut down, and
// its last ten fenced or shutdown spans.
func writeBrokersText(b *bytes.Buffer, t *timeline) {
	fmt.Fprintf(b, "\nbrokers: %d\n", len(t.tl.Brokers))
	for _, l := range t.tl.Brokers {
		state := "not registered"
		if n := len(l.Spans); n > 0 && l.Spans[n-1].To == t.End {
			state = laneNames[laneState(l.Spans[n-1].State)]
		}
		fmt.Fprintf(b, "  broker %-5d now %-14s fenced %d time(s) for %s, controlled shutdowns %d\n",
			l.ID, state, l.Fencings, time.Duration(l.FencedMs)*time.Millisecond, l.Shutdowns)
		var notable []history.LaneSpan
		for _, s := range l.Spans {
			if s.State != history.StateUnfenced {
				notable = append(notable, s)
			}
		}
		if len(notable) > 10 {
			fmt.Fprintf(b, "    ... %d earlier\n", len(notable)-10)
			notable = notable[len(notable)-10:]
		}
		for _, s := range notable {
			fmt.Fprintf(b, "    %-13s %s .. %s\n", laneNames[laneState(s.State)], fmtMs(s.From), fmtMs(s.To))
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
// text summary to stdout. On a log it cannot read to its end it prints (or
// writes) what it read, then returns the error naming what it could not
// read.
func runTimeline(path, out string, unredacted bool, stdout io.Writer) error {
	t, err := buildTimeline(path, unredacted)
	if t == nil {
		return err
	}
	if out == "" {
		if werr := writeTimelineText(stdout, t); werr != nil {
			return werr
		}
	} else {
		var buf bytes.Buffer
		if werr := writeTimelineHTML(&buf, t); werr != nil {
			return werr
		}
		if werr := writeFileAtomic(out, buf.Bytes()); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("the timeline ends at offset %d: %w", t.LastOffset, err)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half a report.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".metadump-*")
	if err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
