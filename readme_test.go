package askcore_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's Go examples from example_test.go")

// exampleMarker is where README.md shows a runnable example: the marker,
// then a Go code block that must be the body of the example it names.
var exampleMarker = regexp.MustCompile("(?m)^<!-- example: (\\w+) -->\n(```go\n(?s:.*?)```\n)?")

// TestReadmeExamples keeps README.md's Go snippets the runnable examples of
// example_test.go, as they are (go test -run Example runs them, with their
// output checked): a snippet in the README is never code that was not run.
// go test -run TestReadmeExamples -update-readme rewrites the snippets.
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
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	out := exampleMarker.ReplaceAllFunc(readme, func(m []byte) []byte {
		name := string(exampleMarker.FindSubmatch(m)[1])
		body, ok := bodies[name]
		if !ok {
			t.Errorf("README.md shows %s, which example_test.go does not have", name)
			return m
		}
		seen++
		return []byte("<!-- example: " + name + " -->\n```go\n" + body + "\n```\n")
	})
	if seen == 0 {
		t.Fatal("README.md shows no example")
	}
	if bytes.Equal(out, readme) {
		return
	}
	if *updateReadme {
		if err := os.WriteFile("README.md", out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("README.md's Go examples differ from example_test.go: run go test -run TestReadmeExamples -update-readme")
}

// dedent removes the one tab of a function body from every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}
