package publisher_test

import "github.com/kmeta-go/kmeta/record"

// versioned gives records the versions a record.Batch carries: each at its
// highest version (the loader does not read them).
func versioned(recs ...record.Record) []record.VersionedRecord {
	out := make([]record.VersionedRecord, len(recs))
	for i, r := range recs {
		out[i] = record.VersionedRecord{Record: r, Version: r.HighestVersion()}
	}
	return out
}
