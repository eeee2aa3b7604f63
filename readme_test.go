package askcore_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the Go examples of README.md and docs/*.md from example_test.go")

// exampleMarker is where a document shows a runnable example: the marker,
// then a Go code block that must be the body of the example it names.
var exampleMarker = regexp.MustCompile("(?m)^<!-- example: (\\w+) -->\n(```go\n(?s:.*?)```\n)?")

// docFiles are the documents whose Go snippets are examples: README.md and
// every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

// TestReadmeExamples keeps the Go snippets of README.md and docs/*.md the
// runnable examples of example_test.go, as they are (go test -run Example
// runs them, with their output checked): a snippet in the documentation is
// never code that was not run. go test -run TestReadmeExamples
// -update-readme rewrites the snippets.
func TestReadmeExamples(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fn.Name.Name, "Example") {
			continue
		}
		body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
		bodies[fn.Name.Name] = dedent(strings.Trim(body, "\n"))
	}
	seen := map[string]int{}
	for _, name := range docFiles(t) {
		doc, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out := exampleMarker.ReplaceAllFunc(doc, func(m []byte) []byte {
			example := string(exampleMarker.FindSubmatch(m)[1])
			body, ok := bodies[example]
			if !ok {
				t.Errorf("%s shows %s, which example_test.go does not have", name, example)
				return m
			}
			seen[name]++
			return []byte("<!-- example: " + example + " -->\n```go\n" + body + "\n```\n")
		})
		if bytes.Equal(out, doc) {
			continue
		}
		if *updateReadme {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's Go examples differ from example_test.go: run go test -run TestReadmeExamples -update-readme", name)
	}
	// The Go embedder's quick start and its page are examples, so they
	// cannot drift from code that runs.
	for _, name := range []string{"README.md", filepath.Join("docs", "go.md")} {
		if seen[name] == 0 {
			t.Errorf("%s shows no example", name)
		}
	}
}

// dedent removes the one tab of a function body from every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}
