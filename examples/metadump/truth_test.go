package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// sweepSegments returns up to n small real segments of the corpus that
// start at offset 0, by size (so the sweep stays within a few seconds).
func sweepSegments(t *testing.T, n int) []string {
	t.Helper()
	var segs []string
	for _, f := range sharedtest.CorpusFolders(t) {
		filepath.Walk(f.Root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && filepath.Base(p) == metalog.SegmentName(0) && info.Size() > 4<<10 && info.Size() < 64<<10 {
				segs = append(segs, p)
			}
			return nil
		})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i] < segs[j] })
	if len(segs) == 0 {
		t.Skip("no small segment from offset 0 in the corpus")
	}
	return segs[:min(n, len(segs))]
}

// batchesOf reads the batches of a healthy segment.
func batchesOf(t *testing.T, path string) []*metalog.Batch {
	t.Helper()
	seg, err := metalog.OpenSegment(metalog.OS{}, path, metalog.Finished)
	require.NoError(t, err)
	defer seg.Close()
	var out []*metalog.Batch
	for {
		b, err := seg.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		c := *b
		c.Entries = nil
		out = append(out, &c)
	}
}

// damage is one damaged copy of a segment: a name and the bytes.
type damage struct {
	name string
	data []byte
}

// damagedCopies are the sweep's copies of data for a few batches spread
// over it: cut inside the batch header (in its length, after it), cut
// inside the batch (one byte in, in the middle, one byte short), and a bit
// flipped in the batch length (low: a length off by one; high: a length
// past the end of the file).
func damagedCopies(data []byte, bs []*metalog.Batch) []damage {
	var out []damage
	picks := map[int]bool{0: true, len(bs) / 3: true, len(bs) / 2: true, len(bs) - 2: true, len(bs) - 1: true}
	for i, b := range bs {
		if !picks[i] || i < 0 {
			continue
		}
		pos, size := int(b.Position), b.Size()
		for _, cut := range []struct {
			what string
			at   int
		}{{"in the length", pos + 10}, {"in the header", pos + 40}, {"one byte into the body", pos + 62}, {"in the middle", pos + size/2}, {"one byte short", pos + size - 1}} {
			if cut.at > pos && cut.at < pos+size {
				out = append(out, damage{fmt.Sprintf("batch %d cut %s", i, cut.what), data[:cut.at]})
			}
		}
		for _, flip := range []struct {
			what      string
			byte, bit int
		}{{"low", 11, 0}, {"high", 9, 6}} {
			c := append([]byte(nil), data...)
			c[pos+flip.byte] ^= 1 << flip.bit
			out = append(out, damage{fmt.Sprintf("batch %d length bit flip %s", i, flip.what), c})
		}
	}
	return out
}

// readingModes are the metadump modes that read a whole segment, each as
// the arguments before the path (-diff takes the path twice; -at is the
// last offset of the healthy file, so that it reads to the end).
func readingModes(last int64) [][]string {
	return [][]string{{}, {"-batches"}, {"-summary"}, {"-image"}, {"-image-records"}, {"-check"}, {"-check", "-json"},
		{"-timeline"}, {"-shell", "-c", "ls /image"}, {"-at", strconv.FormatInt(last, 10)},
		{"-at", strconv.FormatInt(last, 10), "-image"}, {"-diff", "-json"}}
}

// TestDamagedCopySweep: for real segments of the corpus, every damaged copy
// (cut inside a batch header or body, a bit flipped in a batch length) gives
// the same loud error in every mode that reads it: a non-zero exit and, on
// stderr, the record reader's error the dump prints (file, byte position,
// offset). No mode exits 0 on a file another mode calls damaged; -check
// counts the damage as an error and -timeline says where it ends.
func TestDamagedCopySweep(t *testing.T) {
	for _, seg := range sweepSegments(t, 5) {
		data, err := os.ReadFile(seg)
		require.NoError(t, err)
		bs := batchesOf(t, seg)
		require.NotEmpty(t, bs)
		last := bs[len(bs)-1].LastOffset()
		copies := damagedCopies(data, bs)
		t.Logf("%s: %d batches, %d damaged copies", seg, len(bs), len(copies))
		for _, d := range copies {
			path := filepath.Join(t.TempDir(), metalog.SegmentName(0))
			require.NoError(t, os.WriteFile(path, d.data, 0o644))
			_, dumpErr, code := runDump(t, path)
			require.Equal(t, 1, code, "%s: %s: the dump calls it damaged", seg, d.name)
			want := strings.TrimPrefix(lines(dumpErr)[0], "metadump: ")
			require.Contains(t, want, "at byte", "%s: %s", seg, d.name)
			for _, m := range readingModes(last) {
				args := append(append([]string(nil), m...), path)
				if len(m) > 0 && m[0] == "-diff" {
					args = append(args, path)
				}
				out, errs, code := runDump(t, args...)
				assert.NotEqual(t, 0, code, "%s: %s: metadump %v exits 0", seg, d.name, m)
				assert.Contains(t, errs, want, "%s: %s: metadump %v", seg, d.name, m)
				switch strings.Join(m, " ") {
				case "-check":
					assert.NotContains(t, out, " 0 errors,", "%s: %s: -check's summary counts the damage", seg, d.name)
				case "-check -json":
					assert.Contains(t, out, `"rule": "unreadable"`, "%s: %s", seg, d.name)
				case "-timeline":
					assert.Contains(t, errs, "the timeline ends at offset", "%s: %s", seg, d.name)
				}
			}
		}
	}
}

