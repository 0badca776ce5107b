package node

import (
	"math"
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

// TestJavaDoubleToString: javaDouble prints what Java's Double.toString
// prints (the expected strings were printed by a JDK 21 jshell).
func TestJavaDoubleToString(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1024, "1024.0"}, {1.5, "1.5"}, {0.001, "0.001"},
		{9.99e-4, "9.99E-4"}, {1e-5, "1.0E-5"}, {-2.5e-7, "-2.5E-7"}, {1e7, "1.0E7"}, {1.5e7, "1.5E7"},
		{123456789, "1.23456789E8"}, {9999999, "9999999.0"}, {1e21, "1.0E21"},
		{1.7976931348623157e308, "1.7976931348623157E308"}, {0.1, "0.1"}, {1234.5678, "1234.5678"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := javaDouble(tc.f); got != tc.want {
			t.Errorf("javaDouble(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

// TestISOZonedDateTime: ISOZoned prints what
// DateTimeFormatter.ISO_ZONED_DATE_TIME prints for a UTC ZonedDateTime
// (expected strings from a JDK 21 jshell).
func TestISOZonedDateTime(t *testing.T) {
	for ms, want := range map[int64]string{
		0:             "1970-01-01T00:00:00Z[UTC]",
		1700000000250: "2023-11-14T22:13:20.25Z[UTC]",
		1700000000200: "2023-11-14T22:13:20.2Z[UTC]",
		1700000000001: "2023-11-14T22:13:20.001Z[UTC]",
		1700000000010: "2023-11-14T22:13:20.01Z[UTC]",
		-1:            "1969-12-31T23:59:59.999Z[UTC]",
	} {
		if got := ISOZoned(ms); got != want {
			t.Errorf("ISOZoned(%d) = %s, want %s", ms, got, want)
		}
	}
}

// TestClientQuotaEntityToString: entity names list clientId, ip, then
// user, joined by "_", with \, ( and ) escaped
// (ClientQuotasImageNode.clientQuotaEntityToString).
func TestClientQuotaEntityToString(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		parts []image.QuotaEntityPart
		want  string
	}{
		{[]image.QuotaEntityPart{{Type: "user", Name: str("alice")}}, "user(alice)"},
		{[]image.QuotaEntityPart{{Type: "user", Name: str("u")}, {Type: "client-id", Name: str("c")}}, "clientId(c)_user(u)"},
		{[]image.QuotaEntityPart{{Type: "ip", Name: str("10.0.0.1")}}, "ip(10.0.0.1)"},
		{[]image.QuotaEntityPart{{Type: "user", Name: str(`a(b)\c`)}}, `user(a\(b\)\\c)`},
	} {
		e := image.NewQuotaEntity(tc.parts, nil)
		if got := quotaEntityName(e); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.parts, got, tc.want)
		}
	}
}
