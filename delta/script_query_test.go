package delta_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/datadriven"
	"github.com/kmeta-go/kmeta/record"
)

// queryCommands print the image, the delta of the last step and its
// records, and replay records by hand.
func queryCommands() []namedCommand {
	return []namedCommand{
		{"image", scriptCommand{"[topics|brokers|registrations|controllers|features|configs|quotas|acls|scram|tokens|producer-ids|provenance|all]", (*replayScript).showImage}},
		{"partition", scriptCommand{"TOPIC PARTITION   (Kafka's PartitionRegistration.toString)", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			tp, ok := s.image().Topic(pos(t, c, 0))
			if !ok {
				return "no topic " + pos(t, c, 0)
			}
			p, ok := tp.Partition(id32(t, c, 1))
			if !ok {
				return "no partition " + pos(t, c, 1)
			}
			return p.String()
		}}},
		{"changes", scriptCommand{"[since=MARK] [local=BROKER,...]   (the last step's delta, or the delta since MARK)", (*replayScript).changes}},
		{"records", scriptCommand{"[all]   (the records the last step wrote, or the whole log, in Kafka's JSON form)", (*replayScript).records}},
		{"replay", scriptCommand{"[snapshot] [at=OFFSET] + one JSON record a line (\"@name\" is the topic id of name)", (*replayScript).replay}},
		{"snapshot", scriptCommand{"[over=MARK]   (the image written as a snapshot and loaded over MARK, or over an empty image)", (*replayScript).snapshot}},
	}
}

// imageRecordTypes are the record types that hold each component of an
// image (MetadataImage.write).
var imageRecordTypes = map[string][]record.Type{
	"registrations": {record.TypeRegisterBrokerRecord},
	"controllers":   {record.TypeRegisterControllerRecord},
	"features":      {record.TypeFeatureLevelRecord},
	"configs":       {record.TypeConfigRecord},
	"quotas":        {record.TypeClientQuotaRecord},
	"acls":          {record.TypeAccessControlEntryRecord},
	"scram":         {record.TypeUserScramCredentialRecord},
	"tokens":        {record.TypeDelegationTokenRecord},
	"producer-ids":  {record.TypeProducerIdsRecord},
}

