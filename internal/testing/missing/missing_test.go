package missing_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/internal/testing/missing"
)

// ended records how Tool ended a test, instead of ending it.
type ended struct {
	testing.TB
	fatal, skip string
}

func (e *ended) Helper()           {}
func (e *ended) Fatal(args ...any) { e.fatal = fmt.Sprint(args...) }
func (e *ended) Skip(args ...any)  { e.skip = fmt.Sprint(args...) }

// A missing tool skips a developer's test and fails CI's, saying which
// tool and how to install it either way.
func TestTool(t *testing.T) {
	const why = "no mailpit; install it with: go install github.com/axllent/mailpit@v1.33.1"
	for _, c := range []struct {
		ci          string
		fatal, skip bool
	}{{"true", true, false}, {"", false, true}, {"false", false, true}, {"1", false, true}} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			t.Setenv("CI", c.ci)
			var e ended
			missing.Tool(&e, why)
			if c.fatal {
				assert.Contains(t, e.fatal, why)
			}
			if c.skip {
				assert.Equal(t, "SKIP: "+why, e.skip)
			}
			assert.Equal(t, c.fatal, e.fatal != "", "failed")
			assert.Equal(t, c.skip, e.skip != "", "skipped")
		})
	}
}