// splitAtBatches writes the batches of a healthy segment as parts segments
// in dir, each named by its first batch's base offset, and returns their
// paths.
func splitAtBatches(t *testing.T, seg, dir string, parts int) []string {
	t.Helper()
	data, err := os.ReadFile(seg)
	require.NoError(t, err)
	bs := batchesOf(t, seg)
	require.GreaterOrEqual(t, len(bs), parts)
	var out []string
	for k := range parts {
		from, to := k*len(bs)/parts, (k+1)*len(bs)/parts
		start := bs[from].Position
		end := int64(len(data))
		if to < len(bs) {
			end = bs[to].Position
		}
		p := filepath.Join(dir, metalog.SegmentName(bs[from].BaseOffset))
		require.NoError(t, os.WriteFile(p, data[start:end], 0o644))
		out = append(out, p)
	}
	return out
}

// TestMidLogSegments: a real log split at batch boundaries: each later
// segment alone gives the one-line "starts at offset N" report and exit
// status 3 in every mode that replays it (the dump prints it as it is);
// beside its earlier files it checks clean.
func TestMidLogSegments(t *testing.T) {
	for _, seg := range sweepSegments(t, 2) {
		dir := filepath.Join(t.TempDir(), metalog.MetadataPartitionDir)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		parts := splitAtBatches(t, seg, dir, 3)
		for _, p := range parts[1:] {
			base, err := metalog.ParseSegmentName(filepath.Base(p))
			require.NoError(t, err)
			alone := filepath.Join(t.TempDir(), filepath.Base(p))
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(alone, data, 0o644))
			want := fmt.Sprintf("metadump: %s starts at offset %d: replay needs the snapshot or segments before it\n", alone, base)
			for _, m := range [][]string{{"-check"}, {"-check", "-json"}, {"-timeline"}, {"-shell", "-c", "ls"}, {"-image"}, {"-image-records"},
				{"-at", strconv.FormatInt(base, 10)}, {"-at", strconv.FormatInt(base, 10), "-image"}, {"-diff", alone}} {
				out, errs, code := runDump(t, append(m, alone)...)
				assert.Equal(t, exitMidLog, code, "%s alone: metadump %v", p, m)
				assert.Equal(t, want, errs, "%s alone: metadump %v: one line", p, m)
				assert.Empty(t, out, "%s alone: metadump %v", p, m)
			}
			_, errs, code := runDump(t, alone)
			assert.Equal(t, 0, code, "the dump of %s alone: %s", p, errs)

			out, errs, code := runDump(t, "-check", p)
			assert.Equal(t, 0, code, "%s beside its earlier files: %s%s", p, out, errs)
			assert.Contains(t, out, " 0 errors, 0 warnings,", p)
			out, errs, code = runDump(t, "-timeline", p)
			assert.Equal(t, 0, code, "%s: %s", p, errs)
			assert.Contains(t, out, "brokers: ")
		}
	}
}

// evil is a string with the sequences a log could carry to a terminal:
// OSC (set the title, ended by BEL), CSI (clear the screen, a colour), the
// C1 CSI, a carriage return.
const evil = "evil\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b31m\rx\x7f"

// evilLog writes a simulated cluster's log, then a segment whose topic
// name, config value and SCRAM user hold evil, and returns the directory
// and the offset before that segment.
func evilLog(t *testing.T) (string, int64) {
	t.Helper()
	sim, dir := crashDir(t)
	before := sim.NextOffset() - 1
	w, err := metalog.CreateSegment(metalog.OS{}, dir, sim.NextOffset())
	require.NoError(t, err)
	id := record.UUID{7, 7, 7, 7}
	tr := record.NewTopicRecord()
	tr.Name, tr.TopicID = evil, id
	pr := record.NewPartitionRecord()
	pr.TopicID, pr.PartitionID, pr.Replicas, pr.ISR, pr.Leader = id, 0, []int32{2}, []int32{2}, -1
	cr := record.NewConfigRecord()
	cr.ResourceType, cr.ResourceName, cr.Name = 2, evil, "cleanup.policy"
	cr.Value = new(string)
	*cr.Value = evil
	var vals [][]byte
	for _, r := range []record.Record{tr, pr, cr} {
		v, err := record.Append(nil, r, r.HighestVersion())
		require.NoError(t, err)
		vals = append(vals, v)
	}
	_, err = w.AppendData(sim.RaftEpoch(), sim.Now().UnixMilli()+1000, vals...)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return dir, before
}

