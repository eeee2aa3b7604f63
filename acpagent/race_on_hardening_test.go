//go:build race

package acpagent

import "testing"

// raceEnabled: the race detector slows the wasm engine (wazero) by an order
// of magnitude, so the load test holds fewer wasm sessions under it, and
// the tests that push megabytes through one goroutine run without it
// (skipBytesUnderRace).
const raceEnabled = true

// skipBytesUnderRace skips a test whose cost is megabytes of bytes through
// one reader or one writer, not goroutines meeting: under the race
// detector it costs tens of seconds of CPU and finds nothing the rest of
// the package does not. make test-go runs it in its go test without -race.
func skipBytesUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("megabytes through one goroutine: run without -race (make test-go)")
}
