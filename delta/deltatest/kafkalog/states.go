package kafkalog

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// Cluster is a simulated controller whose committed batches are written to
// a Log as they come.
type Cluster struct {
	Sim  *deltatest.Simulator
	done int
	n    int
	last string
}

// NewCluster starts a simulated controller with three brokers; the same
// seed and the same calls give the same log.
func NewCluster(seed int64) (*Cluster, error) {
	s, err := deltatest.New(deltatest.Config{Seed: seed})
	if err != nil {
		return nil, err
	}
	if err := s.AddBrokers(3); err != nil {
		return nil, err
	}
	return &Cluster{Sim: s}, nil
}

// Churn runs n controller operations: topics created (named tag-i) and
// topic configs set.
func (c *Cluster) Churn(n int, tag string) error {
	for range n {
		c.n++
		name := fmt.Sprintf("%s-%d", tag, c.n)
		var err error
		if c.n%3 != 2 || c.last == "" {
			_, err = c.Sim.CreateTopic(deltatest.TopicSpec{Name: name, Partitions: 2, ReplicationFactor: 2})
			c.last = name
		} else {
			err = c.Sim.SetTopicConfig(c.last, "retention.ms", fmt.Sprint(c.n))
		}
		if err != nil {
			return fmt.Errorf("kafkalog: churn %s: %w", name, err)
		}
	}
	return nil
}

// Write appends the batches committed since the last Write.
func (c *Cluster) Write(l *Log) error {
	bs := c.Sim.Batches()
	if err := l.AppendSim(bs[c.done:]...); err != nil {
		return err
	}
	c.done = len(bs)
	return nil
}

// Pending returns the next batch committed and not yet written, encoded.
func (c *Cluster) Pending() ([]byte, bool, error) {
	bs := c.Sim.Batches()
	if c.done >= len(bs) {
		return nil, false, nil
	}
	b, err := metalog.AppendDecoded(nil, &bs[c.done])
	return b, true, err
}

// Skip counts the next pending batch as written (after AppendPartial and
// Complete wrote it).
func (c *Cluster) Skip() { c.done++ }

// State is a __cluster_metadata-0 directory left in one of the states of a
// live node's directory.
type State struct {
	Name string
	Dir  string
	// Records: the directory holds metadata records (a non-empty image).
	Records bool
	// Tail: the newest segment ends in a batch cut short.
	Tail bool
}

// BuildStates writes, under parent, one directory per state a live Kafka
// node's metadata directory passes through: empty; an empty active segment
// alone, after a full segment, after a snapshot at its base offset; a batch
// being appended; a snapshot being written (.checkpoint.part); after
// retention (older segments and snapshots deleted, .deleted files still
// there); a tail truncated; a tail truncated and rewritten; a log truncated
// fully to a snapshot.
func BuildStates(parent string) ([]State, error) {
	var out []State
	for _, st := range stateSteps() {
		dir := filepath.Join(parent, fmt.Sprintf("%02d", len(out)), metalog.MetadataPartitionDir)
		if err := st.build(dir); err != nil {
			return nil, fmt.Errorf("kafkalog: state %q: %w", st.name, err)
		}
		out = append(out, State{Name: st.name, Dir: dir, Records: st.records, Tail: st.tail})
	}
	return out, nil
}

// stateStep builds one State's directory.
type stateStep struct {
	name          string
	records, tail bool
	build         func(dir string) error
}

// stateSteps are the states BuildStates writes, in order.
func stateSteps() []stateStep {
	return []stateStep{
		{"empty directory", false, false, func(dir string) error { return os.MkdirAll(dir, 0o755) }},
		{"empty active segment alone", false, false, func(dir string) error {
			return withLog(dir, Config{}, func(*Log, *Cluster) error { return nil })
		}},
		{"empty active segment after a full segment", true, false, emptySegmentAfterFull},
		{"empty active segment after a snapshot at its base offset", true, false, emptySegmentAfterSnapshot},
		{"batch being appended", true, true, batchBeingAppended},
		{"snapshot being written", true, false, func(dir string) error {
			return withLog(dir, Config{}, func(l *Log, c *Cluster) error {
				if err := c.churnAndWrite(l, 4, "a"); err != nil {
					return err
				}
				_, err := l.StartSnapshot(c.Sim.Image())
				return err
			})
		}},
		{"after retention", true, false, afterRetention},
		{"tail truncated", true, false, tailTruncated},
		{"tail truncated and rewritten", true, false, tailTruncatedAndRewritten},
		{"truncated fully to a snapshot", true, false, func(dir string) error {
			return withLog(dir, Config{}, func(l *Log, c *Cluster) error {
				if err := c.churnAndWrite(l, 6, "a"); err != nil {
					return err
				}
				if _, err := l.Snapshot(c.Sim.Image()); err != nil {
					return err
				}
				return l.TruncateFullyAndStartAt(l.EndOffset())
			})
		}},
	}
}

