package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrincipalMapperAsKafka: the rules and answers of Kafka's
// SslPrincipalMapperTest (testValidRules, testSslPrincipalMapper,
// testCommaWithWhitespace, testInvalidRules), written afresh.
func TestPrincipalMapperAsKafka(t *testing.T) {
	rules := "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT"
	m, err := ParsePrincipalMappingRules(rules)
	require.NoError(t, err)
	for dn, want := range map[string]string{
		"CN=Duke,OU=ServiceUsers,O=Org,C=US":        "duke",
		"CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US": "duke@sme",
		"cn=duke,ou=JavaSoft,dc=example,dc=com":     "DUKE@JAVASOFT",
		"cN=duke,OU=JavaSoft,O=Sun Microsystems":    "DUKE",
		"OU=JavaSoft,O=Sun Microsystems,C=US":       "OU=JavaSoft,O=Sun Microsystems,C=US",
	} {
		got, err := m.Name(dn)
		require.NoError(t, err, dn)
		require.Equal(t, want, got, dn)
	}
	m, err = ParsePrincipalMappingRules(`RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/,DEFAULT`)
	require.NoError(t, err)
	got, err := m.Name("CN=kafka,OU=ServiceUsers")
	require.NoError(t, err)
	require.Equal(t, "kafka", got)
	m, err = ParsePrincipalMappingRules(`RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT`)
	require.NoError(t, err)
	got, err = m.Name(`CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz`)
	require.NoError(t, err)
	require.Equal(t, `Tkac\, Adam`, got)
	m, err = ParsePrincipalMappingRules("RULE:^CN=(.*),OU=A$/$1/")
	require.NoError(t, err)
	_, err = m.Name("CN=x,OU=B")
	require.ErrorIs(t, err, ErrNoMatchingRule)
	for _, bad := range []string{"default", "DEFAUL", "DEFAULT/L", "DEFAULT/U", "RULE:CN=(.*?),OU=ServiceUsers.*/$1", "RULE:CN=(.*?),OU=ServiceUsers.*/$1/LU", "RULE:CN=(.*?),OU=ServiceUsers.*/$1/L/U", "RULE:CN=(.*?),OU=ServiceUsers.*/$1/U/L", "RULE:CN=(.*?),OU=ServiceUsers.*/$1/LL"} {
		_, err := ParsePrincipalMappingRules(bad)
		require.Error(t, err, bad)
	}
}
