//go:build race

package hostgo

// raceEnabled: this test binary has the race detector.
const raceEnabled = true
