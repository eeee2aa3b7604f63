//go:build !race

package acpagent

const raceEnabled = false
