package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The hub links no template executor: text/template's (under
// html/template's) looks methods up by a name it reads at run time, and
// once that lookup is reachable the linker keeps every exported method of
// every type the binary can convert to an interface, 2.5 MB of the hub
// (RATIONALE.md, "Weight"). Its pages and its mail are built with
// gomponents instead; a template's Execute anywhere in the hub's closure
// would bring the executor, and the weight, back.
func TestHubLinksNoTemplateExecutor(t *testing.T) {
	bin, err := hubBinary()
	require.NoError(t, err)
	out, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for line := range strings.Lines(string(out)) {
		require.NotContains(t, line, " text/template.(*state).", "the hub links text/template's executor")
	}
}
