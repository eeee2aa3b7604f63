//go:build !race

package agent_test

// encoderCopies is how many copies of a long string encoding/json makes to
// encode it into an envelope: its buffer grows by doubling, then is copied
// out.
const encoderCopies = 3
