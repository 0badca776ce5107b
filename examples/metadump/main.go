// Command metadump prints Kafka KRaft metadata files: the Go counterpart of
// kafka-dump-log --cluster-metadata-decoder and the reading side of
// kafka-metadata-shell.
//
//	go run ./examples/metadump [flags] PATH
//
// PATH is a log segment (<offset>.log), a snapshot
// (<offset>-<epoch>.checkpoint), a bootstrap.checkpoint, a
// __cluster_metadata-0 directory (read as a broker loads it at start-up: the
// latest snapshot, then the segments after it), or a metadata log directory
// holding __cluster_metadata-0.
//
// By default it prints one line per data record in log order, in the JSON
// envelope Kafka's tools print:
//
//	{"type":"PARTITION_RECORD","version":1,"data":{...}}
//
// Flags:
//
//	-control      print control records too, in the same envelope
//	-batches      print one line per batch instead of records
//	-summary      print counts per record type and version instead
//	-unredacted   print sensitive values (hidden by default, see below)
//	-image        print the final image as JSON in kmeta's own shape: features,
//	              brokers, controllers, topics with partitions, configs,
//	              quotas, ACLs, SCRAM users, tokens, provenance
//	-image-records print the records of the final image as the writer path
//	              produces them (what a snapshot of it holds), one envelope
//	              line each; compare as a multiset, the order is kmeta's
//	-skip-errors  with -image: exit 0 although records were skipped
//
// The final image is built through kmeta's loader, as a broker builds it: a
// directory from its latest snapshot and the log after it, a segment from its
// commits, a snapshot or bootstrap file from its records. -image-records
// prints a faithful record dump (secrets as Kafka's converters print them);
// -image redacts as the record lines do.
//
// Sensitive values print as "[redacted]", as Kafka's metadata image printers
// hide them with MetadataNodeRedactionCriteria.Normal: the values of configs
// that Kafka types as PASSWORD or does not know (image/redact holds Kafka's
// config schema), SCRAM salt, stored key and server key, and the owner,
// requester and renewers of delegation tokens. A hidden value keeps its JSON
// type (a list of renewers stays a list), and numbers are printed: a SCRAM
// credential's iterations as Kafka's RecordRedactor prints them.
//
// What happened to the cluster (package history):
//
//	-at OFFSET|TIME  time travel: with -image or -image-records the image as
//	                 of that offset or RFC 3339 append time, else the records
//	                 up to it (see at.go)
//	-diff A B        what differs between the images of two sources, entity
//	                 by entity; SOURCE@OFFSET|TIME is a point of a directory;
//	                 exit 0 same, 1 different, 2 trouble (see diff.go)
//	-check           replay with Kafka's rules: the first record Kafka's
//	                 replay rejects, then broken invariants (see check.go)
//	-json            JSON output for -diff and -check
//	-timeline        what happened over the log, as text: raft epochs,
//	                 brokers' fenced and shutting-down spans, the partitions
//	                 that moved most (see timeline.go)
//	-timeline -o F   the same as one self-contained HTML report in F: a
//	                 zoomable time axis with broker lanes, raft epochs,
//	                 leader-change and ISR-shrink density, partitions without
//	                 a leader, the image diff of each moment, and a searchable
//	                 leadership table (timeline.html)
//	-shell           kafka-metadata-shell over the image: ls, cd, cat, tree,
//	                 find, pwd, history, at OFFSET|TIME, diff, exit, with tab
//	                 completion on a terminal (see shell.go)
//	-shell -c CMDS   run the commands (separated by ';') and exit
//
// On damaged input everything before the damage is printed, then metadump
// exits with status 1 and an error naming the file, the byte position and the
// offset of the first bad batch; every mode reads the same way (a batch cut
// short at the end of the last segment is damage too): -check counts it as
// an "unreadable" error finding, -timeline prints (or writes) what it read
// and says where it ends, -shell, -at and -diff stop with the error.
//
// A segment that starts above offset 0 (its first batch's base offset) holds
// changes to brokers, topics and partitions made before it. Given alone to a
// mode that replays it (-image, -image-records, -check, -timeline, -shell,
// -at, -diff), metadump prints one line, "PATH starts at offset N: replay
// needs the snapshot or segments before it", and exits with status 3. When
// the files before it are beside it (the earlier segments from offset 0, or
// a snapshot they continue), it is replayed from them and -check reports
// the findings from its own first offset on. The record dump, -batches and
// -summary print a segment as it is, wherever it starts.
//
// Every string from the log is escaped before it reaches a terminal: the
// text modes (-check, -diff, -timeline, -shell, -batches, -summary and the
// error messages) print control characters as \xNN (\u00NN for C1), so a
// topic name holding an escape sequence cannot drive the terminal. JSON
// output (-json, -image, the record dump) is JSON's own escaping, unchanged.
//
// Files of Kafka 3.2 to 4.4 are read. A record written by a newer Kafka — a
// metadata.version level kmeta does not know, a record version or apiKey it
// does not know — makes every mode that builds an image (-image,
// -image-records, a directory's image) exit with status 1 and an error naming
// the file, the record's offset and type and the level or version met. The
// record dump still prints a record of an unknown metadata.version level as
// it is; a record of an unknown version or apiKey cannot be decoded, so the
// dump stops there with the same error.
//
// With -image, a record that Kafka's replay rejects (the loader skips it, as
// a broker does) and a batch cut short at the end of the log (left out, as
// Kafka's log recovery truncates it) are each printed to stderr with file,
// byte position, offset and reason after the image, and metadump exits with
// status 1 unless -skip-errors is given.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	control, batches, summary, unredacted bool
	image, imageRecords                   bool
	skipErrors                            bool
	stderr                                io.Writer
	timeline, shell                       bool
	out, commands                         string
	at                                    string // -at (at.go)
	diff, check, json                     bool   // -diff (diff.go), -check (check.go)
}

