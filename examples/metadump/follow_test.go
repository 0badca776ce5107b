package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest/kafkalog"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// copyDir copies the regular files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// topicRecordInLog finds, in a corpus directory, the first TopicRecord in
// the log after the latest snapshot that PartitionRecords follow: its
// segment, the byte position of its batch and its offset.
func topicRecordInLog(t *testing.T, dir string) (seg string, pos, offset int64, ok bool) {
	d, err := metalog.OpenDir(metalog.OS{}, dir, metalog.Finished)
	if err != nil {
		return "", 0, 0, false
	}
	defer d.Close()
	var found record.UUID
	for {
		b, err := d.Next()
		if err != nil {
			return "", 0, 0, false
		}
		if b.IsControl() {
			continue
		}
		recs, err := b.DecodeRecords()
		if err != nil {
			return "", 0, 0, false
		}
		for _, r := range recs {
			switch r := r.Record.(type) {
			case *record.TopicRecord:
				if seg == "" {
					f, _, _ := d.Position()
					seg, pos, offset, found = f, b.Position, r0(recs, r), r.TopicID
				}
			case *record.PartitionRecord:
				if seg != "" && r.TopicID == found {
					return seg, pos, offset, true
				}
			}
		}
	}
}

func r0(recs []metalog.DecodedRecord, tr *record.TopicRecord) int64 {
	for _, r := range recs {
		if r.Record == record.Record(tr) {
			return r.Offset
		}
	}
	return -1
}

// changeTopicID rewrites, in place, the batch at pos of seg with the
// TopicRecord at offset given another topic id (same size, CRC recomputed).
func changeTopicID(t *testing.T, seg string, pos, offset int64) {
	t.Helper()
	f, err := os.OpenFile(seg, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(pos, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	br := metalog.NewBatchReader(f, seg, metalog.Finished)
	b, err := br.Next()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := b.DecodeRecords()
	if err != nil {
		t.Fatal(err)
	}
	nb := metalog.NewBatchBuilder(b.BaseOffset, b.PartitionLeaderEpoch, b.AppendTime())
	for _, r := range recs {
		if tr, ok := r.Record.(*record.TopicRecord); ok && r.Offset == offset {
			tr.TopicID[0] ^= 0xff
		}
		if err := nb.AppendRecord(r.Record, r.Version); err != nil {
			t.Fatal(err)
		}
	}
	data, err := nb.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != b.Size() {
		t.Skipf("re-encoded batch is %d bytes, was %d", len(data), b.Size())
	}
	if _, err := f.WriteAt(data, pos); err != nil {
		t.Fatal(err)
	}
}

// TestImageChangedTopicIDExitsNonZero: in a real Kafka log, one
// TopicRecord is given another topic id, so the PartitionRecords that
// follow name a topic the image does not have and Kafka's replay
// (TopicsDelta.replay(PartitionRecord)) rejects them. `metadump -image DIR`
// prints the image, names each skipped record with its file, byte position,
// offset and reason on stderr, and exits 1; with -skip-errors it exits 0.
func TestImageChangedTopicIDExitsNonZero(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	var dirs []string
	filepath.WalkDir(corpus, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() && e.Name() == metalog.MetadataPartitionDir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, src := range dirs {
		seg, pos, off, ok := topicRecordInLog(t, src)
		if !ok {
			continue
		}
		dir := copyDir(t, src)
		seg = filepath.Join(dir, filepath.Base(seg))
		changeTopicID(t, seg, pos, off)
		var out, errb bytes.Buffer
		if code := run([]string{"-image", dir}, &out, &errb); code != 1 {
			t.Fatalf("%s: exit %d, want 1; stderr %q", src, code, errb.String())
		}
		if !strings.Contains(out.String(), `"provenance"`) && out.Len() == 0 {
			t.Errorf("no image printed")
		}
		msg := errb.String()
		if !strings.Contains(msg, filepath.Base(seg)) || !strings.Contains(msg, "PARTITION_RECORD") || !strings.Contains(msg, "left out") {
			t.Errorf("stderr does not name the file and the skipped records: %q", msg)
		}
		errb.Reset()
		if code := run([]string{"-image", "-skip-errors", dir}, io.Discard, &errb); code != 0 || !strings.Contains(errb.String(), "PARTITION_RECORD") {
			t.Errorf("-skip-errors: exit %d, stderr %q", code, errb.String())
		}
		return
	}
	t.Skip("no corpus directory has a TopicRecord followed by its PartitionRecords after its latest snapshot")
}

// TestImageDamagedLengthOneAnswer: a batch length that claims more than
// the file holds is reported as "batch cut short" by -summary, by -image on
// the file and by -image on the directory alike, each exiting 1.
func TestImageDamagedLengthOneAnswer(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	var src string
	filepath.WalkDir(corpus, func(p string, e fs.DirEntry, err error) error {
		if src == "" && err == nil && e.IsDir() && e.Name() == metalog.MetadataPartitionDir {
			if _, pos, _, ok := topicRecordInLog(t, p); ok && pos > 0 {
				src = p
			}
		}
		return nil
	})
	if src == "" {
		t.Skip("no suitable corpus directory")
	}
	dir := copyDir(t, src)
	segPath, pos, _, _ := topicRecordInLog(t, dir)
	f, err := os.OpenFile(segPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	// The batch length field (bytes 8..11) claims the rest of the file
	// and one byte more.
	claim := st.Size() - pos - 12 + 1
	if claim > 8<<20 {
		claim = 8<<20 - 100
	}
	var l [4]byte
	l[0], l[1], l[2], l[3] = byte(claim>>24), byte(claim>>16), byte(claim>>8), byte(claim)
	if _, err := f.WriteAt(l[:], pos+8); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Only the newest segment may end in a cut-short batch; make the
	// damaged segment the newest.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if b, err := metalog.ParseSegmentName(e.Name()); err == nil && filepath.Join(dir, e.Name()) != segPath {
			if base, _ := metalog.ParseSegmentName(filepath.Base(segPath)); b > base {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, args := range [][]string{{"-summary", segPath}, {"-image", segPath}, {"-image", dir}} {
		var errb bytes.Buffer
		code := run(args, io.Discard, &errb)
		if code != 1 || !strings.Contains(errb.String(), "batch cut short") || !strings.Contains(errb.String(), filepath.Base(segPath)) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestImageEveryDirectoryState: `metadump -image DIR` answers promptly on
// every state a live node's directory passes through (delta/deltatest/kafkalog
// writes them as Kafka's log layer does): it prints an image, exits 0, and
// exits 1 only where a batch is cut short at the end, which it names.
func TestImageEveryDirectoryState(t *testing.T) {
	states, err := kafkalog.BuildStates(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		t.Run(s.Name, func(t *testing.T) {
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run([]string{"-image", s.Dir}, &out, &errb) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("metadump -image did not return")
			}
			want := 0
			if s.Tail {
				want = 1
				if !strings.Contains(errb.String(), "cut short") || !strings.Contains(errb.String(), "bytes left out") {
					t.Errorf("stderr %q does not report the cut-short tail", errb.String())
				}
			}
			if code != want {
				t.Fatalf("exit %d, want %d; stderr %q", code, want, errb.String())
			}
			var img struct {
				Topics []json.RawMessage `json:"topics"`
			}
			if err := json.Unmarshal(out.Bytes(), &img); err != nil {
				t.Fatalf("output is not an image: %v: %.200s", err, out.String())
			}
			if s.Records != (len(img.Topics) > 0) {
				t.Errorf("%d topics, want records %v", len(img.Topics), s.Records)
			}
		})
	}
}
