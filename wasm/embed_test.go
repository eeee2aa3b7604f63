package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestSHA256(t *testing.T) {
	sum := sha256.Sum256(Binary)
	if got := hex.EncodeToString(sum[:]); got != SHA256 {
		t.Fatalf("askcore.wasm.sha256 says %s, the embedded module hashes to %s: run make wasm", SHA256, got)
	}
	if len(SHA256) != 64 {
		t.Fatalf("SHA256 = %q, want 64 hex digits", SHA256)
	}
}
