package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// vrange is an inclusive version range; lo > hi means "no versions".
type vrange struct{ lo, hi int16 }

var none = vrange{1, 0}

func (r vrange) empty() bool { return r.lo > r.hi }

func (r vrange) String() string {
	switch {
	case r.empty():
		return "none"
	case r.hi == math.MaxInt16:
		return fmt.Sprintf("%d+", r.lo)
	case r.lo == r.hi:
		return fmt.Sprint(r.lo)
	}
	return fmt.Sprintf("%d-%d", r.lo, r.hi)
}

func (r vrange) intersect(o vrange) vrange {
	lo, hi := max(r.lo, o.lo), min(r.hi, o.hi)
	if lo > hi {
		return none
	}
	return vrange{lo, hi}
}

func (r vrange) contains(o vrange) bool { return o.empty() || (r.lo <= o.lo && r.hi >= o.hi) }

func parseVersions(s string) (vrange, error) {
	if strings.HasSuffix(s, "+") {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "+"), 10, 16)
		return vrange{int16(n), math.MaxInt16}, err
	}
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err := strconv.ParseInt(a, 10, 16)
		if err != nil {
			return none, err
		}
		hi, err := strconv.ParseInt(b, 10, 16)
		return vrange{int16(lo), int16(hi)}, err
	}
	n, err := strconv.ParseInt(s, 10, 16)
	return vrange{int16(n), int16(n)}, err
}

// message is one record or control record definition.
type message struct {
	kind     string // "record" or "control"
	name     string
	key      int
	ctlName  string // Kafka's ControlRecordType name, for control records
	versions vrange
	doc      string
	root     *strct
	structs  []*strct // every struct of the message, root first
	common   map[string]*strct
	file     string
	line     int
}

type strct struct {
	kafkaName string
	goName    string
	fields    []*field
	msg       *message
}

type field struct {
	name     string // Kafka's name
	goName   string
	jsonName string
	typ      string // scalar type, or struct name
	array    bool
	sub      *strct // for struct-typed fields and arrays of structs
	versions vrange
	nullable vrange
	tagged   vrange
	tag      int // -1 when not tagged
	def      string
	hasDef   bool
	mapKey   bool
	doc      string
}

// scalarType reports a scalar field type of the schema language.
func scalarType(typ string) bool {
	switch typ {
	case "bool", "int8", "int16", "int32", "int64", "uint16", "float64", "string", "bytes", "uuid":
		return true
	}
	return false
}

// tokenize splits a line into words; "quoted text" is one word.
func tokenize(line string) ([]string, error) {
	var out []string
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '#':
			return out, nil
		case c == ' ' || c == '\t':
			i++
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				j++
			}
			if j == len(line) {
				return nil, fmt.Errorf("unterminated string")
			}
			out = append(out, line[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			out = append(out, line[i:j])
			i = j
		}
	}
	return out, nil
}

func unquote(s string) string { return strings.Trim(s, `"`) }

type parser struct {
	file  string
	line  int
	msgs  []*message
	cur   *message
	stack []*strct
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, p.line, fmt.Sprintf(format, args...))
}

func parseFile(path string) ([]*message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &parser{file: path}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p.line++
		toks, err := tokenize(sc.Text())
		if err != nil {
			return nil, p.errf("%v", err)
		}
		if len(toks) == 0 {
			continue
		}
		if err := p.handle(toks); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.cur != nil {
		return nil, p.errf("message %s has no end", p.cur.name)
	}
	return p.msgs, nil
}

func (p *parser) handle(toks []string) error {
	switch {
	case toks[0] == "record" || toks[0] == "control":
		if p.cur != nil {
			return p.errf("%s inside %s", toks[0], p.cur.name)
		}
		return p.startMessage(toks)
	case p.cur == nil:
		return p.errf("%q outside a message", toks[0])
	case toks[0] == "end":
		if len(p.stack) != 1 {
			return p.errf("end with an open struct")
		}
		p.msgs = append(p.msgs, p.cur)
		p.cur, p.stack = nil, nil
		return nil
	case toks[0] == "}":
		if len(p.stack) < 2 {
			return p.errf("unbalanced }")
		}
		p.stack = p.stack[:len(p.stack)-1]
		return nil
	case toks[0] == "struct":
		// struct NAME [gotype G] {
		if len(toks) < 3 || toks[len(toks)-1] != "{" {
			return p.errf("want: struct NAME [gotype G] {")
		}
		s := &strct{kafkaName: toks[1], goName: toks[1], msg: p.cur}
		if len(toks) == 5 && toks[2] == "gotype" {
			s.goName = toks[3]
		}
		p.cur.common[s.kafkaName] = s
		p.cur.structs = append(p.cur.structs, s)
		p.stack = append(p.stack, s)
		return nil
	}
	return p.fieldLine(toks)
}

