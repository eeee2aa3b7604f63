//go:build !unix

package tmuxtest

import "errors"

// ttySize: no pseudo-terminals here (nor tmux: New skips).
func ttySize(string) (int, int, error) { return 0, 0, errors.ErrUnsupported }
