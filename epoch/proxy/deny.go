package proxy

import (
	"encoding/binary"
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/authz"
)

// denyResponse is the whole response frame refusing req, built as Kafka's
// AbstractRequest.getErrorResponse builds an error answer: the top-level
// error code (where the answer has one) set to whole, and one entry per
// entry of the request (topics and their partitions, groups, resources,
// transactional ids), named as in the request, each with its resource's
// error code from denied or, failing that, the whole request's.
func denyResponse(h Header, req kmsg.Request, denied map[resKey]int16, whole int16) []byte {
	resp := denyAnswer(h, req, denied, whole)
	out := binary.BigEndian.AppendUint32(nil, 0)
	out = binary.BigEndian.AppendUint32(out, uint32(h.CorrelationID))
	if flexibleResponseHeader(h.APIKey, h.APIVersion) {
		out = append(out, 0)
	}
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// denyCode is the error code a request denied whole is counted with
// (Observer.Request): whole, or else the lowest of its denied resources'.
func denyCode(denied map[resKey]int16, whole int16) int16 {
	if whole != 0 {
		return whole
	}
	code := int16(0)
	for _, c := range denied {
		if code == 0 || c < code {
			code = c
		}
	}
	return code
}

// denyAnswer is denyResponse's answer, decoded.
func denyAnswer(h Header, req kmsg.Request, denied map[resKey]int16, whole int16) kmsg.Response {
	resp := req.ResponseKind()
	resp.SetVersion(h.APIVersion)
	fallback := whole
	if fallback == 0 {
		for _, c := range denied {
			fallback = c // a mixed request is refused whole
			break
		}
	}
	d := denier{denied: denied, fallback: fallback}
	rv, qv := reflect.ValueOf(resp).Elem(), reflect.ValueOf(req).Elem()
	if whole != 0 {
		if ec := rv.FieldByName("ErrorCode"); ec.IsValid() && ec.Kind() == reflect.Int16 {
			ec.SetInt(int64(whole))
		}
	}
	d.mirror(qv, rv, 0)
	return resp
}

type denier struct {
	denied   map[resKey]int16
	fallback int16
}

// entryAliases are request fields whose entries the response lists under
// another name.
var entryAliases = [...][2]string{{"Topics", "TopicNames"}, {"Groups", "Groups"}, {"Resources", "Resources"}, {"TransactionalIDs", "TransactionalIDs"}, {"Coordinators", "CoordinatorKeys"}}

// mirror fills the slices of the response struct rv with one entry per
// entry of the request struct qv's slice of the same name, copying the
// fields both have and setting each entry's ErrorCode.
func (d denier) mirror(qv, rv reflect.Value, depth int) {
	if depth > 4 {
		return
	}
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Struct {
			continue
		}
		src := qv.FieldByName(f.Name)
		if !src.IsValid() || src.Kind() != reflect.Slice || src.Len() == 0 {
			for _, al := range entryAliases {
				if al[0] == f.Name {
					src = qv.FieldByName(al[1])
				}
			}
		}
		if !src.IsValid() || src.Kind() != reflect.Slice {
			continue
		}
		dst := reflect.MakeSlice(f.Type, src.Len(), src.Len())
		for j := range src.Len() {
			e := dst.Index(j)
			if dm := e.Addr().MethodByName("Default"); dm.IsValid() {
				dm.Call(nil)
			}
			if hw := e.FieldByName("HighWatermark"); hw.IsValid() && hw.Kind() == reflect.Int64 {
				hw.SetInt(-1) // FetchResponse.INVALID_HIGH_WATERMARK, as partitionResponse sets it
			}
			s := src.Index(j)
			if s.Kind() == reflect.String { // a list of names: the entry's name
				setName(e, s.String())
			} else if s.Kind() == reflect.Struct {
				copyScalars(s, e)
				d.mirror(s, e, depth+1)
			}
			if ec := e.FieldByName("ErrorCode"); ec.IsValid() && ec.Kind() == reflect.Int16 {
				ec.SetInt(int64(d.code(e)))
			}
		}
		rv.Field(i).Set(dst)
	}
}

// code is the error code of a response entry: its resource's, by the name
// fields it carries, else the fallback.
func (d denier) code(e reflect.Value) int16 {
	for _, f := range []struct {
		field string
		rt    authz.ResourceType
	}{{"Topic", rtTopic}, {"Name", rtTopic}, {"Group", rtGroup}, {"TransactionalID", rtTxn}, {"ResourceName", 0}, {"Key", 0}} {
		v := e.FieldByName(f.field)
		name := ""
		switch {
		case !v.IsValid():
			continue
		case v.Kind() == reflect.String:
			name = v.String()
		case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.String:
			name = v.Elem().String()
		default:
			continue
		}
		for k, c := range d.denied {
			if k.name == name && (f.rt == 0 || k.rt == f.rt) {
				return c
			}
		}
	}
	return d.fallback
}

// copyScalars copies the fields of src that dst has with the same name and
// type (names, ids, partition numbers, resource types), and a string into
// a *string of the same name.
func copyScalars(src, dst reflect.Value) {
	st := src.Type()
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() || f.Name == "ErrorCode" {
			continue
		}
		df := dst.FieldByName(f.Name)
		if !df.IsValid() || !df.CanSet() {
			continue
		}
		sv := src.Field(i)
		switch {
		case df.Type() == f.Type && (f.Type.Kind() != reflect.Slice && f.Type.Kind() != reflect.Struct || f.Type.Kind() == reflect.Array):
			df.Set(sv)
		case f.Type.Kind() == reflect.Array && df.Type() == f.Type:
			df.Set(sv)
		case f.Type.Kind() == reflect.String && df.Kind() == reflect.Pointer && df.Type().Elem().Kind() == reflect.String:
			s := sv.String()
			df.Set(reflect.ValueOf(&s))
		}
	}
}

// setName sets the name field of an entry built from a list of names.
func setName(e reflect.Value, name string) {
	for _, f := range []string{"Topic", "Name", "Group", "TransactionalID", "Key"} {
		v := e.FieldByName(f)
		switch {
		case !v.IsValid():
		case v.Kind() == reflect.String:
			v.SetString(name)
			return
		case v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.String:
			v.Set(reflect.ValueOf(&name))
			return
		}
	}
}
