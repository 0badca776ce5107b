package metalog

import (
	"errors"
	"fmt"
	"io"
)

// BootstrapFileName is the bootstrap file that kafka-storage format writes
// directly in the metadata log directory (BootstrapDirectory).
const BootstrapFileName = "bootstrap.checkpoint"

// bootstrapID is the snapshot id of a bootstrap file: offset 0, epoch 0.
var bootstrapID = SnapshotID{}

// OpenBootstrap opens the bootstrap.checkpoint file name of fsys as a
// stream of batches: a SnapshotReader at offset 0 and epoch 0 (the format
// Kafka's BootstrapDirectory reads), for callers that replay the file batch
// by batch instead of collecting its records with ReadBootstrap. Close it
// when done.
func OpenBootstrap(fsys FS, name string) (*SnapshotReader, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	s, err := NewSnapshotReader(f, name, bootstrapID)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	return s, nil
}

// ReadBootstrap reads the bootstrap.checkpoint file name of fsys as Kafka's
// BootstrapDirectory.readFromBinaryFile does: it has the snapshot format at
// offset 0 and epoch 0; control batches are skipped and the records of the
// data batches are collected in order. The entries own their bytes. Unlike
// Kafka's BatchFileReader it also requires the SnapshotFooterRecord that
// BatchFileWriter.close writes, so a half-written file is refused
// (ErrIncompleteSnapshot). Kafka 4.2 also reads the same format from
// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint; pass that
// name to read it.
func ReadBootstrap(fsys FS, name string) ([]Entry, error) {
	s, err := OpenBootstrap(fsys, name)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []Entry
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if b.IsControl() {
			continue
		}
		for _, e := range b.Entries {
			out = append(out, Entry{Offset: e.Offset, Value: append([]byte(nil), e.Value...)})
		}
	}
}

// WriteBootstrap writes dir/bootstrap.checkpoint in fsys holding values
// (framed metadata records, metadata.version FeatureLevelRecord first) as
// Kafka's BootstrapDirectory.writeBinaryFile does through BatchFileWriter: a
// header batch with a SnapshotHeaderRecord whose LastContainedLogTimestamp is
// 0, data batches packed up to 8 MiB, a footer batch, all at epoch 0 from
// offset 0; written to bootstrap.checkpoint.tmp, then renamed over the file.
// now stands in for Kafka's Time (see SnapshotWriterConfig.Now); nil means
// the wall clock.
func WriteBootstrap(fsys FS, dir string, values [][]byte, now func() int64) error {
	st, err := fsys.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("metalog: %s is not a directory", dir)
	}
	tmp := fsys.PathJoin(dir, BootstrapFileName+".tmp")
	_ = fsys.Remove(tmp)
	f, err := fsys.Create(tmp)
	if err != nil {
		return err
	}
	w, err := NewSnapshotWriter(f, bootstrapID, SnapshotWriterConfig{Now: now})
	if err == nil {
		err = w.Append(values...)
	}
	if err == nil {
		_, err = w.Freeze()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, fsys.PathJoin(dir, BootstrapFileName))
	}
	if err != nil {
		_ = fsys.Remove(tmp)
	}
	return err
}