// rawControl returns the first control byte of out a terminal would act
// on: C0 but newline and tab; for text also DEL and C1 (as UTF-8). JSON
// output keeps JSON's own escaping, which writes every C0 character as
// \u00NN and leaves DEL and C1 (which terminals in UTF-8 mode do not act
// on) as they are.
func rawControl(out string, text bool) (int, bool) {
	for i := 0; i < len(out); i++ {
		c := out[i]
		if (c < 0x20 && c != '\n' && c != '\t') || (text && c == 0x7f) {
			return i, true
		}
		if text && c == 0xc2 && i+1 < len(out) && out[i+1] >= 0x80 && out[i+1] <= 0x9f {
			return i, true
		}
	}
	return 0, false
}

// TestNoRawControlBytes: a log whose topic name and config value hold ESC,
// CSI, OSC and BEL sequences: no mode writes a raw control byte to stdout
// or stderr; the text modes print the strings escaped, the JSON modes in
// JSON's own escapes (unchanged).
func TestNoRawControlBytes(t *testing.T) {
	dir, before := evilLog(t)
	at := strconv.FormatInt(before, 10)
	for _, m := range []struct {
		args []string
		text bool
	}{
		{[]string{dir}, false}, {[]string{"-image", dir}, false}, {[]string{"-image-records", dir}, false},
		{[]string{"-check", dir}, true}, {[]string{"-check", "-json", dir}, false},
		{[]string{"-timeline", dir}, true}, {[]string{"-batches", dir}, true}, {[]string{"-summary", dir}, true},
		{[]string{"-diff", dir + "@" + at, dir}, true}, {[]string{"-diff", "-json", dir + "@" + at, dir}, false},
		{[]string{"-shell", "-c", "ls /image/topics/byName; cat /image/topics/byName/*/name; tree /image/topics/byName; " +
			"find /image/configs; ls /image/configs; cat /image/configs/*/cleanup.policy; diff " + at + "; history /image/topics/byName/*; cd /image/topics/byName/e*; pwd", dir}, true},
		{[]string{"-shell", "-c", "ls /nope" + evil, dir}, true},
	} {
		out, errs, _ := runDump(t, m.args...)
		if i, bad := rawControl(out, m.text); bad {
			t.Errorf("metadump %q: raw control byte %q on stdout: %q", m.args[:len(m.args)-1], out[i], out[max(0, i-20):min(len(out), i+20)])
		}
		if i, bad := rawControl(errs, true); bad {
			t.Errorf("metadump %q: raw control byte %q on stderr: %q", m.args[:len(m.args)-1], errs[i], errs[max(0, i-20):min(len(errs), i+20)])
		}
		if m.text && len(m.args) > 1 && m.args[0] == "-shell" && !strings.Contains(m.args[2], "nope") {
			assert.Contains(t, out, `evil\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b31m\x0dx\x7f`, "the name, escaped")
		}
	}
	out, _, code := runDump(t, dir)
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"name":"evil\u001b]0;pwned\u0007\u001b[2J\u001b[31m`+"\u009b"+`31m\rx`+"\x7f"+`"`, "the dump's JSON is JSON's escaping")
}

// TestRedactionKeepsJSONTypes: a SCRAM credential's iterations stay a
// number (Kafka's RecordRedactor prints them), its salt and keys print as
// "[redacted]"; a token's renewers stay a list.
func TestRedactionKeepsJSONTypes(t *testing.T) {
	sc := record.NewUserScramCredentialRecord()
	sc.Name, sc.Mechanism, sc.Salt, sc.StoredKey, sc.ServerKey, sc.Iterations = "alice", 1, []byte{1, 2}, []byte{3}, []byte{4}, 4096
	tok := record.NewDelegationTokenRecord()
	tok.TokenID, tok.Owner, tok.Requester, tok.Renewers, tok.IssueTimestamp = "t1", "User:alice", "User:alice", []string{"User:bob", "User:carol"}, 1700000000000
	dir := t.TempDir()
	w, err := metalog.CreateSegment(metalog.OS{}, dir, 0)
	require.NoError(t, err)
	var vals [][]byte
	for _, r := range []record.Record{sc, tok} {
		v, err := record.Append(nil, r, 0)
		require.NoError(t, err)
		vals = append(vals, v)
	}
	_, err = w.AppendData(1, 1700000000000, vals...)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	out, errs, code := runDump(t, w.Path())
	require.Equal(t, 0, code, errs)
	ls := lines(out)
	require.Len(t, ls, 2)
	assert.Contains(t, ls[0], `"salt":"[redacted]"`)
	assert.Contains(t, ls[0], `"iterations":4096`)
	assert.NotContains(t, ls[0], "AQI=", "the salt")
	assert.Contains(t, ls[1], `"renewers":["[redacted]","[redacted]"]`)
	assert.Contains(t, ls[1], `"owner":"[redacted]"`)
	assert.Contains(t, ls[1], `"issueTimestamp":1700000000000`)
}

// TestOneDefinitionOfEachCount: the fencings, leader changes and ISR
// shrinks of a log are the same numbers in the text timeline, the HTML
// report's header data and the shell's history (each the history's
// BrokerHistory.Fencings, PartitionEvent.LeaderChanged, ISRShrank).
func TestOneDefinitionOfEachCount(t *testing.T) {
	dir := incidentDir(t, 11)
	text, errs, code := runDump(t, "-timeline", dir)
	require.Equal(t, 0, code, errs)
	report := filepath.Join(t.TempDir(), "r.html")
	_, errs, code = runDump(t, "-timeline", "-o", report, dir)
	require.Equal(t, 0, code, errs)
	html, err := os.ReadFile(report)
	require.NoError(t, err)
	tl, err := buildTimeline(dir, false)
	require.NoError(t, err)

	fencings := 0
	for _, b := range tl.tl.Brokers {
		var n int
		_, err := fmt.Sscanf(lineWith(t, text, fmt.Sprintf("  broker %-5d", b.ID)), "  broker %d now %s fenced %d", new(int), new(string), &n)
		require.NoError(t, err)
		shell := shellRun(t, dir, fmt.Sprintf("history /image/cluster/brokers/%d", b.ID))
		assert.Contains(t, shell, fmt.Sprintf(" %d fencing(s),", n), "broker %d: text timeline and shell", b.ID)
		fencings += n
	}
	require.Positive(t, fencings)
	assert.Contains(t, string(html), fmt.Sprintf(`"fencings":%d`, fencings), "the HTML header's total")
	changes, shrinks := 0, 0
	for _, p := range tl.Partitions {
		changes += p.Changes
		shrinks += p.Shrinks
	}
	assert.Contains(t, text, fmt.Sprintf("leader changes %d, ISR shrinks %d,", changes, shrinks))
	assert.Contains(t, string(html), fmt.Sprintf(`"leaderChanges":%d`, changes))
	assert.Contains(t, string(html), fmt.Sprintf(`"isrShrinks":%d`, shrinks))
	shell := shellRun(t, dir, "history /image/topics/byName/orders")
	for _, p := range tl.Partitions {
		if p.Topic == "orders" && !p.Deleted {
			assert.Contains(t, shell, fmt.Sprintf("partition %d: %d leader change(s), %d ISR shrink(s),", p.Partition, p.Changes, p.Shrinks))
		}
	}
}

// lineWith returns the line of out that starts with prefix.
func lineWith(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range lines(out) {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line %q in %s", prefix, out)
	return ""
}

// TestCheckPrintsRejectedRecordAtItsVersion: -check (text and JSON) prints
// a rejected record at the version its file holds, not at the newest one
// kmeta knows.
func TestCheckPrintsRejectedRecordAtItsVersion(t *testing.T) {
	sim, dir := crashDir(t)
	r := record.NewBrokerRegistrationChangeRecord()
	r.BrokerID, r.BrokerEpoch, r.Fenced = 2, 999, 1
	w, err := metalog.CreateSegment(metalog.OS{}, dir, sim.NextOffset())
	require.NoError(t, err)
	v, err := record.Append(nil, r, 0)
	require.NoError(t, err)
	_, err = w.AppendData(sim.RaftEpoch(), sim.Now().UnixMilli()+1, v)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	out, _, code := runDump(t, "-check", dir)
	require.Equal(t, 1, code)
	assert.Contains(t, out, `first record Kafka's replay rejects: error rejected`)
	assert.Contains(t, out, `{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,`)
	out, _, _ = runDump(t, "-check", "-json", dir)
	assert.Contains(t, out, "\"record\": {\n      \"type\": \"BROKER_REGISTRATION_CHANGE_RECORD\",\n      \"version\": 0,")
}
