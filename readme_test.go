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

var updateReadme = flag.Bool("update-readme", false, "rewrite the Go examples of README.md and docs/*.md from the examples they name")

// exampleMarker is where a document shows a runnable example: the marker,
// then a Go code block that must be the body of the example it names:
// NAME is an example of the module root, DIR.NAME one of the package in
// folder DIR (answerpage.Example, hub/notify.ExampleVerify).
var exampleMarker = regexp.MustCompile("(?m)^<!-- example: ((?:[\\w/]+\\.)?\\w+) -->\n(```go\n(?s:.*?)```\n)?")

// sourceMarker is where a document shows code that is not an example's
// body (a type and a handler, say): the marker, then a Go code block that
// must be the lines of FILE between "// NAME:begin" and "// NAME:end".
var sourceMarker = regexp.MustCompile("(?m)^<!-- source: ([\\w/.-]+_test\\.go):(\\w+) -->\n(```go\n(?s:.*?)```\n)?")

// goFence is the start of a Go code block, with the line before it.
var goFence = regexp.MustCompile("(?m)^(.*)\n```go\n")

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
	examples := map[string]map[string]string{} // folder -> example -> body
	body := func(name string) (string, bool) {
		dir, fn := ".", name
		if i := strings.LastIndex(name, "."); i >= 0 {
			dir, fn = name[:i], name[i+1:]
		}
		if examples[dir] == nil {
			examples[dir] = exampleBodies(t, dir)
		}
		b, ok := examples[dir][fn]
		return b, ok
	}
	seen := map[string]int{}
	for _, name := range docFiles(t) {
		orig, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc := orig
		// Every Go snippet is an example, so none is code that was not run.
		for _, m := range goFence.FindAllSubmatchIndex(doc, -1) {
			if !bytes.HasPrefix(doc[m[2]:m[3]], []byte("<!-- example: ")) && !bytes.HasPrefix(doc[m[2]:m[3]], []byte("<!-- source: ")) {
				line := bytes.Count(doc[:m[1]], []byte("\n"))
				t.Errorf("%s:%d: a Go code block that is no example: put it in an example test and mark it <!-- example: NAME -->, or in a test file between // NAME:begin and // NAME:end and mark it <!-- source: FILE:NAME -->", name, line)
			}
		}
		doc = sourceMarker.ReplaceAllFunc(doc, func(m []byte) []byte {
			sm := sourceMarker.FindSubmatch(m)
			file, region := string(sm[1]), string(sm[2])
			src, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s shows %s: %v", name, file, err)
				return m
			}
			_, rest, ok1 := strings.Cut(string(src), "// "+region+":begin\n")
			code, _, ok2 := strings.Cut(rest, "// "+region+":end\n")
			if !ok1 || !ok2 {
				t.Errorf("%s shows %s:%s, which has no // %s:begin and // %s:end", name, file, region, region, region)
				return m
			}
			return []byte("<!-- source: " + file + ":" + region + " -->\n```go\n" + strings.TrimRight(code, "\n") + "\n```\n")
		})
		out := exampleMarker.ReplaceAllFunc(doc, func(m []byte) []byte {
			example := string(exampleMarker.FindSubmatch(m)[1])
			b, ok := body(example)
			if !ok {
				t.Errorf("%s shows %s, which no example test has", name, example)
				return m
			}
			seen[name]++
			return []byte("<!-- example: " + example + " -->\n```go\n" + b + "\n```\n")
		})
		if bytes.Equal(out, orig) {
			continue
		}
		if *updateReadme {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's Go examples differ from the code they name: run go test -run TestReadmeExamples -update-readme", name)
	}
	// The Go embedder's quick start and its page are examples, so they
	// cannot drift from code that runs.
	for _, name := range []string{"README.md", filepath.Join("docs", "go.md")} {
		if seen[name] == 0 {
			t.Errorf("%s shows no example", name)
		}
	}
}

// exampleBodies reads the examples of the package in dir (its _test.go
// files): each Example function's body, one tab less indented.
func exampleBodies(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			bodies[fn.Name.Name] = dedent(strings.Trim(body, "\n"))
		}
	}
	return bodies
}

// dedent removes the one tab of a function body from every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}
