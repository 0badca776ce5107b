package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGoFieldName(t *testing.T) {
	for in, want := range map[string]string{
		"BrokerId": "BrokerID", "Isr": "ISR", "LastKnownElr": "LastKnownELR",
		"IsMigratingZkBroker": "IsMigratingZKBroker", "Id": "ID",
		"VoterDirectoryId": "VoterDirectoryID", "KRaftVersion": "KRaftVersion",
		"EligibleLeaderReplicas": "EligibleLeaderReplicas",
	} {
		if got := goFieldName(in); got != want {
			t.Errorf("goFieldName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEnvelopeName follows Kafka's MetadataRecordType enum names.
func TestEnvelopeName(t *testing.T) {
	for in, want := range map[string]string{
		"PartitionChangeRecord": "PARTITION_CHANGE_RECORD", "NoOpRecord": "NO_OP_RECORD",
		"ZkMigrationStateRecord": "ZK_MIGRATION_STATE_RECORD", "ClearElrRecord": "CLEAR_ELR_RECORD",
		"UserScramCredentialRecord": "USER_SCRAM_CREDENTIAL_RECORD",
	} {
		if got := envelopeName(in); got != want {
			t.Errorf("envelopeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"no end":           "record A apiKey 1 versions 0\n  X int32 0+\n",
		"unknown type":     "record A apiKey 1 versions 0\n  X Foo 0+\nend\n",
		"unknown attr":     "record A apiKey 1 versions 0\n  X int32 0+ shiny\nend\n",
		"dup tag":          "record A apiKey 1 versions 0\n  X int32 0+ tag 0\n  Y int32 0+ tag 0\nend\n",
		"dup key":          "record A apiKey 1 versions 0\nend\nrecord B apiKey 1 versions 0\nend\n",
		"null default":     "record A apiKey 1 versions 0\n  X []int32 0+ default null\nend\n",
		"nullable int":     "record A apiKey 1 versions 0\n  X int32 0+ nullable 0+\nend\n",
		"unbalanced brace": "record A apiKey 1 versions 0\n}\nend\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.kdef")
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			msgs, err := parseFile(p)
			if err == nil {
				err = check(msgs)
			}
			if err == nil {
				t.Fatalf("no error for %q", src)
			}
		})
	}
}

// TestDefinitionsParse checks the project's definitions are well formed and
// cover the metadata apiKeys 0-28 (less 6, 13 and 16) and five control types.
func TestDefinitionsParse(t *testing.T) {
	files, _ := filepath.Glob("defs/*.kdef")
	var recs, ctls int
	for _, f := range files {
		msgs, err := parseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(msgs); err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.kind == "record" {
				recs++
			} else {
				ctls++
			}
		}
	}
	if recs != 27 || ctls != 5 {
		t.Fatalf("got %d records and %d control records, want 27 and 5", recs, ctls)
	}
}
