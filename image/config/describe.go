package config

import (
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// The messages of the errors DescribeConfigs answers with (Errors.message,
// the exceptions ConfigHelper throws).
const (
	msgTopicAuthorization   = "Topic authorization failed."
	msgGroupAuthorization   = "Group authorization failed."
	msgClusterAuthorization = "Cluster authorization failed."
)

// DescribeConfigs answers req as ConfigHelper.handleDescribeConfigsRequest
// does on this broker over img: TOPIC, BROKER ("" for the cluster default,
// this broker's id), GROUP and CLIENT_METRICS resources, each authorized
// with DESCRIBE_CONFIGS on the topic, the group or the cluster through a
// (nil allows everything). Authorized resources come first, then the
// unauthorized ones, each in request order. Entries are in the order
// Kafka's HashMaps iterate them. Documentation is null: kmeta does not
// carry Kafka's documentation strings. A BROKER_LOGGER resource of this
// broker answers no loggers (they are the broker process's runtime state).
// The response has req's version.
func (b *Broker) DescribeConfigs(img *image.Image, req *kmsg.DescribeConfigsRequest, a authz.Authorizer, ctx authz.Context) *kmsg.DescribeConfigsResponse {
	resp := kmsg.NewPtrDescribeConfigsResponse()
	resp.Version = req.Version
	allow := func(rt authz.ResourceType, name string) bool {
		return a == nil || a.Authorize(ctx, authz.OpDescribeConfigs, rt, name)
	}
	var denied []kmsg.DescribeConfigsResponseResource
	for i := range req.Resources {
		r := &req.Resources[i]
		var ok bool
		var code kafkaerr.Code
		var msg string
		switch image.ConfigTypeForID(int8(r.ResourceType)) {
		case image.ConfigBroker, image.ConfigBrokerLogger, image.ConfigClientMetrics:
			ok, code, msg = allow(authz.ResourceCluster, authz.ClusterName), kafkaerr.ClusterAuthorizationFailed, msgClusterAuthorization
		case image.ConfigTopic:
			ok, code, msg = allow(authz.ResourceTopic, r.ResourceName), kafkaerr.TopicAuthorizationFailed, msgTopicAuthorization
		case image.ConfigGroup:
			ok, code, msg = allow(authz.ResourceGroup, r.ResourceName), kafkaerr.GroupAuthorizationFailed, msgGroupAuthorization
		default:
			return invalidDescribe(req, resp)
		}
		if !ok {
			denied = append(denied, errResult(r, code, &msg))
			continue
		}
		resp.Resources = append(resp.Resources, b.describeOne(img, r, req.IncludeSynonyms))
	}
	resp.Resources = append(resp.Resources, denied...)
	return resp
}

// invalidDescribe is DescribeConfigsRequest.getErrorResponse for a request
// naming a resource type ConfigHelper does not know: every resource
// INVALID_REQUEST.
func invalidDescribe(req *kmsg.DescribeConfigsRequest, resp *kmsg.DescribeConfigsResponse) *kmsg.DescribeConfigsResponse {
	msg := kafkaerr.InvalidRequest.Message()
	resp.Resources = resp.Resources[:0]
	for i := range req.Resources {
		r := errResult(&req.Resources[i], kafkaerr.InvalidRequest, &msg)
		r.Configs = nil
		resp.Resources = append(resp.Resources, r)
	}
	return resp
}

func errResult(r *kmsg.DescribeConfigsRequestResource, code kafkaerr.Code, msg *string) kmsg.DescribeConfigsResponseResource {
	out := kmsg.NewDescribeConfigsResponseResource()
	out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
	out.ErrorCode, out.ErrorMessage = int16(code), msg
	out.Configs = []kmsg.DescribeConfigsResponseResourceConfig{}
	return out
}

// describeOne is ConfigHelper.describeConfigs for one authorized resource.
func (b *Broker) describeOne(img *image.Image, r *kmsg.DescribeConfigsRequestResource, syn bool) kmsg.DescribeConfigsResponseResource {
	name := r.ResourceName
	invalid := func(m string) kmsg.DescribeConfigsResponseResource {
		return errResult(r, kafkaerr.InvalidRequest, &m)
	}
	// DescribeConfigsResult's ErrorMessage defaults to "" where ConfigHelper
	// sets none.
	empty := ""
	out := errResult(r, kafkaerr.None, &empty)
	d := describer{b: b, keys: r.ConfigNames, syn: syn}
	// A topic's entries have about two synonyms each (the broker layers
	// that set the synonym, Kafka's default); the source needs them even
	// when they are not listed.
	d.syns = make([]kmsg.DescribeConfigsResponseResourceConfigConfigSynonym, 0, 96)
	switch image.ConfigTypeForID(int8(r.ResourceType)) {
	case image.ConfigTopic:
		if reason := invalidTopicName(name); reason != "" {
			m := "Topic name is invalid: " + reason
			return errResult(r, kafkaerr.InvalidTopic, &m)
		}
		if _, ok := img.Topics().ByName(name); !ok {
			return errResult(r, kafkaerr.UnknownTopicOrPartition, &empty)
		}
		cfgs, err := d.topic(img.Configs().Entries(image.ConfigResource{Type: image.ConfigTopic, Name: name}))
		if err != nil {
			return errResult(r, kafkaerr.UnknownServerError, nil) // a ConfigException: no message
		}
		out.Configs = cfgs
	case image.ConfigBroker:
		if name == "" {
			out.Configs = d.brokerDefault()
			break
		}
		id, err := javaParseInt32(name)
		if err != nil {
			return invalid("Broker id must be an integer, but it is: " + name)
		}
		if id != b.id {
			return invalid("Unexpected broker id, expected " + strconv.Itoa(int(b.id)) + " or empty string, but received " + name)
		}
		out.Configs = d.broker()
	case image.ConfigBrokerLogger:
		if name == "" {
			return invalid("Broker id must not be empty")
		}
		id, err := javaParseInt32(name)
		if err != nil {
			return invalid("Broker id must be an integer, but it is: " + name)
		}
		if id != b.id {
			return invalid("Unexpected broker id, expected " + strconv.Itoa(int(b.id)) + " but received " + name)
		}
	case image.ConfigClientMetrics:
		if name == "" {
			return invalid("Client metrics subscription name must not be empty")
		}
		cfgs, err := d.clientMetrics(img.Configs().Entries(image.ConfigResource{Type: image.ConfigClientMetrics, Name: name}))
		if err != nil {
			return errResult(r, kafkaerr.UnknownServerError, nil)
		}
		out.Configs = cfgs
	case image.ConfigGroup:
		if name == "" {
			return invalid("Group name must not be empty")
		}
		cfgs, err := d.group(img.Configs().Entries(image.ConfigResource{Type: image.ConfigGroup, Name: name}))
		if err != nil {
			return errResult(r, kafkaerr.UnknownServerError, nil)
		}
		out.Configs = cfgs
	}
	return out
}

func javaParseInt32(s string) (int32, error) {
	x, ok := javaParseInt(s, 32)
	if !ok {
		return 0, strconv.ErrSyntax
	}
	return int32(x), nil
}

// invalidTopicName is Topic.detectInvalidTopic: why name is not a legal
// topic name, or "".
func invalidTopicName(name string) string {
	switch {
	case name == "":
		return "the empty string is not allowed"
	case name == ".":
		return "'.' is not allowed"
	case name == "..":
		return "'..' is not allowed"
	case len(utf16.Encode([]rune(name))) > 249:
		return "the length of '" + name + "' is longer than the max allowed length 249"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "'" + name + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
		}
	}
	return ""
}

