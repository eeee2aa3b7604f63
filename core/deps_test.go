package core

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHeavyImports pins the WASM size budget: the core's non-test code
// must not pull encoding/json, fmt or reflect into the module (nor I/O,
// clock or randomness packages).
func TestNoHeavyImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "encoding/json", "fmt", "reflect", "sort", "os", "time", "math/rand", "math/rand/v2":
			t.Errorf("core depends on %s", dep)
		}
	}
}
