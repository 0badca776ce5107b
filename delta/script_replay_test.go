package delta_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/datadriven"
	"github.com/kmeta-go/kmeta/record"
)

// topicRef is "@name" in a replayed record: the id of live topic name.
var topicRef = regexp.MustCompile(`"@([^"]+)"`)

// replay replays the input's records (Kafka's JSON form, one a line) in
// one delta over the current image, as a log (MetadataDelta) or with
// snapshot as a snapshot (finishSnapshot after the last), and prints
// whether each was accepted or rejected (a *RecordError wrapping
// ErrRejected, which leaves the delta as it was). The applied image becomes the current image,
// detached from any simulator.
func (s *replayScript) replay(t *testing.T, c *datadriven.Case) string {
	base := s.image()
	d := delta.New(base)
	if len(c.Positional()) > 0 && pos(t, c, 0) == "snapshot" {
		d = delta.NewSnapshot(base)
	}
	offset := int64(-1)
	if v, ok := c.Arg("at"); ok {
		offset = num(t, c, v)
	}
	var b strings.Builder
	for _, line := range strings.Split(c.Input, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = topicRef.ReplaceAllStringFunc(line, func(m string) string {
			name := topicRef.FindStringSubmatch(m)[1]
			id, ok := d.TopicID(name)
			if !ok {
				return `"` + record.UUID{0: 0xee, 15: 0xee}.String() + `"` // an id the image does not have
			}
			return `"` + id.String() + `"`
		})
		r, _, err := record.ParseEnvelopeJSON([]byte(line))
		if err != nil {
			t.Fatalf("%s: %q: %v", c.Pos, line, err)
		}
		s.replayed[r.Type()] = true
		var re *delta.RecordError
		if err := d.ReplayAt(offset, r); errors.Is(err, delta.ErrRejected) && errors.As(err, &re) {
			fmt.Fprintf(&b, "%s: rejected: %v\n", r.Type(), err)
		} else if err != nil {
			t.Fatalf("%s: %s: not a *RecordError wrapping ErrRejected: %v", c.Pos, r.Type(), err)
		} else {
			fmt.Fprintf(&b, "%s: ok\n", r.Type())
		}
		if offset >= 0 {
			offset++
		}
	}
	if len(c.Positional()) > 0 && pos(t, c, 0) == "snapshot" {
		d.FinishSnapshot()
	}
	img, err := d.Apply(image.EmptyProvenance)
	if err != nil {
		return "error: " + err.Error()
	}
	s.sim, s.img, s.last = nil, img, d
	return b.String()
}

// snapshot writes the current image as a snapshot's records
// (MetadataImage.write) and loads them in a snapshot delta over the image
// of mark over= (an empty image without it), as a broker that loads a
// newer snapshot does; it says whether the loaded image is the current
// one, record for record, and keeps the snapshot's delta as the last step
// for changes.
func (s *replayScript) snapshot(t *testing.T, c *datadriven.Case) string {
	cur := s.image()
	base := image.Empty()
	if m, ok := c.Arg("over"); ok {
		if base, ok = s.marks[m]; !ok {
			t.Fatalf("%s: no mark %q", c.Pos, m)
		}
	}
	recs, err := cur.Records(image.WriteOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	d := delta.NewSnapshot(base)
	for _, r := range recs {
		if err := d.Replay(r.Record); err != nil {
			return "error: " + err.Error()
		}
	}
	d.FinishSnapshot()
	img, err := d.Apply(cur.Provenance())
	if err != nil {
		return "error: " + err.Error()
	}
	s.last = d
	want, got := recordLines(t, cur), recordLines(t, img)
	if want == got {
		return fmt.Sprintf("%d records; the loaded image is the image", len(recs))
	}
	return fmt.Sprintf("%d records; the loaded image differs:\n--- image\n%s--- loaded\n%s", len(recs), want, got)
}

func recordLines(t *testing.T, img *image.Image) string {
	recs, err := img.Records(image.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		j, err := record.AppendEnvelopeJSON(nil, r.Record, r.Version)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	return b.String()
}