// describer builds the entries of one resource (ConfigHelper's
// create*ConfigEntry) for the keys asked (all when keys is empty). The
// values and synonyms of a resource's entries share strs and syns.
type describer struct {
	b    *Broker
	keys []string
	syn  bool
	strs []string
	syns []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym
}

func (d *describer) wanted(name string) bool {
	return len(d.keys) == 0 || slices.Contains(d.keys, name)
}

// str is a pointer to a copy of v that lives as long as the answer.
func (d *describer) str(v string) *string {
	if len(d.strs) == cap(d.strs) {
		d.strs = make([]string, 0, 64)
	}
	d.strs = append(d.strs, v)
	return &d.strs[len(d.strs)-1]
}

// hide is v, or null for a sensitive config.
func (d *describer) hide(v string, sensitive bool) *string {
	if sensitive {
		return nil
	}
	return d.str(v)
}

// addSyn appends one synonym to the resource's synonyms.
func (d *describer) addSyn(name string, value *string, src int8) {
	if len(d.syns) == cap(d.syns) {
		d.syns = slices.Grow(d.syns, 64)
	}
	s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
	s.Name, s.Value, s.Source = name, value, kmsg.ConfigSource(src)
	d.syns = append(d.syns, s)
}

// synsFrom is the synonyms appended since start.
func (d *describer) synsFrom(start int) []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym {
	n := len(d.syns)
	return d.syns[start:n:n]
}

