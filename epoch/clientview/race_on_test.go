//go:build race

package clientview

const raceEnabled = true
