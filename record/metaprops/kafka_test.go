package metaprops

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// metaVector is one line of embed_metaprops: a file (kind "file") or a set
// of log directories' files (kind "ensemble") and what Kafka 4.4's
// MetaProperties.Builder(Properties).build() or
// MetaPropertiesEnsemble.Loader.load().verify(...) made of it.
type metaVector struct {
	Kind              string   `json:"kind"`
	Text              string   `json:"text"`
	Texts             []string `json:"texts"`
	ExpectedClusterID string   `json:"expectedClusterId"`
	ExpectedNodeID    int32    `json:"expectedNodeId"`
	OK                bool     `json:"ok"`
	Error             string   `json:"error"`
	Version           int      `json:"version"`
	ClusterID         *string  `json:"clusterId"`
	NodeID            *int32   `json:"nodeId"`
	DirectoryID       *string  `json:"directoryId"`
}

// kafkaErrors maps the start of each exception message Kafka throws to the
// field and failure kmeta's *Error names.
var kafkaErrors = []struct {
	re    *regexp.Regexp
	field string
	err   error
}{
	{regexp.MustCompile(`^Failed to find (\S+)$`), "", ErrMissing},
	{regexp.MustCompile(`^Unable to read (\S+) as a`), "", ErrInvalid},
	{regexp.MustCompile(`^Malformed \\uxxxx encoding`), "-", ErrInvalid},
	{regexp.MustCompile(`^(cluster\.id) was not found`), "", ErrMissing},
	{regexp.MustCompile(`^Invalid meta\.properties version string|^Unknown meta\.properties version number`), VersionField, ErrInvalid},
	{regexp.MustCompile(`^Invalid reserved directory ID`), DirectoryIDField, ErrReserved},
	{regexp.MustCompile(`^Invalid (cluster\.id) in`), "", ErrMismatch},
	{regexp.MustCompile(`^Stored node id`), "id", ErrMismatch},
	{regexp.MustCompile(`^Duplicate directory ID`), DirectoryIDField, ErrDuplicate},
}

// kafkaWant is the field and failure Kafka's message msg names.
func kafkaWant(t *testing.T, msg string) (string, error) {
	t.Helper()
	for _, k := range kafkaErrors {
		m := k.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		switch {
		case k.field == "-":
			return "", k.err
		case k.field == "":
			return m[1], k.err
		default:
			return k.field, k.err
		}
	}
	t.Fatalf("Kafka's message %q is not one the test knows", msg)
	return "", nil
}

// TestParseMatchesKafka reads every file of the vectors as Kafka 4.4 read
// it (MetaProperties.Builder(Properties).build() over Properties.load):
// the same fields where Kafka read the file, and an *Error naming the file
// and the field Kafka's exception names where it did not.
func TestParseMatchesKafka(t *testing.T) {
	n, failed := 0, 0
	kafkaoracle.Decode(t, "embed_metaprops", func(i int, v *metaVector) {
		if v.Kind != "file" {
			return
		}
		n++
		t.Run(kafkaoracle.Name("embed_metaprops", i), func(t *testing.T) {
			p, err := Parse("dir/meta.properties", []byte(v.Text))
			if !v.OK {
				failed++
				checkKafkaError(t, err, v.Error, "dir/meta.properties")
				return
			}
			if err != nil {
				t.Fatalf("Kafka read %q; kmeta: %v", v.Text, err)
			}
			if p.Version != v.Version || optString(p.ClusterID, p.HasClusterID) != deref(v.ClusterID) ||
				optInt(p.NodeID, p.HasNodeID) != derefInt(v.NodeID) ||
				optString(p.DirectoryID.String(), p.HasDirectoryID) != deref(v.DirectoryID) {
				t.Fatalf("text %q: kmeta %+v, Kafka version %d cluster %v node %v dir %v",
					v.Text, p, v.Version, deref(v.ClusterID), derefInt(v.NodeID), deref(v.DirectoryID))
			}
		})
	})
	if n == 0 || failed == 0 || failed == n {
		t.Fatalf("%d files, %d refused by Kafka: the vectors should hold both", n, failed)
	}
}

// TestVerifyMatchesKafka checks sets of log directories' files as
// MetaPropertiesEnsemble.verify checked them; Kafka iterates the
// directories sorted by path, and so does the test.
func TestVerifyMatchesKafka(t *testing.T) {
	kafkaoracle.Decode(t, "embed_metaprops", func(i int, v *metaVector) {
		if v.Kind != "ensemble" {
			return
		}
		t.Run(kafkaoracle.Name("embed_metaprops", i), func(t *testing.T) {
			var files []File
			for d, text := range v.Texts {
				path := filepath.Join("ROOT", fmt.Sprintf("d%d", d), FileName)
				p, err := Parse(path, []byte(text))
				if err != nil {
					t.Fatalf("Kafka wrote %q; kmeta: %v", text, err)
				}
				files = append(files, File{Path: path, Props: p})
			}
			err := Verify(files, v.ExpectedClusterID, v.ExpectedNodeID)
			if v.OK {
				if err != nil {
					t.Fatalf("Kafka verified the files; kmeta: %v", err)
				}
				return
			}
			checkKafkaError(t, err, v.Error, "")
			var e *Error
			errors.As(err, &e)
			if dir := filepath.Dir(e.File); !strings.Contains(v.Error, dir+"/") && !strings.Contains(v.Error, dir+".") && !strings.HasSuffix(v.Error, dir) {
				t.Fatalf("kmeta names %s, Kafka: %s", e.File, v.Error)
			}
		})
	})
}

// checkKafkaError checks that err is an *Error for the field and failure
// Kafka's message names (and for file, unless it is "").
func checkKafkaError(t *testing.T, err error, msg, file string) {
	t.Helper()
	field, kind := kafkaWant(t, msg)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Kafka: %s; kmeta: %v (want an *Error)", msg, err)
	}
	if field == "id" && (e.Field == NodeIDField || e.Field == BrokerIDField) {
		field = e.Field
	}
	if e.Field != field || !errors.Is(err, kind) || (file != "" && e.File != file) {
		t.Fatalf("Kafka: %s; kmeta: %v (field %q, want %q, %v)", msg, err, e.Field, field, kind)
	}
}

func optString(s string, ok bool) string {
	if !ok {
		return "<none>"
	}
	return s
}

func optInt(n int32, ok bool) string {
	if !ok {
		return "<none>"
	}
	return fmt.Sprint(n)
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

func derefInt(n *int32) string {
	if n == nil {
		return "<none>"
	}
	return fmt.Sprint(*n)
}
