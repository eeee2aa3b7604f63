package askcore_test

import (
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestDocLinks checks every relative link and image of the repository's
// Markdown files: it must name a file or folder of the repository (never
// one outside it), and a #fragment on a Markdown file must name one of its
// headings, as GitHub makes their anchors. The links are read by a
// CommonMark parser (goldmark), so code blocks and code spans, which hold
// text that only looks like links, are left alone.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	headings := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := map[string]bool{}
		for _, id := range headingAnchors(src) {
			a[id] = true
		}
		anchors[path] = a
		return a
	}
	checked := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, dest := range links(src) {
			u, err := url.Parse(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", rel, dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // a web address
			}
			target := file
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(u.Path))
				if inside, _ := filepath.Rel(root, target); strings.HasPrefix(inside, "..") {
					t.Errorf("%s: link %q leaves the repository", rel, dest)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: no such file", rel, dest)
					continue
				}
			}
			checked++
			if u.Fragment != "" && strings.HasSuffix(target, ".md") && !headings(target)[u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading #%s", rel, dest, filepath.Base(target), u.Fragment)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the walk or the parser is broken")
	}
}

// links returns the destinations of the links and images in a Markdown
// document.
func links(src []byte) []string {
	var out []string
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			out = append(out, string(l.Destination))
		case *ast.Image:
			out = append(out, string(l.Destination))
		}
		return ast.WalkContinue, nil
	})
	return out
}

// headingAnchors returns the anchors GitHub gives a document's headings:
// the heading's text lowercased, every character but letters, digits,
// spaces, hyphens and underscores dropped, spaces made hyphens; a repeated
// anchor gets -1, -2, ...
func headingAnchors(src []byte) []string {
	var out []string
	seen := map[string]int{}
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for _, r := range strings.ToLower(plainText(h, src)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		id := b.String()
		if k := seen[id]; k > 0 {
			out = append(out, id+"-"+strconv.Itoa(k))
		} else {
			out = append(out, id)
		}
		seen[id]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

// plainText is a node's text as a reader sees it (code spans without their
// backticks, links without their destinations).
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
			continue
		}
		if s, ok := c.(*ast.String); ok {
			b.Write(s.Value)
			continue
		}
		b.WriteString(plainText(c, src))
	}
	return b.String()
}

// TestReadmeHouseMap keeps the README's map of the house whole: every
// folder at the top of the repository (and under cmd/ and hub/) has its
// line in the map, and every folder the map names exists, so a newcomer
// who reads only the README knows what each folder holds.
func TestReadmeHouseMap(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## The house\n\n```\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md has no "## The house" map`)
	}
	// A line of the map: the folder, indented by two spaces under its parent.
	named := map[string]bool{}
	parent := ""
	for _, line := range strings.Split(string(m[1]), "\n") {
		f := regexp.MustCompile(`^( *)(\S+/)(\S*)\s`).FindStringSubmatch(line + " ")
		if f == nil || (len(f[1]) > 0 && parent == "") {
			continue
		}
		dir := strings.TrimSuffix(f[2]+f[3], "/")
		if f[1] == "" {
			parent = dir
		} else {
			dir = parent + "/" + dir
		}
		// A folder named deeper (internal/wire/) names its parents too.
		for d := dir; d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			named[d] = true
		}
	}
	for dir := range named {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("the README's map names %s/, which is no folder", dir)
		}
	}
	for _, under := range []string{".", "cmd", "hub", "internal"} {
		entries, err := os.ReadDir(under)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := filepath.ToSlash(filepath.Join(under, e.Name()))
			// testdata/ under hub/ and .git hold no code of their own; a
			// folder git ignores (bin/, dist/: the build's output, which make
			// test-install writes while this test runs) is no part of the house.
			if !e.IsDir() || name == ".git" || e.Name() == "testdata" && under != "." || gitIgnores(name) {
				continue
			}
			if !named[name] {
				t.Errorf("the README's map of the house leaves out %s/", name)
			}
		}
	}
}

// gitIgnores reports whether git ignores path (false outside a git
// checkout, or without git: then every folder counts).
func gitIgnores(path string) bool {
	return exec.Command("git", "check-ignore", "-q", path).Run() == nil
}

// TestNoBuiltProgramTracked: a `go build` at the root writes its program
// there (askcore-stdio, engine); one that reached a commit once put 56 MB
// in every clone. The only binary the repository keeps is the WebAssembly
// module, which it rebuilds to the same bytes (make check-wasm).
func TestNoBuiltProgramTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skip("SKIP: not a git checkout (or no git): " + err.Error())
	}
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {'M', 'Z'}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if n >= len(m) && string(head[:len(m)]) == string(m) {
				t.Errorf("%s is a built program (ELF, PE or Mach-O); git rm --cached it, and let .gitignore name it", name)
			}
		}
	}
}
