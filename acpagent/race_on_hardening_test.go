//go:build race

package acpagent

// raceEnabled: the race detector slows the wasm engine (wazero) by an order
// of magnitude, so the load test holds fewer wasm sessions under it.
const raceEnabled = true
