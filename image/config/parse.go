package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// ValueError is a config value Kafka's ConfigDef rejects: not of the
// config's type (ConfigDef.parseType) or outside its validator.
type ValueError struct {
	Name, Value string
	Reason      string
}

// Error is Kafka's ConfigException text.
func (e *ValueError) Error() string {
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", e.Value, e.Name, e.Reason)
}

// javaTrim is String.trim: it removes every char <= ' ' from both ends.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// Parse checks raw against d's type and validator as ConfigDef.parse does
// and returns its canonical string form (ConfigDef.convertToString of the
// parsed value: "true" for " TRUE", "1,2" for "1, 2", "100.0" for "1e2").
func (d *Def) Parse(raw string) (string, error) {
	v, num, err := parseType(d.Name, raw, d.Type)
	if err != nil {
		return "", err
	}
	if d.Check != nil {
		if err := d.Check.checkNum(d.Name, raw, v, num, d.Type); err != nil {
			return "", err
		}
	}
	return v, nil
}

// parseType is ConfigDef.parseType followed by convertToString; num is a
// number's value.
func parseType(name, raw string, t Type) (v string, num float64, err error) {
	v, num, err = parseTypeNum(name, raw, t)
	return
}

func parseTypeNum(name, raw string, t Type) (string, float64, error) {
	s := javaTrim(raw)
	bad := func(reason string) (string, float64, error) {
		return "", 0, &ValueError{Name: name, Value: raw, Reason: reason}
	}
	switch t {
	case Boolean:
		switch strings.ToLower(s) {
		case "true":
			return "true", 0, nil
		case "false":
			return "false", 0, nil
		}
		return bad("Expected value to be either true or false")
	case Int, Short, Long:
		bits := map[Type]int{Int: 32, Short: 16, Long: 64}[t]
		x, ok := javaParseInt(s, bits)
		if !ok {
			return bad("Not a number of type " + typeNames[t])
		}
		if canonicalInt(s) {
			return s, float64(x), nil
		}
		return strconv.FormatInt(x, 10), float64(x), nil
	case Double:
		x, ok := javaParseDouble(s)
		if !ok {
			return bad("Not a number of type DOUBLE")
		}
		return javaDoubleString(x), x, nil
	case List:
		if !strings.ContainsAny(s, " \t\n\v\f\r") {
			return s, 0, nil // no whitespace to remove around the commas
		}
		return strings.Join(splitList(s), ","), 0, nil
	case Class:
		if !javaClassName(s) {
			return bad("Class " + raw + " could not be found.")
		}
	}
	return s, 0, nil // STRING, PASSWORD, CLASS (the class is not loaded)
}

// javaClassName reports whether s can name a class (dot-separated Java
// identifiers): Utils.loadClass fails on any other name. Whether a class of
// that name exists is the broker process's to know; every such name is
// taken.
func javaClassName(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			ok := r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)
			if !ok {
				return false
			}
		}
	}
	return true
}

// splitList is ConfigDef's LIST parse of a trimmed value: empty is the
// empty list, else the parts around commas with the whitespace beside them
// removed (Pattern "\\s*,\\s*", limit -1).
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if i > 0 {
			p = strings.TrimLeft(p, " \t\n\v\f\r")
		}
		if i < len(parts)-1 {
			p = strings.TrimRight(p, " \t\n\v\f\r")
		}
		parts[i] = p
	}
	return parts
}

// canonicalInt reports whether the number s (already parsed) is written
// as Long.toString writes it: no '+', no leading zero, no "-0".
func canonicalInt(s string) bool {
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	return s[0] != '+' && (d[0] != '0' || s == "0")
}

// javaParseInt is Integer/Short/Long.parseInt: an optional sign and ASCII
// digits, within the type's range.
func javaParseInt(s string, bits int) (int64, bool) {
	if s == "" || s == "+" || s == "-" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && !(i == 0 && (c == '+' || c == '-')) {
			return 0, false
		}
	}
	x, err := strconv.ParseInt(s, 10, bits)
	return x, err == nil
}