func run(args []string, stdout, stderr io.Writer) int {
	return runIO(args, os.Stdin, stdout, stderr)
}

// runIO is run with -shell's commands read from stdin (without -c).
func runIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Text for a terminal is escaped (termsafe.go); JSON is written as it is.
	safeErr, text := &termSafe{w: stderr}, &termSafe{w: stdout}
	defer text.Flush()
	defer safeErr.Flush()
	stderr = safeErr
	var o options
	fs := flags(&o, stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	at, err := parseAt(o.at)
	if err != nil {
		fmt.Fprintln(stderr, "metadump:", err)
		return 2
	}
	if o.diff {
		if fs.NArg() != 2 {
			fs.Usage()
			return 2
		}
		w := bufio.NewWriter(textOr(o.json, stdout, text))
		defer w.Flush()
		return runDiff(fs.Arg(0), fs.Arg(1), at, o, w, stderr)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if o.shell || o.timeline {
		var err error
		if o.shell {
			err = runShell(fs.Arg(0), o.commands, o.unredacted, stdin, stdout)
		} else {
			err = runTimeline(fs.Arg(0), o.out, o.unredacted, text)
		}
		if err != nil {
			return fail(stderr, err, 1)
		}
		return 0
	}
	w := bufio.NewWriter(textOr(!o.batches && !o.summary, stdout, text))
	if o.check {
		w = bufio.NewWriter(textOr(o.json, stdout, text))
		defer w.Flush()
		return runCheck(fs.Arg(0), o, w, stderr)
	}
	switch {
	case at != nil && (o.image || o.imageRecords):
		err = dumpImageAt(fs.Arg(0), *at, o, w)
	case at != nil:
		err = dumpAt(fs.Arg(0), *at, o, w)
	case o.image || o.imageRecords:
		err = dumpImage(fs.Arg(0), o, w)
	default:
		err = dump(fs.Arg(0), o, w)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fail(stderr, err, 1)
	}
	return 0
}

// textOr returns raw (JSON output, written as it is) when json is set,
// else text (escaped for a terminal).
func textOr(json bool, raw, text io.Writer) io.Writer {
	if json {
		return raw
	}
	return text
}

// exitMidLog is the exit status of a segment that starts above offset 0
// given without the files before it, in a mode that replays it.
const exitMidLog = 3

// fail prints err and returns the exit status: exitMidLog for a
// *history.StartError, else code.
func fail(stderr io.Writer, err error, code int) int {
	fmt.Fprintln(stderr, "metadump:", err)
	var se *history.StartError
	if errors.As(err, &se) {
		return exitMidLog
	}
	return code
}

// flags is metadump's flag set, filling o.
func flags(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("metadump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.control, "control", false, "print control records too")
	fs.BoolVar(&o.batches, "batches", false, "print one line per batch instead of records")
	fs.BoolVar(&o.summary, "summary", false, "print counts per record type and version, batches, first and last offset")
	fs.BoolVar(&o.unredacted, "unredacted", false, "print sensitive values instead of [redacted]")
	fs.BoolVar(&o.image, "image", false, "print the final image as JSON (kmeta's own shape)")
	fs.BoolVar(&o.imageRecords, "image-records", false, "print the records of the final image as the writer path produces them")
	fs.BoolVar(&o.skipErrors, "skip-errors", false, "with -image: exit 0 even when records were skipped or a cut-short tail left out (each is still printed to stderr)")
	o.stderr = stderr
	fs.BoolVar(&o.timeline, "timeline", false, "print what happened over the log: brokers, leaders, ISRs, raft epochs (with -o FILE.html: an HTML report)")
	fs.StringVar(&o.out, "o", "", "with -timeline: write the HTML report to this file")
	fs.BoolVar(&o.shell, "shell", false, "browse the image as kafka-metadata-shell does (ls, cd, cat, tree, find, at, diff, ...)")
	fs.StringVar(&o.commands, "c", "", "with -shell: run these commands (separated by ';') and exit")
	fs.StringVar(&o.at, "at", "", "time travel: the image or records as of this `OFFSET|RFC3339-TIME`")
	fs.BoolVar(&o.diff, "diff", false, "print what differs between two sources: metadump -diff A B (SOURCE@OFFSET|TIME for one point of a directory)")
	fs.BoolVar(&o.check, "check", false, "replay with Kafka's rules and report rejected records and broken invariants")
	fs.BoolVar(&o.json, "json", false, "with -diff or -check: print JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: metadump [flags] PATH  (a .log segment, a .checkpoint snapshot, bootstrap.checkpoint, or a metadata directory)")
		fs.PrintDefaults()
	}
	return fs
}

// source yields the batches of whatever PATH names.
type source interface {
	Next() (*metalog.Batch, error)
	Close() error
}

func open(path string) (source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		sub := filepath.Join(path, metalog.MetadataPartitionDir)
		if st2, err := os.Stat(sub); err == nil && st2.IsDir() {
			path = sub
		}
		d, err := metalog.OpenDir(metalog.OS{}, path, metalog.Finished)
		if err != nil {
			return nil, err
		}
		return &dirSource{d: d}, nil
	}
	name := filepath.Base(path)
	switch {
	case name == metalog.BootstrapFileName:
		return metalog.OpenBootstrap(metalog.OS{}, path)
	case strings.HasSuffix(name, metalog.SnapshotSuffix):
		return metalog.OpenSnapshot(metalog.OS{}, path)
	case strings.HasSuffix(name, ".log"):
		return metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	}
	return nil, fmt.Errorf("%s: not a segment (.log), snapshot (.checkpoint), bootstrap.checkpoint or directory", path)
}

