package main

//lint:file-ignore U1000 the go:wasmexport functions are called by the host, which staticcheck cannot see

import "github.com/askcore/askcore/core"

// maxInput is the largest input askcore_input accepts (askcore_max_input):
// the core's own limit, so the guest never holds more than the core reads.
const maxInput = core.MaxInputBytes
