package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/publisher/history"
	"github.com/kmeta-go/kmeta/record"
)

// The shell's "history PATH": what the log says about the entity at PATH
// (package history), where kafka-metadata-shell's history prints only the
// commands typed. PATH is a partition (/image/topics/byName/orders/3 or
// byId/<id>/3), a topic (/image/topics/byName/orders) or a broker
// (/image/cluster/brokers/2), relative to the working directory.

// logHistory reads the history of the shell's source once.
func (s *shell) logHistory() (*history.History, error) {
	if s.hist2 == nil {
		h, err := history.Read(s.path, history.Options{Unredacted: s.unredacted})
		if err != nil {
			return nil, err
		}
		s.hist2 = h
	}
	return s.hist2, nil
}

func (s *shell) entityHistory(arg string) {
	comps := s.absolute(arg)
	h, err := s.logHistory()
	if err != nil {
		s.failln("history:", err)
		return
	}
	switch {
	case len(comps) == 4 && comps[0] == "image" && comps[1] == "cluster" && comps[2] == "brokers":
		id, err := strconv.ParseInt(comps[3], 10, 32)
		if b, ok := h.Broker(int32(id)); err == nil && ok {
			s.printBrokerHistory(b)
			return
		}
	case len(comps) >= 4 && comps[0] == "image" && comps[1] == "topics" && (comps[2] == "byName" || comps[2] == "byId"):
		var parts []*history.PartitionHistory
		if comps[2] == "byName" {
			parts = h.PartitionsOf(comps[3])
		} else if id, err := record.ParseUUID(comps[3]); err == nil {
			for _, p := range h.Partitions() {
				if p.TopicID == id {
					parts = append(parts, p)
				}
			}
		}
		if len(comps) == 4 {
			s.printTopicHistory(h, comps[2] == "byName", comps[3], parts)
			return
		}
		if len(comps) == 5 {
			n, err := strconv.ParseInt(comps[4], 10, 32)
			found := false
			for _, p := range parts {
				if err == nil && p.Partition == int32(n) {
					s.printPartitionHistory(p)
					found = true
				}
			}
			if found {
				return
			}
		}
	}
	s.failf("history: %s: no history (a broker, topic or partition path under /image)\n", arg)
}

func posString(p history.Position) string {
	if p.Snapshot {
		return fmt.Sprintf("snapshot@%d %s", p.Offset, fmtMs(p.AppendTime))
	}
	return fmt.Sprintf("offset %d %s", p.Offset, fmtMs(p.AppendTime))
}

func (s *shell) printBrokerHistory(b *history.BrokerHistory) {
	fmt.Fprintf(s.out, "broker %d: %d registration(s), %d fencing(s), now %s\n", b.ID, b.Registrations, b.Fencings, b.State())
	for _, iv := range b.Intervals {
		to := posString(iv.To)
		if iv.Open {
			to = "now"
		}
		fmt.Fprintf(s.out, "  %-22s epoch %-8d %s .. %s (%s)\n", iv.State, iv.Epoch, posString(iv.From), to, iv.Duration())
	}
	if b.Dropped > 0 {
		fmt.Fprintf(s.out, "  (%d older entries dropped by the limit)\n", b.Dropped)
	}
}

func (s *shell) printTopicHistory(h *history.History, byName bool, key string, parts []*history.PartitionHistory) {
	for _, t := range h.Topics() {
		if (byName && t.Name == key) || (!byName && t.ID.String() == key) {
			fmt.Fprintf(s.out, "topic %s (%s)\n", t.Name, t.ID)
			for _, e := range t.Events {
				fmt.Fprintf(s.out, "  %s  %s\n", posString(e.At), e.Kind)
			}
		}
	}
	slices.SortFunc(parts, func(a, b *history.PartitionHistory) int { return int(a.Partition - b.Partition) })
	for _, p := range parts {
		fmt.Fprintf(s.out, "  partition %d: %d leader change(s), %d ISR shrink(s), leader now %s\n", p.Partition, p.LeaderChanges, p.ISRShrinks, leaderName(p.Current().Leader))
	}
}

func (s *shell) printPartitionHistory(p *history.PartitionHistory) {
	fmt.Fprintf(s.out, "%s-%d (%s): %d leader change(s), %d ISR shrink(s)\n", p.Topic, p.Partition, p.TopicID, p.LeaderChanges, p.ISRShrinks)
	for _, e := range p.Events {
		fmt.Fprintf(s.out, "  %s  %s\n", posString(e.At), partitionEventString(&e))
	}
	if p.Dropped > 0 {
		fmt.Fprintf(s.out, "  (%d older events dropped by the limit)\n", p.Dropped)
	}
}

func partitionEventString(e *history.PartitionEvent) string {
	typ := "?"
	if e.Record != nil {
		typ = e.Record.Type().String()
	}
	switch {
	case !e.Before.Exists():
		return fmt.Sprintf("%s: created, leader %s, replicas %v, isr %v", typ, leaderName(e.After.Leader), e.After.Replicas, e.After.ISR)
	case !e.After.Exists():
		return typ + ": deleted"
	}
	var ch []string
	for _, f := range e.Changed.Names() {
		switch f {
		case "leader":
			ch = append(ch, fmt.Sprintf("leader %s -> %s", leaderName(e.Before.Leader), leaderName(e.After.Leader)))
		case "leaderEpoch":
			ch = append(ch, fmt.Sprintf("leaderEpoch %d -> %d", e.Before.LeaderEpoch, e.After.LeaderEpoch))
		case "partitionEpoch":
			ch = append(ch, fmt.Sprintf("partitionEpoch %d -> %d", e.Before.PartitionEpoch, e.After.PartitionEpoch))
		case "isr":
			ch = append(ch, fmt.Sprintf("isr %v -> %v", e.Before.ISR, e.After.ISR))
		case "elr":
			ch = append(ch, fmt.Sprintf("elr %v -> %v", e.Before.ELR, e.After.ELR))
		case "lastKnownElr":
			ch = append(ch, fmt.Sprintf("lastKnownElr %v -> %v", e.Before.LastKnownELR, e.After.LastKnownELR))
		case "replicas":
			ch = append(ch, fmt.Sprintf("replicas %v -> %v", e.Before.Replicas, e.After.Replicas))
		default:
			ch = append(ch, f)
		}
	}
	return typ + ": " + strings.Join(ch, ", ")
}

// imageDiffLines is image.Diff (the diff metadump -diff prints) as the
// shell and the timeline show it (diffLines).
func imageDiffLines(a, b *image.Image, unredacted bool) []string {
	return diffLines(image.Diff(a, b, image.DiffOptions{Sensitive: redact.IsSensitive, // MetadataNodeRedactionCriteria.Normal
		Unredacted: unredacted}))
}

// diffLines prints differences as the shell and the timeline show them:
// "+ " added with its fields, "- " removed, "~ " changed with the fields
// that changed.
func diffLines(ds []image.Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		switch d.Op {
		case image.Added:
			out[i] = "+ " + strings.TrimPrefix(d.String(), string(d.Op)+" ")
		case image.Removed:
			// What it was is in the image before: name it only.
			out[i] = fmt.Sprintf("- %s %s", d.Kind, d.Key)
		default:
			out[i] = "~ " + strings.TrimPrefix(d.String(), string(d.Op)+" ")
		}
	}
	return out
}

// leaderName prints a leader id, "none" for no leader.
func leaderName(id int32) string {
	if id == image.NoLeader {
		return "none"
	}
	return strconv.Itoa(int(id))
}
