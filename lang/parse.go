package lang

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// keywords cannot be used as names.
var keywords = []string{"import", "const", "table", "fn", "circuit", "let", "for", "in", "if", "else", "return", "as"}

var hdlLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
	{Name: "Keyword", Pattern: `\b(` + strings.Join(keywords, "|") + `)\b`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Int", Pattern: `0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9][0-9_]*`},
	{Name: "String", Pattern: `"[^"\n]*"`},
	{Name: "Op", Pattern: `\.\.|->|==|!=|<=|>=|<<|>>|[-+*/%&|^~!<>=?:;,(){}\[\]]`},
})

// parser is built once: building reflects over the grammar structs.
var parser = participle.MustBuild[File](
	participle.Lexer(hdlLexer),
	participle.Elide("Comment", "Whitespace"),
	// The grammar is LL(1): with no lookahead a partial match is an error at
	// the token where it failed, which is where the user has to look.
	participle.UseLookahead(0),
)

// maxNesting bounds bracket nesting so that hostile input cannot exhaust the
// stack of the recursive-descent parser or of the elaborator.
const maxNesting = 200

// parseFile parses one source file. Errors are returned as an ErrorList with
// one entry carrying the source line.
func parseFile(filename string, src []byte) (*File, error) {
	if pos, ok := checkNesting(filename, src); !ok {
		return nil, ErrorList{newError(src, pos, fmt.Sprintf("syntax error: expression nested deeper than %d levels", maxNesting))}
	}
	f, err := parser.ParseBytes(filename, src)
	if err == nil {
		return f, nil
	}
	var perr participle.Error
	if !errors.As(err, &perr) {
		return nil, fmt.Errorf("parsing %s: %w", filename, err)
	}
	pos := perr.Position()
	if pos.Filename == "" {
		pos.Filename = filename
	}
	e := newError(src, pos, friendlySyntaxError(perr))
	e.Err = err
	return nil, ErrorList{e}
}

// checkNesting finds the first bracket that opens level maxNesting+1.
func checkNesting(filename string, src []byte) (lexer.Position, bool) {
	depth, line, col := 0, 1, 1
	inComment, inString := false, false
	unary := 0 // run of prefix operators, which nest like brackets
	for i, c := range src {
		if !inComment && !inString {
			switch c {
			case '-', '~', '!':
				if unary++; unary > maxNesting {
					return lexer.Position{Filename: filename, Offset: i, Line: line, Column: col}, false
				}
			case ' ', '\t', '\r', '\n':
			default:
				unary = 0
			}
		}
		switch {
		case inComment:
			inComment = c != '\n'
		case inString:
			inString = c != '"' && c != '\n'
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			inComment = true
		case c == '"':
			inString = true
		case c == '(' || c == '[' || c == '{' || c == '?':
			depth++
			if depth > maxNesting {
				return lexer.Position{Filename: filename, Offset: i, Line: line, Column: col}, false
			}
		case c == ')' || c == ']' || c == '}' || c == ':':
			depth = max(depth-1, 0)
		}
		if c == '\n' {
			line, col = line+1, 1
		} else if c < 0x80 || c >= 0xC0 { // count runes like the lexer
			col++
		}
	}
	return lexer.Position{}, true
}

var (
	reUnexpected = regexp.MustCompile(`^unexpected token "((?:[^"\\]|\\.)*)"(?: \(expected (.*)\))?$`)
	reInvalid    = regexp.MustCompile(`invalid input text "(.)`)
)

