package askcore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExamplesCompileOutsideTheModule: the Examples godoc shows are code
// a user can compile. Each public package's example files are copied into
// a module of their own that requires askcore (replaced by this tree) and
// vetted there, where an import of an internal package, or of anything a
// user cannot import, fails to build.
func TestExamplesCompileOutsideTheModule(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: builds every public package's examples in a module of their own (-short)")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	repo, err := os.Getwd()
	require.NoError(t, err)
	list, err := exec.Command(goBin, "list", "-f", `{{.ImportPath}}|{{.Name}}|{{.Dir}}|{{join .XTestGoFiles ","}}`, "./...").Output()
	require.NoError(t, err)

	outside := t.TempDir()
	var copied []string
	for line := range strings.Lines(string(list)) {
		f := strings.Split(strings.TrimSpace(line), "|")
		path, name, dir, xtests := f[0], f[1], f[2], f[3]
		if name == "main" || strings.Contains(path+"/", "/internal/") {
			continue // not importable by a user
		}
		for _, file := range strings.Split(xtests, ",") {
			if !strings.HasPrefix(file, "example") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, file))
			require.NoError(t, err)
			rel, err := filepath.Rel(repo, dir)
			require.NoError(t, err)
			dst := filepath.Join(outside, rel, file)
			require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			require.NoError(t, os.WriteFile(dst, src, 0o644))
			copied = append(copied, filepath.Join(rel, file))
		}
	}
	require.Contains(t, copied, filepath.Join("hub", "server", "example_test.go"), "the copy found the examples")

	gomod := "module example.com/outside\n\ngo 1.26\n\nrequire github.com/askcore/askcore v0.0.0\n\nreplace github.com/askcore/askcore => " + repo + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(outside, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "go.sum"), sum, 0o644))

	vet := exec.Command(goBin, "vet", "./...")
	vet.Dir = outside
	// -mod=mod lets go add the requirements the examples need (from the
	// module cache, which holds what the tree builds with).
	vet.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := vet.CombinedOutput()
	require.NoError(t, err, "the examples (%s) do not build outside the module:\n%s", strings.Join(copied, ", "), out)
	t.Logf("%d example files vetted outside the module", len(copied))
}
