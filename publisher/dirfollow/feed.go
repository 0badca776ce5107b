package dirfollow

import (
	"errors"
	"io"

	"github.com/kmeta-go/kmeta/publisher"
	"github.com/kmeta-go/kmeta/record"
	"github.com/kmeta-go/kmeta/record/metalog"
)

// feed reads batches until the reader has nothing more for now, committing
// every MaxCommitBytes, then reports the high watermark. It returns the
// number of batches fed. Each commit streams through
// Loader.HandleCommitReader: no commit's batches are held at once.
func (f *follower) feed() (int, error) {
	max := f.opts.MaxCommitBytes
	if max <= 0 {
		max = DefaultMaxCommitBytes
	}
	f.tail = nil
	c := &feedCommit{f: f, max: max}
	for !c.end {
		c.pending = 0
		err := f.l.HandleCommitReader(c)
		if err == nil {
			continue
		}
		if c.cur == nil {
			return c.n, err // the commit failed
		}
		if err != c.err { // the loader refused the batch
			err = &RecordError{File: f.curFile, Position: c.cur.Position, Offset: c.cur.BaseOffset, Err: err}
		}
		c.ferr = err
		if c.pending > 0 {
			// What loaded before the bad batch is published, as a
			// commit of its own.
			if err := f.l.HandleCommit(); err != nil {
				return c.n, err
			}
		}
		break
	}
	f.l.SetHighWatermark(f.pos.last + 1)
	return c.n, c.ferr
}

// feedCommit is the publisher.BatchReader of one of feed's commits: the
// directory's batches, decoded, until MaxCommitBytes or the end of what the
// directory holds for now.
type feedCommit struct {
	f            *follower
	max, pending int
	n            int            // batches fed
	cur          *metalog.Batch // the batch handed to the loader last, until it loaded
	end          bool           // the directory has nothing more for now
	err          error          // the error Next returned last
	ferr         error          // the error that ends the feed
}

// Next counts the batch handed over last as loaded, then reads the next.
func (c *feedCommit) Next() (record.Batch, error) {
	f := c.f
	if b := c.cur; b != nil {
		f.pos = fed{last: b.LastOffset(), base: b.BaseOffset, crc: b.CRC}
		c.n++
		c.pending += b.Size()
		c.cur = nil
	}
	if c.end || c.pending >= c.max {
		return record.Batch{}, io.EOF
	}
	b, err := f.d.Next()
	if err != nil {
		c.end = true
		switch {
		case errors.Is(err, metalog.ErrIncompleteTail):
			f.tail = err
		case err != io.EOF:
			c.ferr = err
		}
		return record.Batch{}, io.EOF
	}
	f.curFile, f.curPos, _ = f.d.Position()
	f.curPos = b.Position
	c.cur = b
	mb, err := publisher.DecodeBatch(b)
	if err != nil {
		c.err = &RecordError{File: f.curFile, Position: b.Position, Offset: b.BaseOffset, Err: err}
		return record.Batch{}, c.err
	}
	return mb, nil
}
