package proxy_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/epoch/proxy"
)

// A client certificate's subject mapped to a principal name with Kafka's
// ssl.principal.mapping.rules.
func ExampleParsePrincipalMappingRules() {
	m, err := proxy.ParsePrincipalMappingRules("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT")
	if err != nil {
		panic(err)
	}
	for _, dn := range []string{"CN=Orders-App,OU=ServiceUsers,O=Shop", "CN=ops,O=Shop"} {
		name, _ := m.Name(dn)
		fmt.Println(name)
	}
	// Output:
	// orders-app
	// CN=ops,O=Shop
}

// Brokers an upstream lists are checked before they are advertised.
func ExampleValidBroker() {
	fmt.Println(proxy.ValidBroker(1, proxy.Endpoint{Host: "kafka-1.internal", Port: 9092}))
	fmt.Println(proxy.ValidBroker(-3, proxy.Endpoint{Host: "kafka-1.internal", Port: 9092}))
	fmt.Println(proxy.ValidBroker(2, proxy.Endpoint{Host: "kafka 2", Port: 9092}))
	// Output:
	// <nil>
	// proxy: invalid broker: broker id -3 is negative
	// proxy: invalid broker: broker 2: host "kafka 2"
}

// Kafka's ssl.client.auth values.
func ExampleParseClientAuth() {
	for _, s := range []string{"none", "required", "maybe"} {
		a, err := proxy.ParseClientAuth(s)
		fmt.Println(a, err)
	}
	// Output:
	// 0 <nil>
	// 2 <nil>
	// 0 ssl.client.auth "maybe": want none, requested or required
}

// The limits a Server or Forwarder applies when a field is left zero.
func ExampleDefaultLimits() {
	l := proxy.DefaultLimits()
	fmt.Println(l.MaxRequestBytes, l.IdleTimeout, l.UpstreamBufferBytes>>20, l.MaxBrokers)
	// Output:
	// 104857600 10m0s 512 1024
}
