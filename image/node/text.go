package node

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// controllerString is ControllerRegistration.toString.
func controllerString(c *image.Controller) string {
	var s strings.Builder
	fmt.Fprintf(&s, "ControllerRegistration(id=%d, incarnationId=%s, zkMigrationReady=%t, listeners=[", c.ID(), c.IncarnationID(), c.ZKMigrationReady())
	for i, e := range c.Listeners() {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "Endpoint(listenerName='%s', securityProtocol=%s, host='%s', port=%d)", e.Name, securityProtocol(e.SecurityProtocol), e.Host, e.Port)
	}
	s.WriteString("], supportedFeatures={")
	for i, f := range c.SupportedFeatures() {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "%s: %d-%d", f.Name, f.Min, f.Max)
	}
	s.WriteString("})")
	return s.String()
}

// securityProtocol is SecurityProtocol's name for its id, or the id.
func securityProtocol(p int16) string {
	if n, ok := enumName([]string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}, int(p)); ok {
		return n
	}
	return strconv.Itoa(int(p))
}

func enumName(names []string, i int) (string, bool) {
	if i >= 0 && i < len(names) {
		return names[i], true
	}
	return "", false
}

// aclString is StandardAcl's record toString.
func aclString(a image.ACL) string {
	name := func(names []string, v int8) string {
		if n, ok := enumName(names, int(v)); ok {
			return n
		}
		return "UNKNOWN"
	}
	return fmt.Sprintf("StandardAcl[resourceType=%s, resourceName=%s, patternType=%s, principal=%s, host=%s, operation=%s, permissionType=%s]",
		name([]string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}, a.ResourceType),
		a.ResourceName,
		name([]string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}, a.PatternType),
		a.Principal, a.Host,
		name([]string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
			"DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"}, a.Operation),
		name([]string{"UNKNOWN", "ANY", "DENY", "ALLOW"}, a.PermissionType))
}

// configResourceName is ConfigurationsImageNode's name of a resource: the
// type, then ":" and the name unless it is the default resource.
func configResourceName(r image.ConfigResource) string {
	t := configTypeName(r.Type)
	if r.Name == "" {
		return t
	}
	return t + ":" + r.Name
}

// configTypeName is ConfigResource.Type's name.
func configTypeName(t image.ConfigType) string {
	switch t {
	case 2:
		return "TOPIC"
	case 4:
		return "BROKER"
	case 8:
		return "BROKER_LOGGER"
	case 16:
		return "CLIENT_METRICS"
	case 32:
		return "GROUP"
	}
	return "UNKNOWN"
}

// quotaEntityName is ClientQuotasImageNode.clientQuotaEntityToString:
// clientId, ip, then user, joined by "_", with \, ( and ) escaped.
func quotaEntityName(e *image.QuotaEntity) string {
	vals := map[string]string{}
	for _, p := range e.Parts() {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		vals[p.Type] = name
	}
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	var parts []string
	for _, k := range []struct{ typ, label string }{{"client-id", "clientId"}, {"ip", "ip"}, {"user", "user"}} {
		if v, ok := vals[k.typ]; ok {
			parts = append(parts, k.label+"("+esc.Replace(v)+")")
		}
	}
	return strings.Join(parts, "_")
}

// javaDouble prints f as Java's Double.toString does: the shortest decimal
// that reads back as f, in plain notation from 10^-3 up to 10^7 (with ".0"
// when whole), else as computerized scientific notation (1.0E-5, 1.5E7).
func javaDouble(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return "Infinity"
		}
		return "-Infinity"
	}
	a := math.Abs(f)
	if a == 0 || (a >= 1e-3 && a < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64)
	m, e, _ := strings.Cut(s, "E")
	if !strings.Contains(m, ".") {
		m += ".0"
	}
	sign := ""
	if e[0] == '-' {
		sign = "-"
	}
	return m + "E" + sign + strings.TrimLeft(e[1:], "0")
}
