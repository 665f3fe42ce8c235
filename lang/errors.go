package lang

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Error is one diagnostic at a source position.
type Error struct {
	Pos lexer.Position
	Msg string
	// Line is the text of the source line at Pos (without newline), shown
	// under the message with a caret; empty when unknown.
	Line string
	// Err is the underlying cause, if any (for example a failed file read).
	Err error
}

// Error renders "file:line:col: message", then the source line and a caret
// under the column.
func (e *Error) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d:%d: %s", e.Pos.Filename, e.Pos.Line, e.Pos.Column, e.Msg)
	if e.Line != "" {
		sb.WriteByte('\n')
		sb.WriteString(e.Line)
		sb.WriteByte('\n')
		// Copy tabs from the source line so the caret lines up in any tab width.
		col := 1
		for _, r := range e.Line {
			if col >= e.Pos.Column {
				break
			}
			if r == '\t' {
				sb.WriteByte('\t')
			} else {
				sb.WriteByte(' ')
			}
			col++
		}
		sb.WriteByte('^')
	}
	return sb.String()
}

// Unwrap returns the underlying cause so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is a set of diagnostics reported together, in position order.
type ErrorList []*Error

// Error prints every diagnostic, one after the other.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// sortAndDedup orders the list by position and drops exact repeats (the same
// function body checked twice reports the same problem twice).
func (l ErrorList) sortAndDedup() ErrorList {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out := l[:0]
	for i, e := range l {
		if i > 0 && e.Pos == l[i-1].Pos && e.Msg == l[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sourceLine returns line n (1-based) of src, or "".
func sourceLine(src []byte, n int) string {
	if n < 1 {
		return ""
	}
	for i := 1; i < n; i++ {
		k := bytes.IndexByte(src, '\n')
		if k < 0 {
			return ""
		}
		src = src[k+1:]
	}
	if k := bytes.IndexByte(src, '\n'); k >= 0 {
		src = src[:k]
	}
	s := strings.TrimRight(string(src), "\r")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	return s
}