func (s *replayScript) showImage(t *testing.T, c *datadriven.Case) string {
	img := s.image()
	what := "all"
	if len(c.Positional()) > 0 {
		what = pos(t, c, 0)
	}
	switch what {
	case "topics":
		return topicsText(img)
	case "brokers":
		var b strings.Builder
		for br := range img.Cluster().Brokers() {
			b.WriteString(br.String() + "\n")
		}
		return b.String()
	case "provenance":
		return img.Provenance().String()
	}
	types, ok := imageRecordTypes[what]
	if !ok && what != "all" {
		t.Fatalf("%s: image %s: unknown component", c.Pos, what)
	}
	recs, err := img.Records(image.WriteOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, r := range recs {
		if what == "all" || slices.Contains(types, r.Record.Type()) {
			j, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			b.Write(append(j, '\n'))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// topicsText prints each topic and its partitions, one a line.
func topicsText(img *image.Image) string {
	var b strings.Builder
	for tp := range img.Topics().AllByName() {
		fmt.Fprintf(&b, "%s id=%s\n", tp.Name(), tp.ID())
		for p := range tp.Partitions() {
			fmt.Fprintf(&b, "  p%d leader=%d leaderEpoch=%d partitionEpoch=%d replicas=%v isr=%v", p.ID(), p.Leader(), p.LeaderEpoch(), p.PartitionEpoch(), p.Replicas(), p.ISR())
			for _, l := range []struct {
				name string
				ids  []int32
			}{{"adding", p.AddingReplicas()}, {"removing", p.RemovingReplicas()}, {"elr", p.ELR()}, {"lastKnownElr", p.LastKnownELR()}} {
				if len(l.ids) > 0 {
					fmt.Fprintf(&b, " %s=%v", l.name, l.ids)
				}
			}
			if p.LeaderRecoveryState() != 0 {
				b.WriteString(" recovering")
			}
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// changes prints what a delta reports: topics created, changed and deleted
// (by name), changed partitions, partition growth, broker changes, a new
// metadata.version and, for each broker of local=, its local changes.
func (s *replayScript) changes(t *testing.T, c *datadriven.Case) string {
	d := s.last
	if m, ok := c.Arg("since"); ok {
		base, ok := s.marks[m]
		if !ok {
			t.Fatalf("%s: no mark %q", c.Pos, m)
		}
		var err error
		if d, _, err = s.simulator(t, c).Changes(base); err != nil {
			return "error: " + err.Error()
		}
	}
	if d == nil {
		t.Fatalf("%s: no step yet", c.Pos)
	}
	img, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	tc := d.Topics()
	names := func(ids []record.UUID, in *image.Image) []string {
		out := []string{}
		for _, id := range ids {
			tp, ok := in.TopicByID(id)
			if !ok {
				out = append(out, id.String())
				continue
			}
			out = append(out, tp.Name())
		}
		return out
	}
	fmt.Fprintf(&b, "topics created=%v changed=%v deleted=%v\n", names(tc.Created, img), names(tc.Changed, img), names(tc.Deleted, d.Base()))
	for tp := range img.Topics().AllByName() {
		if parts := d.ChangedPartitions(tp.ID()); len(parts) > 0 {
			fmt.Fprintf(&b, "partitions %s %v\n", tp.Name(), parts)
		}
	}
	for _, g := range d.PartitionGrowth() {
		fmt.Fprintf(&b, "growth %s %d -> %d\n", g.Name, g.Before, g.After)
	}
	bc := d.Brokers()
	fmt.Fprintf(&b, "brokers registered=%v unregistered=%v fenced=%v unfenced=%v changed=%v\n", bc.Registered, bc.Unregistered, bc.Fenced, bc.Unfenced, bc.Changed)
	if mv, ok := d.MetadataVersionChanged(); ok {
		fmt.Fprintf(&b, "metadata.version %s\n", mv)
	}
	if v, ok := c.Arg("local"); ok {
		for _, id := range ids(t, c, v) {
			b.WriteString(localText(id, d.LocalChanges(id)))
		}
	}
	return b.String()
}

func localText(broker int32, lc delta.LocalChanges) string {
	tps := func(l []delta.TopicPartition) []string {
		out := []string{}
		for _, tp := range l {
			out = append(out, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition))
		}
		return out
	}
	infos := func(l []delta.PartitionInfo) []string {
		out := []string{}
		for _, pi := range l {
			out = append(out, fmt.Sprintf("%s-%d", pi.Topic, pi.Partition))
		}
		return out
	}
	var dirs []string
	for tp, dir := range lc.Directories {
		dirs = append(dirs, fmt.Sprintf("%s-%d:%s", tp.Topic, tp.Partition, dir))
	}
	slices.Sort(dirs)
	return fmt.Sprintf("local %d deletes=%v leaders=%v elected=%v followers=%v directories=%v\n",
		broker, tps(lc.Deletes), infos(lc.Leaders), tps(lc.ElectedLeaders), infos(lc.Followers), dirs)
}

// records prints the batches the last step committed.
func (s *replayScript) records(t *testing.T, c *datadriven.Case) string {
	var b strings.Builder
	from := s.lastFrom
	if len(c.Positional()) > 0 && pos(t, c, 0) == "all" {
		from = 0
	}
	for _, bt := range s.simulator(t, c).BatchesFrom(from) {
		if lc, ok := leaderChange(bt); ok {
			fmt.Fprintf(&b, "%d LEADER_CHANGE leader=%d epoch=%d\n", bt.BaseOffset, lc.LeaderID, bt.LeaderEpoch)
			continue
		}
		for i, r := range bt.Records {
			j, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
			if err != nil {
				t.Fatalf("%s: %v", c.Pos, err)
			}
			fmt.Fprintf(&b, "%d %s\n", bt.BaseOffset+int64(i), j)
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// leaderChange is the LeaderChangeMessage of a control batch.
func leaderChange(b record.Batch) (*record.LeaderChangeMessage, bool) {
	if len(b.Control) == 0 {
		return nil, false
	}
	lc, ok := b.Control[0].(*record.LeaderChangeMessage)
	return lc, ok
}
