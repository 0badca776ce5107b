package image

import (
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/record"
)

func cordonedBroker(t *testing.T, dirs, cordoned []record.UUID) *Broker {
	t.Helper()
	r := record.NewRegisterBrokerRecord()
	r.BrokerID, r.BrokerEpoch = 1, 10
	r.LogDirs, r.CordonedLogDirs = dirs, cordoned
	b, err := NewBroker(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBrokerCordonedDirectories follows BrokerRegistration of Kafka 4.3
// (KIP-1066): cordoned directories are kept in the order given (directories
// are sorted), null differs from empty in equals and toString,
// hasUncordonedDirs and cordonedDirChanged answer as Kafka's do, and
// toRecord writes the list back, null as null.
func TestBrokerCordonedDirectories(t *testing.T) {
	a, b := record.UUID{2}, record.UUID{1}
	null := cordonedBroker(t, []record.UUID{a, b}, nil)
	empty := cordonedBroker(t, []record.UUID{a, b}, []record.UUID{})
	one := cordonedBroker(t, []record.UUID{a, b}, []record.UUID{a})
	both := cordonedBroker(t, []record.UUID{a, b}, []record.UUID{a, b})

	if _, ok := null.CordonedDirectories(); ok {
		t.Error("null cordoned directories reported as set")
	}
	if d, ok := empty.CordonedDirectories(); !ok || d == nil || len(d) != 0 {
		t.Errorf("empty: %v %v", d, ok)
	}
	if d, _ := both.CordonedDirectories(); d[0] != a || d[1] != b {
		t.Errorf("cordoned order not kept: %v", d)
	}
	if dirs := both.Directories(); dirs[0] != b {
		t.Errorf("directories not sorted: %v", dirs)
	}
	if null.Equal(empty) || empty.Equal(null) || one.Equal(both) || !both.Equal(cordonedBroker(t, []record.UUID{b, a}, []record.UUID{a, b})) {
		t.Error("Equal does not follow BrokerRegistration.equals")
	}
	if both.Equal(cordonedBroker(t, []record.UUID{a, b}, []record.UUID{b, a})) {
		t.Error("lists in another order are equal (Kafka compares the lists)")
	}
	for _, c := range []struct {
		b    *Broker
		want bool
	}{{null, true}, {empty, true}, {one, true}, {both, false}, {cordonedBroker(t, nil, []record.UUID{a}), true}} {
		if got := c.b.HasUncordonedDirs(); got != c.want {
			t.Errorf("HasUncordonedDirs of %v = %v", c.b, got)
		}
	}
	if !null.CordonedDirChanged([]record.UUID{}) || empty.CordonedDirChanged(nil) || !one.CordonedDirChanged([]record.UUID{b}) ||
		both.CordonedDirChanged([]record.UUID{b, a}) {
		t.Error("CordonedDirChanged does not follow BrokerRegistration.cordonedDirChanged (null, or set inequality)")
	}
	if !strings.HasSuffix(null.String(), ", cordonedDirectories=null)") || !strings.HasSuffix(empty.String(), ", cordonedDirectories=[])") ||
		!strings.HasSuffix(both.String(), "directories=["+b.String()+", "+a.String()+"], cordonedDirectories=["+a.String()+", "+b.String()+"])") {
		t.Errorf("toString: %s / %s / %s", null, empty, both)
	}
	if r := null.Record(); r.CordonedLogDirs != nil {
		t.Error("null written as a list")
	}
	if r := empty.Record(); r.CordonedLogDirs == nil || len(r.CordonedLogDirs) != 0 {
		t.Error("empty not written as an empty list")
	}
	if w := null.WithCordonedDirectories(nil); !w.Equal(empty) || null.Equal(empty) {
		t.Error("WithCordonedDirectories(nil) is the empty list, and leaves the original alone")
	}
}

// TestWriteCordonedDirectories follows BrokerRegistration.toRecord: at
// 4.3-IV0 and later a RegisterBrokerRecord v4 carries the list; below, a
// non-null list (even empty) is a loss (handleLoss "the cordoned log
// directories of one or more brokers"), and a null one is not.
func TestWriteCordonedDirectories(t *testing.T) {
	a := record.UUID{2}
	for _, c := range []struct {
		cordoned []record.UUID
		mv       MetadataVersion
		version  int16
		loss     bool
	}{
		{[]record.UUID{a}, MV4_3_IV0, 4, false},
		{[]record.UUID{}, MV4_4_IV2, 4, false},
		{nil, MV4_3_IV0, 4, false},
		{nil, MV4_2_IV1, 3, false},
		{[]record.UUID{}, MV4_2_IV1, 3, true},
		{[]record.UUID{a}, MV3_7_IV2, 3, true},
	} {
		b := cordonedBroker(t, []record.UUID{a}, c.cordoned)
		bld := NewBuilder(nil)
		bld.SetFeatures(c.mv, nil)
		bld.PutCluster(map[int32]*Broker{1: b}, nil)
		img := bld.Image(EmptyProvenance)
		_, err := img.Records(WriteOptions{})
		if c.loss != errors.Is(err, ErrLoss) || (c.loss && !strings.Contains(err.Error(), "the cordoned log directories of one or more brokers")) {
			t.Errorf("%v at %s: err %v", c.cordoned, c.mv, err)
		}
		var lost []string
		recs, err := img.Records(WriteOptions{OnLoss: func(what string) error { lost = append(lost, what); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		for _, vr := range recs {
			r, ok := vr.Record.(*record.RegisterBrokerRecord)
			if !ok {
				continue
			}
			if vr.Version != c.version {
				t.Errorf("%s: RegisterBrokerRecord v%d, want v%d", c.mv, vr.Version, c.version)
			}
			if c.loss && r.CordonedLogDirs != nil || !c.loss && (r.CordonedLogDirs == nil) != (c.cordoned == nil) {
				t.Errorf("%s: written cordoned %v from %v", c.mv, r.CordonedLogDirs, c.cordoned)
			}
			if _, err := record.Append(nil, r, vr.Version); err != nil {
				t.Errorf("%s: %v", c.mv, err)
			}
		}
		if (len(lost) > 0) != c.loss {
			t.Errorf("%s: losses %v", c.mv, lost)
		}
	}
}

// TestMetadataVersionLevels: the levels of Kafka 4.3 and 4.4
// (MetadataVersion IBP_4_3_IV0 .. IBP_4_4_IV2), their names, the production
// boundary (LATEST_PRODUCTION 4.3-IV0) and what each gates.
func TestMetadataVersionLevels(t *testing.T) {
	for level, name := range map[int16]string{29: "4.2-IV1", 30: "4.3-IV0", 31: "4.4-IV0", 32: "4.4-IV1", 33: "4.4-IV2"} {
		mv, err := ParseMetadataVersionLevel(level)
		if err != nil || mv.String() != name {
			t.Errorf("level %d: %v %v", level, mv, err)
		}
	}
	if _, err := ParseMetadataVersionLevel(34); err == nil {
		t.Error("level 34 accepted")
	}
	if LatestMetadataVersion != MV4_4_IV2 || !MV4_3_IV0.IsProduction() || MV4_4_IV0.IsProduction() {
		t.Error("latest or production level wrong")
	}
	gates := []struct {
		name  string
		gate  func(MetadataVersion) bool
		first MetadataVersion
	}{
		{"isCordonedLogDirsSupported", MetadataVersion.CordonedLogDirsSupported, MV4_3_IV0},
		{"isCidrAclSupported", MetadataVersion.CidrACLSupported, MV4_4_IV1},
		{"isControllerUnregistrationSupported", MetadataVersion.ControllerUnregistrationSupported, MV4_4_IV2},
	}
	for _, g := range gates {
		if g.gate(g.first-1) || !g.gate(g.first) || !g.gate(LatestMetadataVersion) {
			t.Errorf("%s does not start at %s", g.name, g.first)
		}
	}
	for mv, want := range map[MetadataVersion]int16{MV4_2_IV1: 3, MV4_3_IV0: 4, MV4_4_IV2: 4} {
		if got := mv.RegisterBrokerRecordVersion(); got != want {
			t.Errorf("registerBrokerRecordVersion at %s = %d", mv, got)
		}
	}
	if MV4_4_IV2.PartitionRecordVersion() != 2 {
		t.Error("partitionRecordVersion changed at 4.4")
	}
}

// TestMetadataChanged follows MetadataVersion.checkIfMetadataChanged: 4.4-IV0
// (level 31) changed nothing, so 4.3-IV0 <-> 4.4-IV0 is not lossy, while
// 4.4-IV1 and 4.4-IV2 did; 4.2-IV0 -> 4.2-IV1 -> 4.3-IV0 is lossy because of
// 4.3-IV0.
func TestMetadataChanged(t *testing.T) {
	for _, c := range []struct {
		a, b MetadataVersion
		want bool
	}{
		{MV4_3_IV0, MV4_4_IV0, false},
		{MV4_4_IV0, MV4_3_IV0, false},
		{MV4_3_IV0, MV4_4_IV1, true},
		{MV4_4_IV1, MV4_4_IV2, true},
		{MV4_2_IV0, MV4_2_IV1, false},
		{MV4_2_IV1, MV4_3_IV0, true},
		{MV4_0_IV1, MV4_2_IV1, false},
		{MV4_0_IV0, MV4_0_IV1, true},
		{MV4_4_IV2, MV4_4_IV2, false},
		{MV3_0_IV1, MV3_1_IV0, false},
	} {
		if got := MetadataChanged(c.a, c.b); got != c.want {
			t.Errorf("MetadataChanged(%s, %s) = %v", c.a, c.b, got)
		}
	}
	if !MV4_3_IV0.DidMetadataChange() || MV4_4_IV0.DidMetadataChange() || MetadataVersion(34).DidMetadataChange() {
		t.Error("didMetadataChange of 30, 31 or 34")
	}
}
