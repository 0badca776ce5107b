//go:build !race

package clientview

const raceEnabled = false
