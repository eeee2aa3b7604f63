package askcore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A program that imports only the root package runs the rules natively: it
// links no WebAssembly runtime and no embedded module, and stays small
// (RATIONALE.md, "Native by default").
func TestEmbedderLinksNoWazero(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: builds a program (-short)")
	}
	// go test puts the bin directory of its own GOROOT first in PATH: "go"
	// is the toolchain running this test.
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	deps, err := exec.Command(goBin, "list", "-deps", "./testdata/embedder").CombinedOutput()
	require.NoError(t, err, "%s", deps)
	for _, p := range strings.Fields(string(deps)) {
		require.NotContains(t, p, "tetratelabs/wazero", "the root package links wazero")
		require.NotEqual(t, "github.com/askcore/askcore/wasm", p, "the root package links the embedded module")
		require.NotEqual(t, "github.com/askcore/askcore/hostgo", p)
	}

	bin := filepath.Join(t.TempDir(), "embedder")
	out, err := exec.Command(goBin, "build", "-o", bin, "./testdata/embedder").CombinedOutput()
	require.NoError(t, err, "%s", out)
	fi, err := os.Stat(bin)
	require.NoError(t, err)
	require.Less(t, fi.Size(), int64(6<<20), "a program embedding askcore natively is %d bytes", fi.Size())

	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	require.Equal(t, `{"answer":"Yes","selected":{"index":0,"label":"Yes","value":"Yes"}}`+"\n", string(got))
	t.Logf("native embedder: %d bytes", fi.Size())
}
