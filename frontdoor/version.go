package frontdoor

import "runtime/debug"

// Version is the askcore module's version as the build recorded it: the
// module version for a binary built from a tagged module (go install
// github.com/askcore/askcore/cmd/...@v1.2.3), else "devel" and the VCS
// revision the binary was built from (with "-dirty" for uncommitted
// changes), else "devel". The binaries print it for --version and report
// it in ACP's and MCP's initialize.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "devel+" + rev + dirty
}