// dirSource yields a directory's snapshot batches, then its log batches
// after the snapshot.
type dirSource struct {
	d        *metalog.DirReader
	snapDone bool
}

func (s *dirSource) Next() (*metalog.Batch, error) {
	if snap := s.d.Snapshot(); snap != nil && !s.snapDone {
		b, err := snap.Next()
		if !errors.Is(err, io.EOF) {
			return b, err
		}
		s.snapDone = true
	}
	return s.d.Next()
}

func (s *dirSource) Close() error { return s.d.Close() }

func dump(path string, o options, w *bufio.Writer) error {
	src, err := open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	crit := redact.Normal(nil)
	if o.unredacted {
		crit = redact.Disabled
	}
	var sum summary
	var line []byte
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if o.summary {
				sum.print(w)
			}
			return err
		}
		switch {
		case o.summary:
			if err := sum.add(b); err != nil {
				sum.print(w)
				return fmt.Errorf("%s: %w", path, err)
			}
		case o.batches:
			line = appendBatchLine(line[:0], b)
			w.Write(line)
		default:
			if line, err = appendRecordLines(line[:0], b, o.control, crit); err != nil {
				w.Write(line)
				return fmt.Errorf("%s: %w", path, err)
			}
			w.Write(line)
		}
	}
	if o.summary {
		sum.print(w)
	}
	return nil
}

