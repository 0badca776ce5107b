//go:build race

package history_test

// raceEnabled: under the race detector the corpus tests sample batch
// boundaries instead of checking every one (they look for data races, not
// for Kafka's rules, which the plain run checks at every boundary).
const raceEnabled = true
