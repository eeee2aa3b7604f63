//go:build race

package agent_test

// raceEnabled: this test binary has the race detector.
const raceEnabled = true