func (p *parser) startMessage(toks []string) error {
	m := &message{kind: toks[0], name: toks[1], file: p.file, line: p.line, common: map[string]*strct{}}
	for i := 2; i < len(toks); i += 2 {
		if i+1 >= len(toks) {
			return p.errf("attribute %s has no value", toks[i])
		}
		k, v := toks[i], toks[i+1]
		switch k {
		case "apiKey", "type":
			n, err := strconv.Atoi(v)
			if err != nil {
				return p.errf("%s: %v", k, err)
			}
			m.key = n
		case "name":
			m.ctlName = v
		case "versions":
			r, err := parseVersions(v)
			if err != nil {
				return p.errf("versions: %v", err)
			}
			m.versions = r
		case "doc":
			m.doc = unquote(v)
		default:
			return p.errf("unknown message attribute %s", k)
		}
	}
	m.root = &strct{kafkaName: m.name, goName: m.name, msg: m}
	m.structs = []*strct{m.root}
	p.cur, p.stack = m, []*strct{m.root}
	return nil
}

func (p *parser) fieldLine(toks []string) error {
	if len(toks) < 3 {
		return p.errf("want: FIELD TYPE VERSIONS [attributes]")
	}
	f := &field{name: toks[0], tag: -1, nullable: none, tagged: none}
	f.goName = goFieldName(f.name)
	f.jsonName = string(unicode.ToLower(rune(f.name[0]))) + f.name[1:]
	typ := toks[1]
	if strings.HasPrefix(typ, "[]") {
		f.array = true
		typ = typ[2:]
	}
	f.typ = typ
	r, err := parseVersions(toks[2])
	if err != nil {
		return p.errf("versions of %s: %v", f.name, err)
	}
	f.versions = r
	opens, gotype, taggedSet, err := p.fieldAttrs(f, toks[3:])
	if err != nil {
		return err
	}
	if f.tag >= 0 && !taggedSet {
		f.tagged = f.versions
	}
	if taggedSet && f.tag < 0 {
		return p.errf("%s has tagged versions but no tag", f.name)
	}
	parent := p.stack[len(p.stack)-1]
	if !scalarType(typ) {
		if opens {
			s := &strct{kafkaName: typ, goName: typ, msg: p.cur}
			if gotype != "" {
				s.goName = gotype
			}
			f.sub = s
			p.cur.structs = append(p.cur.structs, s)
			parent.fields = append(parent.fields, f)
			p.stack = append(p.stack, s)
			return nil
		}
		s, ok := p.cur.common[typ]
		if !ok {
			return p.errf("%s: unknown type %s", f.name, typ)
		}
		f.sub = s
	} else if opens {
		return p.errf("%s: a scalar field cannot open a block", f.name)
	}
	parent.fields = append(parent.fields, f)
	return nil
}

