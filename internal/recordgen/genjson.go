package main

import "math"

// The JSON half of each generated struct: appendJSON, the form of Kafka's
// generated JsonConverters (…JsonConverter.write), and fromJSON, which reads
// it back (…JsonConverter.read).

func (g *gen) emitJSONValue(f *field, m *message) {
	x := "m." + f.goName
	nl := nullableArg(f, m)
	if f.array {
		switch {
		case f.sub != nil:
			g.p("if %s == nil && %s { b = append(b, \"null\"...) } else {", x, nl)
			g.p("b = append(b, '[')")
			g.p("for i := range %s { if i > 0 { b = append(b, ',') }; b = %s[i].appendJSON(b, v) }", x, x)
			g.p("b = append(b, ']')")
			g.p("}")
		case f.typ == "int32":
			g.p("b = appendJSONInt32s(b, %s, %s)", x, nl)
		case f.typ == "uuid":
			g.p("b = appendJSONUUIDs(b, %s, %s)", x, nl)
		case f.typ == "string":
			g.p("b = appendJSONStrings(b, %s, %s)", x, nl)
		}
		return
	}
	if f.sub != nil {
		g.p("b = %s.appendJSON(b, v)", x)
		return
	}
	switch f.typ {
	case "bool":
		g.p("b = appendJSONBool(b, %s)", x)
	case "int8", "int16", "uint16", "int32", "int64":
		g.p("b = appendJSONInt(b, int64(%s))", x)
	case "float64":
		g.p("b = appendJSONDouble(b, %s)", x)
	case "uuid":
		g.p("b = appendJSONUUID(b, %s)", x)
	case "string":
		if !f.nullable.empty() {
			g.p("b = appendJSONNullableString(b, %s)", x)
		} else {
			g.p("b = appendJSONString(b, %s)", x)
		}
	case "bytes":
		g.p("b = appendJSONBytes(b, %s, %s)", x, nl)
	}
}

func (g *gen) appendJSON(s *strct) {
	m := s.msg
	g.p("func (m *%s) appendJSON(b []byte, v int16) []byte {", s.goName)
	g.p("_ = v")
	g.p("b = append(b, '{')")
	g.p("start := len(b)")
	g.p("_ = start")
	for _, f := range s.fields {
		c := cond(f.versions, m)
		if f.tag >= 0 {
			if c == "" {
				c = nonDefault(f)
			} else {
				c = c + " && " + nonDefault(f)
			}
		}
		o := g.open(c)
		g.p("if len(b) > start { b = append(b, ',') }")
		g.p("b = append(b, `\"%s\":`...)", f.jsonName)
		g.emitJSONValue(f, m)
		g.close(o)
	}
	g.p("return append(b, '}')")
	g.p("}")
	g.p("")
}

func intRange(t string) (int64, int64) {
	switch t {
	case "int8":
		return math.MinInt8, math.MaxInt8
	case "int16":
		return math.MinInt16, math.MaxInt16
	case "uint16":
		return 0, math.MaxUint16
	case "int32":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func (g *gen) fromJSON(s *strct) {
	m := s.msg
	g.p("func (m *%s) fromJSON(o jsonObject, v int16) error {", s.goName)
	g.p("_ = v")
	g.p("m.Default()")
	for _, f := range s.fields {
		x := "m." + f.goName
		g.p("if raw, ok := o[%q]; !ok {", f.jsonName)
		if f.tag < 0 {
			c := cond(f.versions, m)
			if c == "" {
				c = "true"
			}
			g.p("if %s { return missingFieldError(%q, %q, v) }", c, s.goName, f.jsonName)
		}
		g.p("} else {")
		nl := nullableArg(f, m)
		name := f.jsonName
		switch {
		case f.array && f.sub != nil:
			g.p("elems, isNull, err := jsonArray(raw, %q, %s)", name, nl)
			g.p("if err != nil { return err }")
			g.p("if !isNull {")
			g.p("%s = make([]%s, len(elems))", x, f.sub.goName)
			g.p("for i, e := range elems {")
			g.p("eo, err := parseJSONObject(e, %q)", name)
			g.p("if err != nil { return err }")
			g.p("if err := %s[i].fromJSON(eo, v); err != nil { return err }", x)
			g.p("}")
			g.p("}")
		case f.array:
			fn := map[string]string{"int32": "jsonInt32s", "uuid": "jsonUUIDs", "string": "jsonStrings"}[f.typ]
			g.p("val, err := %s(raw, %q, %s)", fn, name, nl)
			g.p("if err != nil { return err }")
			g.p("%s = val", x)
		case f.sub != nil:
			g.p("eo, err := parseJSONObject(raw, %q)", name)
			g.p("if err != nil { return err }")
			g.p("if err := %s.fromJSON(eo, v); err != nil { return err }", x)
		default:
			switch f.typ {
			case "bool":
				g.p("val, err := jsonBool(raw, %q)", name)
				g.p("if err != nil { return err }")
				g.p("%s = val", x)
			case "int8", "int16", "uint16", "int32", "int64":
				lo, hi := intRange(f.typ)
				g.p("val, err := jsonInt(raw, %q, %d, %d)", name, lo, hi)
				g.p("if err != nil { return err }")
				g.p("%s = %s(val)", x, f.typ)
			case "float64":
				g.p("val, err := jsonDouble(raw, %q)", name)
				g.p("if err != nil { return err }")
				g.p("%s = val", x)
			case "uuid":
				g.p("val, err := jsonUUID(raw, %q)", name)
				g.p("if err != nil { return err }")
				g.p("%s = val", x)
			case "string":
				if f.nullable.empty() {
					g.p("val, err := jsonString(raw, %q)", name)
				} else {
					g.p("val, err := jsonNullableString(raw, %q)", name)
				}
				g.p("if err != nil { return err }")
				g.p("%s = val", x)
			case "bytes":
				g.p("val, err := jsonBytes(raw, %q, %s)", name, nl)
				g.p("if err != nil { return err }")
				g.p("%s = val", x)
			}
		}
		g.p("}")
	}
	g.p("return nil")
	g.p("}")
	g.p("")
}