// entry is one DescribeConfigsResourceResult: its source is the first
// synonym's, else DEFAULT_CONFIG; its synonyms are listed only when asked.
func (d *describer) entry(name string, value *string, all []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym, sensitive, readOnly bool, t Type) kmsg.DescribeConfigsResponseResourceConfig {
	e := kmsg.NewDescribeConfigsResponseResourceConfig()
	e.Name, e.Value, e.IsSensitive, e.ReadOnly = name, value, sensitive, readOnly
	e.Source = kmsg.ConfigSource(SourceDefaultConfig)
	if len(all) > 0 {
		e.Source = all[0].Source
	}
	if d.syn {
		e.ConfigSynonyms = all
	} else {
		e.ConfigSynonyms = all[:0:0]
	}
	e.ConfigType = kmsg.ConfigType(t.ResponseType())
	return e
}

// configSynonyms is ConfigHelper.configSynonyms: it appends the broker
// layers' values of synonyms (per-broker, cluster default, static, Kafka's
// default), from the first that is name itself.
func (d *describer) configSynonyms(name string, synonyms []string, sensitive bool) {
	start := len(d.syns)
	add := func(m map[string]string, src int8) {
		for _, s := range synonyms {
			if v, ok := m[s]; ok {
				d.addSyn(s, d.hide(v, sensitive), src)
			}
		}
	}
	add(d.b.dynBroker, SourceDynamicBrokerConfig)
	add(d.b.dynDefault, SourceDynamicDefaultBrokerConfig)
	add(d.b.static, SourceStaticBrokerConfig)
	for _, s := range synonyms {
		if def, ok := Lookup(BrokerSet, s); ok && def.HasDefault {
			d.addSyn(s, d.hide(def.Default, sensitive), SourceDefaultConfig)
		}
	}
	i := start
	for i < len(d.syns) && d.syns[i].Name != name {
		i++
	}
	n := copy(d.syns[start:], d.syns[i:])
	d.syns = d.syns[:start+n]
}

// hashCapacity is the table size of a HashMap copied from a map of n
// entries (HashMap(Map), putAll into an empty map).
func hashCapacity(n int) int {
	t := int(float32(n)/0.75 + 1)
	if t <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(t-1))
}

// extraKeys are the keys of originals that are not in a config's
// nonInternalValues, in the originals copy's iteration order (ConfigHelperUtils.createResponseConfig
// lists them first).
func extraKeys(originals map[string]string, known func(string) bool) []string {
	var ks []string
	for k := range originals {
		if !known(k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	slices.Sort(ks)
	javaOrder(ks, hashCapacity(len(originals)))
	return ks
}

// orderedExtraKeys is extraKeys for originals whose keys were put in the
// order given (two keys of one bucket keep it).
func orderedExtraKeys(originals map[string]string, order []string, known func(string) bool) []string {
	var ks []string
	for _, k := range order {
		if _, ok := originals[k]; ok && !known(k) {
			ks = append(ks, k)
		}
	}
	javaOrder(ks, hashCapacity(len(originals)))
	return ks
}