// javaParseDouble is Double.parseDouble for the decimal forms, with
// Java's optional d/f suffix and its "Infinity" and "NaN".
func javaParseDouble(s string) (float64, bool) {
	switch strings.TrimLeft(s, "+-") {
	case "Infinity", "NaN":
		x, err := strconv.ParseFloat(s, 64)
		return x, err == nil
	case "":
		return 0, false
	}
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return x, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// javaDoubleString is Double.toString: plain notation with at least one
// fraction digit for 1e-3 <= |x| < 1e7, else d.dddE±n, with the shortest
// digits that round-trip.
func javaDoubleString(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(x)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'e', -1, 64) // 1.2345e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// check is the validator's ensureValid on the parsed (canonical) value v.
func (c *Validator) check(name, raw, v string, t Type) error {
	x := 0.0
	if c.Kind == "Range" {
		x, _ = strconv.ParseFloat(v, 64)
	}
	return c.checkNum(name, raw, v, x, t)
}

// checkNum is check with a number's value x already parsed.
func (c *Validator) checkNum(name, raw, v string, x float64, t Type) error {
	bad := func(reason string) error { return &ValueError{Name: name, Value: raw, Reason: reason} }
	switch c.Kind {
	case "Range":
		if c.HasMin && x < c.MinF {
			return bad("Value must be at least " + c.Min)
		}
		if c.HasMax && x > c.MaxF {
			return bad("Value must be no more than " + c.Max)
		}
	case "ValidString":
		for _, s := range c.Values {
			if s == v {
				return nil
			}
		}
		return bad("String must be one of: " + strings.Join(c.Values, ", "))
	case "CaseInsensitiveValidString":
		for _, s := range c.Values {
			if strings.EqualFold(s, v) {
				return nil
			}
		}
		return bad("String must be one of (case insensitive): " + strings.Join(c.Values, ", "))
	case "ValidList":
		return c.checkList(name, raw, splitList(v))
	case "ListSize":
		if m, _ := strconv.Atoi(c.Max); len(splitList(v)) > m {
			return bad("exceeds maximum list size of [" + c.Max + "].")
		}
	case "NonEmptyString":
		if v == "" {
			return bad("String must be non-empty")
		}
	case "CompositeValidator":
		for _, p := range c.All {
			if err := p.checkNum(name, raw, v, x, t); err != nil {
				return err
			}
		}
	case "ThrottledReplicaListValidator":
		return checkThrottledReplicas(name, raw, splitList(v))
	case "LambdaValidator":
		if c.Text == "[1,...,9] or -1" { // compression.gzip.level (GzipCompression's validator)
			if x, _ := strconv.Atoi(v); x != -1 && (x < 1 || x > 9) {
				return bad("Value must be between 1 and 9 or -1")
			}
		}
	}
	return nil
}

// checkList is ValidList.ensureValid.
func (c *Validator) checkList(name, raw string, items []string) error {
	if !c.EmptyAllowed && len(items) == 0 {
		return &ValueError{Name: name, Value: raw, Reason: "must not be empty"}
	}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if seen[it] {
			return &ValueError{Name: name, Value: raw, Reason: "values must not be duplicated"}
		}
		seen[it] = true
	}
	for _, it := range items {
		if it == "" {
			return &ValueError{Name: name, Value: raw, Reason: "values must not be empty"}
		}
		if len(c.Values) > 0 {
			ok := false
			for _, s := range c.Values {
				ok = ok || s == it
			}
			if !ok {
				return &ValueError{Name: name, Value: raw, Reason: "String must be one of: " + strings.Join(c.Values, ", ")}
			}
		}
	}
	return nil
}

// checkThrottledReplicas is ThrottledReplicaListValidator.ensureValid:
// every trimmed item is empty or partition:broker digits, or the items
// join to "*".
func checkThrottledReplicas(name, raw string, items []string) error {
	all, joined := true, ""
	for _, it := range items {
		it = javaTrim(it)
		joined += it
		p, b, ok := strings.Cut(it, ":")
		if it != "" && !(ok && digits(p) && digits(b)) {
			all = false
		}
	}
	if all || joined == "*" {
		return nil
	}
	return &ValueError{Name: name, Value: raw, Reason: name + " must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."}
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
