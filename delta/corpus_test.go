package delta

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
	"github.com/kmeta-go/kmeta/internal/sharedtest"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// txReplayer replays log records as Kafka's MetadataBatchLoader does for
// the final image: records between BeginTransaction and EndTransaction are
// held until the end marker; AbortTransaction drops them.
type txReplayer struct {
	d    *Delta
	tx   []record.Record
	inTx bool
}

func (x *txReplayer) replay(t testing.TB, r record.Record) {
	t.Helper()
	switch r.(type) {
	case *record.BeginTransactionRecord:
		x.inTx, x.tx = true, nil
		return
	case *record.EndTransactionRecord:
		x.inTx = false
		for _, r := range x.tx {
			if err := x.d.Replay(r); err != nil {
				t.Fatal(err)
			}
		}
		x.tx = nil
		return
	case *record.AbortTransactionRecord:
		x.inTx, x.tx = false, nil
		return
	}
	if x.inTx {
		x.tx = append(x.tx, r)
		return
	}
	if err := x.d.Replay(r); err != nil {
		t.Fatal(err)
	}
}

type indexRow map[string]string

func readIndex(t *testing.T, path string) []indexRow {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var cols []string
	var rows []indexRow
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		row := indexRow{}
		for i, c := range cols {
			if i < len(fields) {
				row[c] = fields[i]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestCorpusImagesFiles: every file of every corpus folder (kraft, kraft-2,
// kraft-4.3) that loads on its own gives the image Kafka's own code built
// from it (vectors/corpus-images*/INDEX.tsv).
func TestCorpusImagesFiles(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		for _, row := range readIndex(t, filepath.Join(folder.Images, "INDEX.tsv")) {
			if row["status"] != "ok" {
				continue
			}
			path := row["path"]
			t.Run(folder.Name+"/"+path, func(t *testing.T) {
				src := filepath.Join(folder.Root, path)
				var img *image.Image
				switch {
				case strings.HasSuffix(path, ".log"):
					img = replayLogFiles(t, image.Empty(), 0, -1, src)
				default:
					img = loadSnapshotFile(t, image.Empty(), src)
				}
				imagetest.CompareImage(t, img, imagetest.ReadLines(t, filepath.Join(folder.Images, path+".image-records.jsonl")))
			})
		}
	}
}

// TestCorpusImagesDirs: every __cluster_metadata-0 directory of every corpus
// folder, loaded as a broker loads it, gives Kafka's image
// (corpus-images*/dirs).
func TestCorpusImagesDirs(t *testing.T) {
	for _, folder := range sharedtest.CorpusFolders(t) {
		images := filepath.Join(folder.Images, "dirs")
		for _, row := range readIndex(t, filepath.Join(images, "INDEX.tsv")) {
			if row["status"] != "ok" {
				continue
			}
			dir := row["directory"]
			t.Run(folder.Name+"/"+dir, func(t *testing.T) {
				img := loadDir(t, filepath.Join(folder.Root, dir))
				imagetest.CompareImage(t, img, imagetest.ReadLines(t, filepath.Join(images, dir+".image-records.jsonl")))
			})
		}
	}
}

// TestVectorCheckpointAndLogEqualSnapshot: decoding each scenario's
// .checkpoint, its image log, and its history log gives the same image.
func TestVectorCheckpointAndLogEqualSnapshot(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := imagetest.ReadLines(t, filepath.Join(dir, "snapshot-records.jsonl"))
			snap, segs := dirFiles(t, filepath.Join(dir, "__cluster_metadata-0"))
			fromCheckpoint := loadSnapshotFile(t, image.Empty(), snap)
			imagetest.CompareImage(t, fromCheckpoint, want)
			imagetest.CompareImage(t, replayLogFiles(t, image.Empty(), 0, -1, segs...), want)
			hist := replayLogFiles(t, image.Empty(), 0, -1, filepath.Join(dir, "history", "00000000000000000000.log"))
			imagetest.CompareImage(t, hist, want)
			if got, want := fromCheckpoint.Provenance().LastContainedOffset+1, snapshotOffset(t, snap); got != want {
				t.Errorf("checkpoint provenance offset %d, want %d (from the file name)", got, want)
			}
		})
	}
}

// TestMetamorphicCorpusSnapshotVersusLog: in every corpus directory of
// every folder (kraft, kraft-2, kraft-4.3) that holds the log from offset 0
// and snapshots, replaying the log up to a snapshot's offset gives the image
// the snapshot holds, for every snapshot the log covers; and the snapshot
// followed by the rest of the log gives the image of the whole log.
func TestMetamorphicCorpusSnapshotVersusLog(t *testing.T) {
	checked := 0
	for _, folder := range sharedtest.CorpusFolders(t) {
		err := filepath.WalkDir(folder.Root, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != metalog.MetadataPartitionDir {
				return err
			}
			snaps, _ := filepath.Glob(filepath.Join(p, "*"+metalog.SnapshotSuffix))
			_, segs := dirFiles(t, p)
			if len(snaps) == 0 || len(segs) == 0 {
				return nil
			}
			if base, _ := metalog.ParseSegmentName(filepath.Base(segs[0])); base != 0 {
				return nil // the log before the first segment is gone
			}
			var whole *image.Image
			for _, snap := range snaps {
				id, err := metalog.ParseSnapshotName(filepath.Base(snap))
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(folder.Root, snap)
				t.Run(folder.Name+"/"+rel, func(t *testing.T) {
					upTo := id.EndOffset - 1
					fromLog := replayLogFiles(t, image.Empty(), 0, upTo, segs...)
					if got := fromLog.Provenance().LastContainedOffset; got != upTo {
						t.Fatalf("the log ends at offset %d, before the snapshot's %d", got, upTo)
					}
					fromSnap := loadSnapshotFile(t, image.Empty(), snap)
					imagetest.CompareImage(t, fromLog, imagetest.ImageLines(t, fromSnap))
					if whole == nil {
						whole = replayLogFiles(t, image.Empty(), 0, -1, segs...)
					}
					snapThenLog := replayLogFiles(t, fromSnap, upTo+1, -1, segs...)
					imagetest.CompareImage(t, snapThenLog, imagetest.ImageLines(t, whole))
					checked++
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no corpus snapshot with its log")
	}
	t.Logf("%d snapshots checked against their logs", checked)
}

// TestMetamorphicReplicatedLog: the metadata log is replicated, so one
// node's snapshot equals the image of another node's log up to the same
// offset (ogs59: kafka-1 kept a snapshot, kafka-2 the log).
func TestMetamorphicReplicatedLog(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	snap, _ := dirFiles(t, filepath.Join(corpus, "ogs59__docker-compose-kafka4.10/data/kafka-1/__cluster_metadata-0"))
	_, segs := dirFiles(t, filepath.Join(corpus, "ogs59__docker-compose-kafka4.10/data/kafka-2/__cluster_metadata-0"))
	fromSnap := loadSnapshotFile(t, image.Empty(), snap)
	fromLog := replayLogFiles(t, image.Empty(), 0, fromSnap.Provenance().LastContainedOffset, segs...)
	imagetest.CompareImage(t, fromLog, imagetest.ImageLines(t, fromSnap))
}