// withLog runs fn on a new log in dir and a new cluster, closing the log
// after.
func withLog(dir string, cfg Config, fn func(*Log, *Cluster) error) error {
	c, err := NewCluster(17)
	if err != nil {
		return err
	}
	l, err := Create(dir, 0, cfg)
	if err != nil {
		return err
	}
	err = fn(l, c)
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

// churnAndWrite runs n churn operations tagged tag and writes their
// batches to l.
func (c *Cluster) churnAndWrite(l *Log, n int, tag string) error {
	if err := c.Churn(n, tag); err != nil {
		return err
	}
	return c.Write(l)
}

func emptySegmentAfterFull(dir string) error {
	return withLog(dir, Config{}, func(l *Log, c *Cluster) error {
		if err := c.churnAndWrite(l, 4, "a"); err != nil {
			return err
		}
		return l.Roll()
	})
}

func emptySegmentAfterSnapshot(dir string) error {
	return withLog(dir, Config{}, func(l *Log, c *Cluster) error {
		if err := c.churnAndWrite(l, 4, "a"); err != nil {
			return err
		}
		id, err := l.Snapshot(c.Sim.Image())
		if err != nil {
			return err
		}
		if err := l.Roll(); err != nil {
			return err
		}
		return l.DeleteBeforeSnapshot(id)
	})
}

func batchBeingAppended(dir string) error {
	return withLog(dir, Config{}, func(l *Log, c *Cluster) error {
		if err := c.churnAndWrite(l, 4, "a"); err != nil {
			return err
		}
		if err := c.Churn(1, "b"); err != nil {
			return err
		}
		b, _, err := c.Pending()
		if err != nil {
			return err
		}
		return l.AppendPartial(b, len(b)/2)
	})
}

// afterRetention: two snapshots, the segments before each deleted in turn
// (their .deleted files kept).
func afterRetention(dir string) error {
	return withLog(dir, Config{SegmentBytes: 2 << 10, KeepDeleted: true}, func(l *Log, c *Cluster) error {
		if err := c.churnAndWrite(l, 20, "a"); err != nil {
			return err
		}
		first, err := l.Snapshot(c.Sim.Image())
		if err != nil {
			return err
		}
		if err := c.churnAndWrite(l, 20, "b"); err != nil {
			return err
		}
		id, err := l.Snapshot(c.Sim.Image())
		if err != nil {
			return err
		}
		if err := l.DeleteBeforeSnapshot(first); err != nil {
			return err
		}
		if err := c.churnAndWrite(l, 3, "c"); err != nil {
			return err
		}
		return l.DeleteBeforeSnapshot(id)
	})
}

func tailTruncated(dir string) error {
	return withLog(dir, Config{SegmentBytes: 2 << 10}, func(l *Log, c *Cluster) error {
		if err := c.churnAndWrite(l, 10, "a"); err != nil {
			return err
		}
		div := l.EndOffset()
		if err := c.churnAndWrite(l, 10, "b"); err != nil {
			return err
		}
		_, err := l.TruncateTo(div)
		return err
	})
}

// tailTruncatedAndRewritten: a tail truncated, then rewritten by a leader
// that diverged at the truncation point.
func tailTruncatedAndRewritten(dir string) error {
	return withLog(dir, Config{SegmentBytes: 2 << 10}, func(l *Log, c *Cluster) error {
		other, err := NewCluster(17)
		if err != nil {
			return err
		}
		if err := c.Churn(10, "a"); err != nil {
			return err
		}
		if err := other.Churn(10, "a"); err != nil {
			return err
		}
		if err := c.Write(l); err != nil {
			return err
		}
		other.done = c.done
		div := l.EndOffset()
		if err := c.churnAndWrite(l, 10, "b"); err != nil {
			return err
		}
		if _, err := l.TruncateTo(div); err != nil {
			return err
		}
		if err := other.Churn(5, "c"); err != nil {
			return err
		}
		return other.Write(l)
	})
}