// friendlySyntaxError rewrites participle's messages ("unexpected token
// \"}\" (expected \";\")") into "syntax error: unexpected "}", expected ";"".
func friendlySyntaxError(perr participle.Error) string {
	msg := perr.Message()
	var ute *participle.UnexpectedTokenError
	if errors.As(perr, &ute) {
		tok := ute.Unexpected
		what := fmt.Sprintf("%q", tok.Value)
		switch {
		case tok.EOF():
			what = "end of file"
		case strings.HasPrefix(tok.Value, `"`):
			what = "string " + tok.Value
		}
		if m := reUnexpected.FindStringSubmatch(msg); m != nil && m[2] != "" {
			return fmt.Sprintf("syntax error: unexpected %s, expected %s", what, friendlyExpect(m[2]))
		}
		// Only the check for trailing tokens after the last complete
		// declaration has no expectation attached.
		return fmt.Sprintf("syntax error: unexpected %s, expected import, const, table, fn or circuit", what)
	}
	if m := reInvalid.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("syntax error: unexpected character %q", m[1])
	}
	if m := reUnexpected.FindStringSubmatch(msg); m != nil {
		if m[2] != "" {
			return fmt.Sprintf("syntax error: unexpected %q, expected %s", m[1], friendlyExpect(m[2]))
		}
		return fmt.Sprintf("syntax error: unexpected %q", m[1])
	}
	if strings.HasPrefix(msg, "unexpected token \"<EOF>\"") {
		return "syntax error: unexpected end of file"
	}
	return "syntax error: " + msg
}

// grammarNames maps participle's production names to words a user knows.
var grammarNames = strings.NewReplacer(
	"<ident>", "name", "<int>", "integer", "<string>", "string",
	"IfStmt", `"if"`, "LetStmt", `"let"`, "ForStmt", `"for"`, "ReturnStmt", `"return"`,
	"AssignStmt", "assignment", "ConstDecl", `"const"`, "TableDecl", `"table"`, "FnDecl", `"fn"`,
	"CircuitDecl", `"circuit"`, "Import", `"import"`, "AddOp", "operator", "MulOp", "operator",
	"Decl", "declaration", "Stmt", "statement", "Expr", "expression",
	"TypeRef", "type", "Param", "parameter", "Block", "block", "Suffix", "index",
	"CallArgs", "arguments", "ArrayLit", "array literal",
	"Compare", "expression", "Additive", "expression", "Multiplicative", "expression",
	"Cast", "expression", "Unary", "expression", "Postfix", "expression", "Primary", "expression",
)

// friendlyExpect turns participle's description of the rest of a production
// (`(":" type)? ("=" expression)? ";"`) into the tokens that could come next
// (`":", "=" or ";"`).
func friendlyExpect(s string) string {
	firsts, _ := firstOf(grammarNames.Replace(s))
	seen := map[string]bool{}
	var uniq []string
	for _, f := range firsts {
		if !seen[f] {
			seen[f] = true
			uniq = append(uniq, f)
		}
	}
	switch len(uniq) {
	case 0:
		return s
	case 1:
		return uniq[0]
	}
	return strings.Join(uniq[:len(uniq)-1], ", ") + " or " + uniq[len(uniq)-1]
}

// firstOf returns the possible first elements of a grammar sequence and
// whether the whole sequence may be empty.
func firstOf(seq string) ([]string, bool) {
	var out []string
	for _, alt := range splitTop(seq, '|') {
		nullable := true
		for _, el := range splitElems(alt) {
			optional := false
			if n := len(el); n > 1 && (el[n-1] == '?' || el[n-1] == '*') {
				el, optional = el[:n-1], true
			} else if n > 1 && el[n-1] == '+' {
				el = el[:n-1]
			}
			var f []string
			empty := false
			if strings.HasPrefix(el, "(") && strings.HasSuffix(el, ")") {
				f, empty = firstOf(el[1 : len(el)-1])
			} else {
				f = []string{el}
			}
			out = append(out, f...)
			if !optional && !empty {
				nullable = false
				break
			}
		}
		if nullable {
			return out, true
		}
	}
	return out, false
}

// splitElems splits a sequence at top-level spaces, keeping quoted strings
// and parenthesised groups (with their ?, * or + suffix) whole.
func splitElems(s string) []string {
	var out []string
	for _, e := range splitTop(s, ' ') {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// splitTop splits s at top-level occurrences of sep.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start, inQuote := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote:
			if c == '\\' {
				i++
			} else if c == '"' {
				inQuote = false
			}
		case c == '"':
			inQuote = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func newError(src []byte, pos lexer.Position, msg string) *Error {
	return &Error{Pos: pos, Msg: msg, Line: sourceLine(src, pos.Line)}
}
