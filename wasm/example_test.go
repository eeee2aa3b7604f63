package wasm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"sort"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/wasm"
)

// A host that ships the module itself (to a browser, say) sends Gzip as it
// is where the client takes gzip, Binary() elsewhere: the one module SHA256
// names (Binary checks it). It pins the ABI it speaks.
func Example() {
	sum := sha256.Sum256(wasm.Binary())
	fmt.Println("sha256 as recorded:", hex.EncodeToString(sum[:]) == wasm.SHA256)
	fmt.Printf("magic %q, ABI version %d\n", wasm.Binary()[:4], wasm.ABIVersion)
	// Output:
	// sha256 as recorded: true
	// magic "\x00asm", ABI version 1
}

// The module's askcore exports and its imports (WASI preview1 only), as a
// WebAssembly runtime sees them; ABI.md says how to call them. Package
// hostgo runs the module this way, under wazero.
func ExampleBinary() {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	mod, err := rt.CompileModule(ctx, wasm.Binary())
	if err != nil {
		log.Fatal(err)
	}

	var exports []string
	for name := range mod.ExportedFunctions() {
		exports = append(exports, name)
	}
	sort.Strings(exports)
	fmt.Println("exports:", exports)
	modules := map[string]int{}
	for _, f := range mod.ImportedFunctions() {
		module, _, _ := f.Import()
		modules[module]++
	}
	fmt.Println("imports:", modules)
	// Output:
	// exports: [_initialize askcore_abi_version askcore_handle askcore_input askcore_max_input askcore_output askcore_oversized]
	// imports: map[wasi_snapshot_preview1:10]
}
