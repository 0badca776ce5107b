package javahash

import (
	"strings"
	"testing"
)

// TestHashMapOrderIsJavas: the keySet order of a java.util.HashMap after
// these puts (duplicates, colliding "Aa"/"BB" keys, a resize past 24
// entries, a non-ASCII key), as jshell printed it on OpenJDK 17.
func TestHashMapOrderIsJavas(t *testing.T) {
	keys := strings.Split("k87,k92,k74,k24,k6,k5,k54,k91,k22,k21,k31,k3,k47,k60,k28,k90,k78,k15,k17,k17,k8,k65,k8,k56,k61,k2,k80,k47,k15,k20,Aa,BB,AaAa,BBBB,AaBB,BBAa,é", ",")
	want := "Aa,BB,k91,k90,k92,k31,k74,k54,k78,k56,k15,k17,AaAa,BBBB,AaBB,BBAa,k80,k60,k61,k2,k3,k20,é,k5,k22,k87,k6,k21,k65,k24,k8,k47,k28"
	var got []string
	for _, i := range HashMapOrder(keys) {
		got = append(got, keys[i])
	}
	if strings.Join(got, ",") != want {
		t.Fatalf("order\n %s\nJava\n %s", strings.Join(got, ","), want)
	}
	if len(HashMapOrder(nil)) != 0 {
		t.Fatal("no keys")
	}
}