// fieldAttrs reads the attributes of field f after its versions (rest) into
// f, and returns whether the line opens a block, the gotype attribute and
// whether tagged versions were given.
func (p *parser) fieldAttrs(f *field, rest []string) (opens bool, gotype string, taggedSet bool, err error) {
	for i := 0; i < len(rest); i++ {
		k := rest[i]
		arg := func() (string, error) {
			if i+1 >= len(rest) {
				return "", p.errf("%s of %s has no value", k, f.name)
			}
			i++
			return rest[i], nil
		}
		switch k {
		case "{":
			opens = true
		case "mapKey":
			f.mapKey = true
		case "nullable", "tagged":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			r, err := parseVersions(v)
			if err != nil {
				return false, "", false, p.errf("%s of %s: %v", k, f.name, err)
			}
			if k == "nullable" {
				f.nullable = r
			} else {
				f.tagged, taggedSet = r, true
			}
		case "tag":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			if f.tag, err = strconv.Atoi(v); err != nil {
				return false, "", false, p.errf("tag of %s: %v", f.name, err)
			}
		case "default":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			f.def, f.hasDef = v, true
		case "go":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			f.goName = v
		case "gotype":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			gotype = v
		case "doc":
			v, err := arg()
			if err != nil {
				return false, "", false, err
			}
			f.doc = unquote(v)
		default:
			return false, "", false, p.errf("unknown attribute %q of %s", k, f.name)
		}
	}
	return opens, gotype, taggedSet, nil
}

// goFieldName turns Kafka's field name into a Go name: the initialisms Id,
// Isr, Elr and Zk become ID, ISR, ELR and ZK.
func goFieldName(name string) string {
	var words []string
	start := 0
	for i := 1; i <= len(name); i++ {
		if i == len(name) || (unicode.IsUpper(rune(name[i])) && !unicode.IsUpper(rune(name[i-1]))) {
			words = append(words, name[start:i])
			start = i
		}
	}
	for i, w := range words {
		switch w {
		case "Id":
			words[i] = "ID"
		case "Ids":
			words[i] = "IDs"
		case "Isr":
			words[i] = "ISR"
		case "Elr":
			words[i] = "ELR"
		case "Zk":
			words[i] = "ZK"
		}
	}
	return strings.Join(words, "")
}

// envelopeName is Kafka's MetadataRecordType name for a record class name:
// upper snake case (PartitionChangeRecord -> PARTITION_CHANGE_RECORD).
func envelopeName(name string) string {
	var b strings.Builder
	for i, c := range name {
		if i > 0 && unicode.IsUpper(c) && !unicode.IsUpper(rune(name[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(c))
	}
	return b.String()
}

// check validates the model.
func check(msgs []*message) error {
	keys := map[string]map[int]string{}
	goNames := map[string]string{}
	for _, m := range msgs {
		if keys[m.kind] == nil {
			keys[m.kind] = map[int]string{}
		}
		if prev, ok := keys[m.kind][m.key]; ok {
			return fmt.Errorf("%s and %s share %s key %d", prev, m.name, m.kind, m.key)
		}
		keys[m.kind][m.key] = m.name
		if m.versions.empty() {
			return fmt.Errorf("%s has no versions", m.name)
		}
		for _, s := range m.structs {
			if prev, ok := goNames[s.goName]; ok {
				return fmt.Errorf("the Go type %s is used by %s and %s: give one a gotype", s.goName, prev, m.name)
			}
			goNames[s.goName] = m.name
			tags := map[int]bool{}
			for _, f := range s.fields {
				if !m.versions.contains(f.versions.intersect(m.versions)) {
					return fmt.Errorf("%s.%s: versions %s", m.name, f.name, f.versions)
				}
				if f.tag >= 0 {
					if tags[f.tag] {
						return fmt.Errorf("%s.%s: tag %d used twice", m.name, f.name, f.tag)
					}
					tags[f.tag] = true
					if f.tagged != f.versions {
						return fmt.Errorf("%s.%s: tagged versions %s differ from versions %s, which the generator does not support", m.name, f.name, f.tagged, f.versions)
					}
				}
				if f.array && f.sub == nil && f.typ != "int32" && f.typ != "uuid" && f.typ != "string" {
					return fmt.Errorf("%s.%s: arrays of %s are not supported", m.name, f.name, f.typ)
				}
				if f.sub != nil && !f.array && !f.nullable.empty() {
					return fmt.Errorf("%s.%s: nullable structs are not supported", m.name, f.name)
				}
				if !f.nullable.empty() && !(f.array || f.typ == "string" || f.typ == "bytes") {
					return fmt.Errorf("%s.%s: %s cannot be nullable", m.name, f.name, f.typ)
				}
				if f.hasDef && f.def == "null" && f.nullable.empty() {
					return fmt.Errorf("%s.%s: default null on a non-nullable field", m.name, f.name)
				}
			}
		}
	}
	return nil
}
