package termui

import (
	"strings"

	"github.com/rivo/uniseg"
)

// Display width, by grapheme cluster (rivo/uniseg): East Asian wide and
// emoji presentation count 2, combining marks and other extenders 0, so a
// letter with its accents is one cell and 中 two. Text is never cut inside a
// cluster.

// ellipsis marks text that was cut.
const ellipsis = "…"

// cleanText makes s one line of the frame: a line break or tab becomes a
// space, and whatever core.Shown refuses is dropped. The core's texts are
// clean already (it sanitized them); this keeps the frame's geometry right
// for the typed text too, by the core's own rule.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if !printable(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			sb.WriteByte(' ')
		case printable(r):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// clusterWidth is the width of one grapheme cluster. A cluster that joins
// several pictographs (ZWJ sequences, an emoji with a skin tone modifier)
// is counted as wide as its parts drawn apart, since many terminals draw it
// so (tmux draws 👍🏽 in 4 cells): cutting text a cell early is harmless, a
// line one cell too wide wraps and breaks the frame.
func clusterWidth(cluster string, w int) int {
	if len(cluster) <= 4 || w == 0 {
		return w
	}
	sum := 0
	for _, r := range cluster {
		switch {
		case r == 0x200d || (r >= 0xfe00 && r <= 0xfe0f):
			continue // joiner, variation selector
		case r >= 0x1f3fb && r <= 0x1f3ff:
			sum += 2 // a skin tone modifier drawn apart (uniseg counts it 0)
			continue
		}
		sum += uniseg.StringWidth(string(r))
	}
	return max(w, sum)
}

// plainASCII reports whether s is printable ASCII only (one cell a byte).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// textWidth is the display width of s (one line, clean).
func textWidth(s string) int {
	if plainASCII(s) {
		return len(s)
	}
	n, state := 0, -1
	for len(s) > 0 {
		var c string
		var w int
		c, s, w, state = uniseg.FirstGraphemeClusterInString(s, state)
		n += clusterWidth(c, w)
	}
	return n
}

// truncate cuts s (one line, clean) to at most width cells, ending it with
// "…" when it was cut. It returns the text and its width.
func truncate(s string, width int) (string, int) {
	if width <= 0 {
		return "", 0
	}
	total := textWidth(s)
	if total <= width {
		return s, total
	}
	if plainASCII(s) {
		return s[:width-1] + ellipsis, width
	}
	limit := width - 1 // room for the ellipsis
	n, state, cut := 0, -1, 0
	rest := s
	for len(rest) > 0 {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		w = clusterWidth(c, w)
		if n+w > limit {
			break
		}
		n += w
		cut += len(c)
	}
	return s[:cut] + ellipsis, n + 1
}

// tail keeps the end of s (one line, clean) that fits in width cells,
// starting it with "…" when the beginning was cut: a text entry shows
// where the person is typing.
func tail(s string, width int) (string, int) {
	if width <= 0 {
		return "", 0
	}
	total := textWidth(s)
	if total <= width {
		return s, total
	}
	// Cluster boundaries and widths, from the start.
	type cl struct{ end, w int }
	var cls []cl
	off, state := 0, -1
	rest := s
	for len(rest) > 0 {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		off += len(c)
		cls = append(cls, cl{off, clusterWidth(c, w)})
	}
	n, start := 0, len(s)
	for i := len(cls) - 1; i >= 0; i-- {
		if n+cls[i].w > width-1 {
			break
		}
		n += cls[i].w
		if i > 0 {
			start = cls[i-1].end
		} else {
			start = 0
		}
	}
	return ellipsis + s[start:], n + 1
}

// wrap breaks s into lines of at most width cells at the line-break
// opportunities of UAX #14 (words stay whole unless one alone is too wide,
// then it is cut between clusters); "\n" in s breaks a line. At most
// maxLines lines are returned (0: no limit); the last one then ends with
// "…". Each line is clean.
func wrap(s string, width, maxLines int) []string {
	if width <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapLine(cleanText(para), width)...)
		if maxLines > 0 && len(out) > maxLines {
			break
		}
	}
	if maxLines > 0 && len(out) > maxLines {
		out = out[:maxLines]
		last := out[maxLines-1]
		if textWidth(last)+1 > width {
			last, _ = truncate(last+" "+ellipsis, width)
		} else {
			last += ellipsis
		}
		out[maxLines-1] = last
	}
	return out
}

// wrapLine wraps one paragraph (no "\n").
func wrapLine(s string, width int) []string {
	var (
		lines []string
		line  strings.Builder
		lineW int
	)
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lineW = 0
	}
	state := -1
	rest := s
	for len(rest) > 0 {
		var seg string
		seg, rest, _, state = uniseg.FirstLineSegmentInString(rest, state)
		segW := textWidth(seg)
		ink := segW - (len(seg) - len(strings.TrimRight(seg, " "))) // without trailing spaces
		if lineW > 0 && lineW+ink > width {
			flush()
		}
		if ink <= width {
			line.WriteString(seg)
			lineW += segW
			continue
		}
		// A word too wide alone: cut it between clusters.
		cs := -1
		for len(seg) > 0 {
			var c string
			var w int
			c, seg, w, cs = uniseg.FirstGraphemeClusterInString(seg, cs)
			w = clusterWidth(c, w)
			if lineW+w > width && c != " " {
				flush()
			}
			line.WriteString(c)
			lineW += w
		}
	}
	if line.Len() > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}
