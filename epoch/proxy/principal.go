package proxy

import (
	"crypto/tls"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Anonymous is the principal of a client that authenticated neither with
// SASL nor with a TLS client certificate (KafkaPrincipal.ANONYMOUS).
const Anonymous = "User:ANONYMOUS"

// PrincipalMapper is Kafka's SslPrincipalMapper: ssl.principal.mapping.rules
// turning a client certificate's distinguished name into the name of its
// User principal. Rules are tried in order, the first that applies wins;
// DEFAULT is the distinguished name itself; RULE:pattern/replacement/ with
// an optional L or U suffix applies when pattern matches the whole name,
// then is the name with pattern replaced by replacement ($n back
// references, Java's replaceAll), lower- or upper-cased.
//
// The patterns are Go regular expressions (RE2): a rule using what Java's
// regular expressions have and RE2 has not (back references inside the
// pattern, lookaround) is refused when parsed. The distinguished name is
// the certificate subject in RFC 2253 form (X500Principal.getName();
// crypto/x509's pkix.Name.String).
type PrincipalMapper struct {
	rules []mappingRule
}

type mappingRule struct {
	isDefault  bool
	re         *regexp.Regexp
	whole      *regexp.Regexp // re anchored at both ends (Matcher.matches)
	repl       string         // Java replacement syntax, literal back references escaped
	lower      bool
	upper      bool
	rawPattern string
}

// ruleSplitter and ruleParser are SslPrincipalMapper's RULE_SPLITTER and
// RULE_PARSER.
const rulePattern = `(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`

// ParsePrincipalMappingRules parses ssl.principal.mapping.rules as
// SslPrincipalMapper's constructor does ("" is "DEFAULT", Kafka's
// default). An invalid rule is an error naming it.
func ParsePrincipalMappingRules(rules string) (*PrincipalMapper, error) {
	if strings.TrimSpace(rules) == "" {
		rules = "DEFAULT"
	}
	splitter := regexp.MustCompile(`\s*(` + rulePattern + `)\s*(,\s*|$)`)
	parser := regexp.MustCompile(`^(?:` + rulePattern + `)`)
	m := &PrincipalMapper{}
	for _, sm := range splitter.FindAllStringSubmatch(strings.TrimSpace(rules), -1) {
		rule := sm[1]
		g := parser.FindStringSubmatchIndex(rule)
		if g == nil {
			return nil, fmt.Errorf("ssl.principal.mapping.rules: invalid rule: %s", rule)
		}
		if g[1] != len(rule) {
			return nil, fmt.Errorf("ssl.principal.mapping.rules: invalid rule: `%s`, unmatched substring: `%s`", rule, rule[g[1]:])
		}
		group := func(i int) (string, bool) {
			if g[2*i] < 0 {
				return "", false
			}
			return rule[g[2*i]:g[2*i+1]], true
		}
		if _, ok := group(1); ok {
			m.rules = append(m.rules, mappingRule{isDefault: true})
			continue
		}
		pat, ok := group(2)
		if !ok {
			continue // an empty rule is ignored
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("ssl.principal.mapping.rules: rule %s: pattern: %w", rule, err)
		}
		whole := regexp.MustCompile(`^(?:` + pat + `)$`)
		repl, _ := group(4)
		flag, _ := group(6)
		m.rules = append(m.rules, mappingRule{re: re, whole: whole, repl: escapeLiteralBackReferences(repl, re.NumSubexp()), lower: flag == "L", upper: flag == "U", rawPattern: pat})
	}
	return m, nil
}

// ErrNoMatchingRule is SslPrincipalMapper.NoMatchingRule: no rule applies
// to a distinguished name, and the client is not authenticated.
var ErrNoMatchingRule = errors.New("no rules apply")

// Name is SslPrincipalMapper.getName: the principal name of the
// distinguished name dn.
func (m *PrincipalMapper) Name(dn string) (string, error) {
	for _, r := range m.rules {
		if r.isDefault {
			return dn, nil
		}
		if !r.whole.MatchString(dn) { // Matcher.matches
			continue
		}
		name, err := javaReplaceAll(r.re, dn, r.repl)
		if err != nil {
			return "", fmt.Errorf("rule RULE:%s/%s/: %w", r.rawPattern, r.repl, err)
		}
		switch {
		case r.lower:
			name = strings.ToLower(name)
		case r.upper:
			name = strings.ToUpper(name)
		}
		return name, nil
	}
	return "", fmt.Errorf("%w to %s", ErrNoMatchingRule, dn)
}

// escapeLiteralBackReferences is SslPrincipalMapper.Rule's: a back
// reference $n beyond the pattern's groups (after dropping trailing digits
// while n >= 10) is made a literal "$n".
func escapeLiteralBackReferences(repl string, groups int) string {
	if groups == 0 {
		return repl
	}
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '$' || i+1 >= len(repl) || repl[i+1] < '1' || repl[i+1] > '9' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		n := 0
		for j < len(repl) && repl[j] >= '0' && repl[j] <= '9' {
			n = n*10 + int(repl[j]-'0')
			j++
		}
		for n > groups && n >= 10 {
			n /= 10
		}
		if n > groups {
			b.WriteByte('\\')
		}
		b.WriteByte('$')
	}
	return b.String()
}

// javaReplaceAll is String.replaceAll(pattern, replacement) for a pattern
// that matched all of s: the replacement with Java's syntax ($n, the
// longest group number the pattern has; \c, c literally).
func javaReplaceAll(re *regexp.Regexp, s, repl string) (string, error) {
	var out strings.Builder
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		out.WriteString(s[last:loc[0]])
		if err := appendJavaReplacement(&out, s, loc, repl, re.NumSubexp()); err != nil {
			return "", err
		}
		last = loc[1]
	}
	out.WriteString(s[last:])
	return out.String(), nil
}

// appendJavaReplacement is Matcher.appendReplacement's expansion of repl
// for the match loc.
func appendJavaReplacement(out *strings.Builder, s string, loc []int, repl string, groups int) error {
	for i := 0; i < len(repl); i++ {
		switch c := repl[i]; {
		case c == '\\':
			i++
			if i >= len(repl) {
				return errors.New("character to be escaped is missing")
			}
			out.WriteByte(repl[i])
		case c == '$':
			i++
			if i >= len(repl) || repl[i] < '0' || repl[i] > '9' {
				return errors.New("illegal group reference")
			}
			n := int(repl[i] - '0')
			if n > groups {
				return fmt.Errorf("no group %d", n)
			}
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' && n*10+int(repl[i+1]-'0') <= groups {
				i++
				n = n*10 + int(repl[i]-'0')
			}
			if loc[2*n] >= 0 {
				out.WriteString(s[loc[2*n]:loc[2*n+1]])
			}
		default:
			out.WriteByte(c)
		}
	}
	return nil
}

// TLSPrincipal is the principal of a TLS connection as Kafka's
// DefaultKafkaPrincipalBuilder builds it: User:<name> for a verified client
// certificate (its subject mapped by m), else User:ANONYMOUS.
func TLSPrincipal(st *tls.ConnectionState, m *PrincipalMapper) (string, error) {
	if st == nil || len(st.PeerCertificates) == 0 {
		return Anonymous, nil
	}
	if m == nil {
		m = &PrincipalMapper{rules: []mappingRule{{isDefault: true}}}
	}
	name, err := m.Name(st.PeerCertificates[0].Subject.String())
	if err != nil {
		return "", err
	}
	return "User:" + name, nil
}
