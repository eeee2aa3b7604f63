// Command dist writes askcore's release (make dist): for each platform an
// archive of the four commands with LICENSE and a README, SHA256SUMS over
// the archives, and the npm packages as npm pack writes them.
//
//	go run ./internal/dist [-version V] [-platforms linux/amd64,...] [-out dist]
//
// The same commit gives the same bytes: the binaries are built with
// -trimpath, without cgo and without the VCS stamp (the version and commit
// go in by -ldflags -X), and the archives hold sorted entries with the
// commit's time, owner 0 and fixed modes, gzipped without a name or time.
// It is written in Go, not with tar and zip, so that it needs nothing but
// Go, Node and npm, and writes the same bytes on every system.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Commands are the four binaries, each built from cmd/<command>.
var Commands = []string{"askcore-acp", "askcore-hub", "askcore-mcp", "askcore-stdio"}

// Platforms are the release's GOOS/GOARCH pairs.
var Platforms = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

//go:embed README.archive.md
var archiveReadme string

//go:embed README.platform.md
var platformReadme string

func main() {
	version := flag.String("version", "", "the release's version (default: git describe --tags --always)")
	platforms := flag.String("platforms", "", "comma-separated GOOS/GOARCH pairs (default: all six)")
	out := flag.String("out", "dist", "the output directory (emptied first)")
	flag.Parse()
	if err := run(*version, *platforms, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

// release is what every part of one dist run shares.
type release struct {
	version string    // v1.2.3, or what git describe says
	commit  string    // 12 hex digits, "-dirty" when the tree has changes
	npm     string    // version as npm semver
	time    time.Time // the commit's, for every archive entry
	root    string    // the repository
	out     string
}

func run(version, platforms, out string) error {
	root, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	r := &release{root: root, version: version}
	if r.version == "" {
		if r.version, err = git(root, "describe", "--tags", "--always"); err != nil {
			return err
		}
	}
	if r.commit, err = git(root, "rev-parse", "--short=12", "HEAD"); err != nil {
		return err
	}
	if changes, err := git(root, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return err
	} else if changes != "" {
		r.commit += "-dirty"
	}
	ct, err := git(root, "log", "-1", "--format=%ct")
	if err != nil {
		return err
	}
	sec, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return fmt.Errorf("commit time %q: %w", ct, err)
	}
	r.time = time.Unix(sec, 0).UTC()
	r.npm = NPMVersion(r.version)
	chosen, err := ParsePlatforms(platforms)
	if err != nil {
		return err
	}
	r.out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(r.out); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(r.out, "npm"), 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "askcore-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	fmt.Fprintf(os.Stderr, "dist: askcore %s (%s), npm %s, %s\n", r.version, r.commit, r.npm, strings.Join(chosen, " "))
	var archives []string
	for _, p := range chosen {
		start := time.Now()
		bins := filepath.Join(work, "bin", strings.ReplaceAll(p, "/", "_"))
		if err := r.build(p, bins); err != nil {
			return err
		}
		name, err := r.archive(p, bins)
		if err != nil {
			return err
		}
		archives = append(archives, name)
		if err := r.platformPackages(p, bins, filepath.Join(work, "npm")); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "dist: %s in %.0f s\n", name, time.Since(start).Seconds())
	}
	if err := r.sums(archives); err != nil {
		return err
	}
	return r.mainPackages(chosen, filepath.Join(work, "npm"))
}

// ParsePlatforms is the comma-separated list s, in the release's order
// (all six when s is empty), or an error naming one it does not build.
func ParsePlatforms(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return Platforms, nil
	}
	var chosen []string
	for p := range strings.SplitSeq(s, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(Platforms, p) {
			return nil, fmt.Errorf("platform %q: not one of %s", p, strings.Join(Platforms, ", "))
		}
		if !slices.Contains(chosen, p) {
			chosen = append(chosen, p)
		}
	}
	slices.SortFunc(chosen, func(a, b string) int { return slices.Index(Platforms, a) - slices.Index(Platforms, b) })
	return chosen, nil
}

var notSemverChar = regexp.MustCompile(`[^0-9A-Za-z-]+`)

// NPMVersion is version as npm takes it: v1.2.3(-pre) without its v, and
// anything else (a bare commit, as git describe says before the first
// tag) as the prerelease 0.0.0-dev-<it>, which sorts below every release.
func NPMVersion(version string) string {
	if semver.IsValid(version) && semver.Canonical(version) == version {
		return strings.TrimPrefix(version, "v")
	}
	return "0.0.0-dev-" + strings.Trim(notSemverChar.ReplaceAllString(version, "-"), "-")
}