// appendBatchLine prints one batch the way kafka-dump-log prints batch
// headers.
func appendBatchLine(b []byte, batch *metalog.Batch) []byte {
	kind := "data"
	if batch.IsControl() {
		kind = "control"
	}
	return fmt.Appendf(b, "baseOffset: %d lastOffset: %d count: %d partitionLeaderEpoch: %d maxTimestamp: %d %s: true isTransactional: %t position: %d size: %d crc: %d isvalid: true\n",
		batch.BaseOffset, batch.LastOffset(), len(batch.Entries), batch.PartitionLeaderEpoch, batch.MaxTimestamp,
		kind, batch.IsTransactional(), batch.Position, batch.Size(), batch.CRC)
}

func appendRecordLines(b []byte, batch *metalog.Batch, control bool, crit redact.Criteria) ([]byte, error) {
	if batch.IsControl() {
		if !control {
			return b, nil
		}
		for _, e := range batch.Entries {
			r, err := e.DecodeControl()
			if err != nil {
				return b, fmt.Errorf("control record at offset %d: %w", e.Offset, err)
			}
			if b, err = record.AppendControlEnvelopeJSON(b, r, 0); err != nil {
				return b, err
			}
			b = append(b, '\n')
		}
		return b, nil
	}
	for _, e := range batch.Entries {
		r, v, err := e.Decode()
		if err != nil {
			return b, fmt.Errorf("record at offset %d: %w", e.Offset, err)
		}
		start := len(b)
		if b, err = record.AppendEnvelopeJSON(b, r, v); err != nil {
			return b, err
		}
		if fields := sensitiveFields(r, crit); len(fields) > 0 {
			red, err := redactEnvelope(b[start:], fields)
			if err != nil {
				return b[:start], err
			}
			b = append(b[:start], red...)
		}
		b = append(b, '\n')
	}
	return b, nil
}

// summary counts what a dump holds.
type summary struct {
	batches, controlBatches int
	first, last             int64
	seen                    bool
	records                 map[string]int
	control                 map[string]int
}

func (s *summary) add(b *metalog.Batch) error {
	if s.records == nil {
		s.records, s.control = map[string]int{}, map[string]int{}
	}
	if !s.seen {
		s.first, s.seen = b.BaseOffset, true
	}
	s.last = b.LastOffset()
	s.batches++
	if b.IsControl() {
		s.controlBatches++
		for _, e := range b.Entries {
			t, err := e.ControlType()
			if err != nil {
				return fmt.Errorf("control record at offset %d: %w", e.Offset, err)
			}
			s.control[t.String()]++
		}
		return nil
	}
	for _, e := range b.Entries {
		h, _, err := record.ReadFrameHeader(e.Value)
		if err != nil {
			return fmt.Errorf("record at offset %d: %w", e.Offset, err)
		}
		s.records[fmt.Sprintf("%s v%d", h.Type, h.Version)]++
	}
	return nil
}

func (s *summary) print(w io.Writer) {
	if !s.seen {
		fmt.Fprintln(w, "no batches")
		return
	}
	data, ctl := 0, 0
	for _, n := range s.records {
		data += n
	}
	for _, n := range s.control {
		ctl += n
	}
	fmt.Fprintf(w, "offsets %d..%d\n", s.first, s.last)
	fmt.Fprintf(w, "batches %d (control %d, data %d)\n", s.batches, s.controlBatches, s.batches-s.controlBatches)
	fmt.Fprintf(w, "records %d (control %d, data %d)\n", data+ctl, ctl, data)
	for _, m := range []map[string]int{s.records, s.control} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %-44s %d\n", k, m[k])
		}
	}
}