// exe is the file name of command on goos.
func exe(goos, command string) string {
	if goos == "windows" {
		return command + ".exe"
	}
	return command
}

// build writes the four binaries for platform into dir.
func (r *release) build(platform, dir string) error {
	goos, goarch, _ := strings.Cut(platform, "/")
	pkg := "github.com/askcore/askcore/frontdoor"
	args := []string{"build", "-trimpath", "-buildvcs=false",
		"-ldflags", fmt.Sprintf("-s -w -X %s.version=%s -X %s.commit=%s", pkg, r.version, pkg, r.commit),
		"-o", dir + string(filepath.Separator)}
	for _, c := range Commands {
		args = append(args, "./cmd/"+c)
	}
	cmd := exec.Command(goCommand(), args...)
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", platform, err)
	}
	return nil
}

func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// entry is one file of an archive or package, by its name there.
type entry struct {
	name string
	mode int64
	data []byte
}

// files are what a platform's archive holds under its directory: LICENSE,
// README.md and the four binaries, sorted by name.
func (r *release) files(platform, bins string) ([]entry, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	license, err := os.ReadFile(filepath.Join(r.root, "LICENSE"))
	if err != nil {
		return nil, err
	}
	readme := strings.NewReplacer("{{version}}", r.version, "{{commit}}", r.commit, "{{os}}", goos, "{{arch}}", goarch, "{{exe}}", exe(goos, "")).Replace(archiveReadme)
	files := []entry{{"LICENSE", 0o644, license}, {"README.md", 0o644, []byte(readme)}}
	for _, c := range Commands {
		b, err := os.ReadFile(filepath.Join(bins, exe(goos, c)))
		if err != nil {
			return nil, err
		}
		files = append(files, entry{exe(goos, c), 0o755, b})
	}
	slices.SortFunc(files, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return files, nil
}

// archive writes askcore_<version>_<os>_<arch>.tar.gz (.zip on windows),
// its files in a directory of the same name, and returns its file name.
func (r *release) archive(platform, bins string) (string, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	base := fmt.Sprintf("askcore_%s_%s_%s", r.version, goos, goarch)
	files, err := r.files(platform, bins)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	name := base + ".tar.gz"
	if goos == "windows" {
		name = base + ".zip"
		err = writeZip(&buf, base, files, r.time)
	} else {
		err = writeTarGz(&buf, base, files, r.time)
	}
	if err != nil {
		return "", err
	}
	return name, os.WriteFile(filepath.Join(r.out, name), buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, dir string, files []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression) // no name, no time in the header
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode int64, typ byte, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	for _, f := range files {
		if err := tw.WriteHeader(hdr(dir+"/"+f.name, f.mode, tar.TypeReg, int64(len(f.data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, dir string, files []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	d := &zip.FileHeader{Name: dir + "/", Modified: mtime}
	d.SetMode(os.ModeDir | 0o755)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sums writes SHA256SUMS over the archives, in sha256sum's format.
func (r *release) sums(archives []string) error {
	slices.Sort(archives)
	var b strings.Builder
	for _, a := range archives {
		data, err := os.ReadFile(filepath.Join(r.out, a))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), a)
	}
	return os.WriteFile(filepath.Join(r.out, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// npmPlatform is platform's os and cpu as npm names them (process.platform,
// process.arch).
func npmPlatform(platform string) (string, string) {
	goos, goarch, _ := strings.Cut(platform, "/")
	if goos == "windows" {
		goos = "win32"
	}
	if goarch == "amd64" {
		goarch = "x64"
	}
	return goos, goarch
}

// The npm packages whose binaries travel in per-platform packages: the
// package, and the commands its platform packages hold. @askcore/mcp's hold
// askcore-mcp alone, so that npx -y @askcore/mcp fetches one binary, not
// four; @askcore/cli's hold all four.
var launchers = []struct {
	dir, name string
	commands  []string
}{
	{"cli", "@askcore/cli", Commands},
	{"mcp", "@askcore/mcp", []string{"askcore-mcp"}},
}

// platformPackages stages and packs platform's package of each launcher.
func (r *release) platformPackages(platform, bins, work string) error {
	goos, _, _ := strings.Cut(platform, "/")
	npmOS, npmCPU := npmPlatform(platform)
	license, err := os.ReadFile(filepath.Join(r.root, "LICENSE"))
	if err != nil {
		return err
	}
	for _, l := range launchers {
		name := fmt.Sprintf("%s-%s-%s", l.name, npmOS, npmCPU)
		dir := filepath.Join(work, strings.TrimPrefix(name, "@askcore/"))
		manifest := object{
			{"name", name},
			{"version", r.npm},
			{"description", fmt.Sprintf("The %s binary of %s for %s %s (askcore %s)", strings.Join(l.commands, ", "), l.name, npmOS, npmCPU, r.version)},
			{"license", "MIT"},
			{"repository", object{{"type", "git"}, {"url", "git+https://github.com/askcore/askcore.git"}}},
			{"os", []string{npmOS}},
			{"cpu", []string{npmCPU}},
			{"files", []string{"bin/", "README.md", "LICENSE"}},
			// Yarn PnP: a binary cannot run from inside a zip.
			{"preferUnplugged", true},
		}
		readme := strings.NewReplacer("{{name}}", name, "{{parent}}", l.name, "{{os}}", npmOS, "{{cpu}}", npmCPU).Replace(platformReadme)
		files := []entry{{"LICENSE", 0o644, license}, {"README.md", 0o644, []byte(readme)}}
		for _, c := range l.commands {
			b, err := os.ReadFile(filepath.Join(bins, exe(goos, c)))
			if err != nil {
				return err
			}
			files = append(files, entry{"bin/" + exe(goos, c), 0o755, b})
		}
		if err := r.pack(dir, manifest, files); err != nil {
			return err
		}
	}
	return nil
}

// mainPackages stages and packs @askcore/mcp and @askcore/cli (from their
// templates in npm/, their optionalDependencies the platform packages
// built), and packs the library, hostjs/, as it is.
func (r *release) mainPackages(platforms []string, work string) error {
	launch, err := os.ReadFile(filepath.Join(r.root, "npm", "launch.js"))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(r.root, "LICENSE"))
	if err != nil {
		return err
	}
	for _, l := range launchers {
		src := filepath.Join(r.root, "npm", l.dir)
		raw, err := os.ReadFile(filepath.Join(src, "package.json"))
		if err != nil {
			return err
		}
		manifest, err := readObject(raw)
		if err != nil {
			return fmt.Errorf("npm/%s/package.json: %w", l.dir, err)
		}
		var deps object
		for _, p := range platforms {
			npmOS, npmCPU := npmPlatform(p)
			deps = append(deps, field{fmt.Sprintf("%s-%s-%s", l.name, npmOS, npmCPU), r.npm})
		}
		manifest.set("version", r.npm)
		manifest.set("optionalDependencies", deps)
		files := []entry{{"LICENSE", 0o644, license}, {"lib/launch.js", 0o644, launch}}
		for _, f := range []string{"README.md"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				return err
			}
			files = append(files, entry{f, 0o644, b})
		}
		bins, err := os.ReadDir(filepath.Join(src, "bin"))
		if err != nil {
			return err
		}
		for _, b := range bins {
			data, err := os.ReadFile(filepath.Join(src, "bin", b.Name()))
			if err != nil {
				return err
			}
			files = append(files, entry{"bin/" + b.Name(), 0o755, data})
		}
		if err := r.pack(filepath.Join(work, l.dir), manifest, files); err != nil {
			return err
		}
	}
	return npmPack(filepath.Join(r.root, "hostjs"), filepath.Join(r.out, "npm"))
}

// pack writes a package's files and package.json into dir and packs it
// into the output's npm directory.
func (r *release) pack(dir string, manifest object, files []entry) error {
	pj, err := manifest.indent()
	if err != nil {
		return err
	}
	files = append(files, entry{"package.json", 0o644, pj})
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.data, os.FileMode(f.mode)); err != nil {
			return err
		}
		if err := os.Chmod(path, os.FileMode(f.mode)); err != nil { // whatever the umask
			return err
		}
	}
	return npmPack(dir, filepath.Join(r.out, "npm"))
}

func npmPack(dir, dest string) error {
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dest)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm pack in %s: %w", dir, err)
	}
	return nil
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// object is a JSON object whose keys keep their order (a package.json as
// its template wrote it, name first), which a map would sort.
type object []field

type field struct {
	key   string
	value any
}

// readObject reads a JSON object's top-level fields in order.
func readObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, field{t.(string), v})
	}
	return o, nil
}

// set replaces key's value, or adds the key at the end.
func (o *object) set(key string, value any) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, field{key, value})
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // Encode's newlines are whitespace, gone once indented
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := enc.Encode(f.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indent is o as package.json files are written: two spaces, a final
// newline, ">" as itself.
func (o object) indent() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
