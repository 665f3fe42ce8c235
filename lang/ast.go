package lang

import "github.com/alecthomas/participle/v2/lexer"

// The grammar is written as participle struct tags. Every node keeps its
// lexer.Position so that semantic errors point at the construct that caused
// them. Operator precedence is encoded by the nesting of the expression
// levels (Ternary < Compare < Additive < Multiplicative < Cast < Unary <
// Postfix < Primary), following Go's operator levels.

// File is one parsed source file.
type File struct {
	Pos     lexer.Position
	Imports []*Import `parser:"@@*"`
	Decls   []*Decl   `parser:"@@*"`
}

// Import names another file whose declarations become visible.
type Import struct {
	Pos  lexer.Position
	Path string `parser:"'import' @String ';'"`
}

// Decl is one top-level declaration.
type Decl struct {
	Pos     lexer.Position
	Const   *ConstDecl   `parser:"  @@"`
	Table   *TableDecl   `parser:"| @@"`
	Fn      *FnDecl      `parser:"| @@"`
	Circuit *CircuitDecl `parser:"| @@"`
}

// ConstDecl is `const NAME (: T)? = expr;`.
type ConstDecl struct {
	Pos   lexer.Position
	Name  string   `parser:"'const' @Ident"`
	Type  *TypeRef `parser:"(':' @@)?"`
	Value *Expr    `parser:"'=' @@ ';'"`
}

// TableDecl is `table NAME: T[N] = [ ... ];`, a constant array.
type TableDecl struct {
	Pos   lexer.Position
	Name  string   `parser:"'table' @Ident"`
	Type  *TypeRef `parser:"':' @@"`
	Value *Expr    `parser:"'=' @@ ';'"`
}

// FnDecl is a function; calls are inlined.
type FnDecl struct {
	Pos    lexer.Position
	Name   string   `parser:"'fn' @Ident"`
	Params []*Param `parser:"'(' (@@ (',' @@)*)? ')'"`
	Result *TypeRef `parser:"'->' @@"`
	Body   *Block   `parser:"@@"`
}

// CircuitDecl is a circuit: named typed inputs and outputs.
type CircuitDecl struct {
	Pos     lexer.Position
	Name    string   `parser:"'circuit' @Ident"`
	Inputs  []*Param `parser:"'(' (@@ (',' @@)*)? ')'"`
	Outputs []*Param `parser:"'->' ( '(' (@@ (',' @@)*)? ')' | @@ )"`
	Body    *Block   `parser:"@@"`
}

// Param is `name: T`.
type Param struct {
	Pos  lexer.Position
	Name string   `parser:"@Ident"`
	Type *TypeRef `parser:"':' @@"`
}

// TypeRef is a type as written: a base name (bit, uN, sN) and array
// dimensions, outermost first: u4[3][2] is 3 elements of u4[2].
type TypeRef struct {
	Pos  lexer.Position
	Name string  `parser:"@Ident"`
	Dims []*Expr `parser:"('[' @@ ']')*"`
}

// Block is a braced statement list with its own scope.
type Block struct {
	Pos    lexer.Position
	Stmts  []*Stmt `parser:"'{' @@* '}'"`
	EndPos lexer.Position
}

// Stmt is one statement.
type Stmt struct {
	Pos    lexer.Position
	Let    *LetStmt    `parser:"  @@"`
	For    *ForStmt    `parser:"| @@"`
	If     *IfStmt     `parser:"| @@"`
	Return *ReturnStmt `parser:"| @@"`
	Block  *Block      `parser:"| @@"`
	Assign *AssignStmt `parser:"| @@"`
}

// LetStmt declares (or shadows) a local variable.
type LetStmt struct {
	Pos   lexer.Position
	Name  string   `parser:"'let' @Ident"`
	Type  *TypeRef `parser:"(':' @@)?"`
	Value *Expr    `parser:"('=' @@)? ';'"`
}

// AssignStmt assigns to a variable, output or array element.
type AssignStmt struct {
	Pos     lexer.Position
	Name    string  `parser:"@Ident"`
	Indices []*Expr `parser:"('[' @@ ']')*"`
	Value   *Expr   `parser:"'=' @@ ';'"`
}

// ForStmt is `for i in A..B { }`, unrolled with A <= i < B.
type ForStmt struct {
	Pos  lexer.Position
	Var  string `parser:"'for' @Ident 'in'"`
	From *Expr  `parser:"@@ '..'"`
	To   *Expr  `parser:"@@"`
	Body *Block `parser:"@@"`
}

// IfStmt is a compile-time or runtime conditional.
type IfStmt struct {
	Pos    lexer.Position
	Cond   *Expr   `parser:"'if' @@"`
	Then   *Block  `parser:"@@"`
	ElseIf *IfStmt `parser:"('else' ( @@"`
	Else   *Block  `parser:"        | @@ ))?"`
}

// ReturnStmt returns a function's result.
type ReturnStmt struct {
	Pos   lexer.Position
	Value *Expr `parser:"'return' @@ ';'"`
}

// Expr is a full expression (a conditional `c ? a : b` or below).
type Expr struct {
	Pos  lexer.Position
	Cond *Compare `parser:"@@"`
	Then *Expr    `parser:"('?' @@"`
	Else *Expr    `parser:"':' @@)?"`
}

// Compare is an optional single comparison (comparisons do not chain).
type Compare struct {
	Pos   lexer.Position
	Left  *Additive `parser:"@@"`
	Op    string    `parser:"( @('==' | '!=' | '<=' | '>=' | '<' | '>')"`
	Right *Additive `parser:"  @@ )?"`
}

// Additive is a left-associative chain of + - | ^.
type Additive struct {
	Pos  lexer.Position
	Left *Multiplicative `parser:"@@"`
	Rest []*AddOp        `parser:"@@*"`
}

// AddOp is one operator and right operand of an Additive chain.
type AddOp struct {
	Pos   lexer.Position
	Op    string          `parser:"@('+' | '-' | '|' | '^')"`
	Right *Multiplicative `parser:"@@"`
}

// Multiplicative is a left-associative chain of * / % << >> &.
type Multiplicative struct {
	Pos  lexer.Position
	Left *Cast    `parser:"@@"`
	Rest []*MulOp `parser:"@@*"`
}

// MulOp is one operator and right operand of a Multiplicative chain.
type MulOp struct {
	Pos   lexer.Position
	Op    string `parser:"@('*' | '/' | '%' | '<<' | '>>' | '&')"`
	Right *Cast  `parser:"@@"`
}

// Cast is a unary expression followed by any number of `as T`.
type Cast struct {
	Pos   lexer.Position
	Value *Unary     `parser:"@@"`
	To    []*TypeRef `parser:"('as' @@)*"`
}

// Unary is a prefix operator applied to a unary expression, or a postfix one.
type Unary struct {
	Pos     lexer.Position
	Op      string   `parser:"(  @('~' | '!' | '-')"`
	Operand *Unary   `parser:"   @@"`
	Value   *Postfix `parser:"| @@ )"`
}

// Postfix is a primary followed by index or slice suffixes.
type Postfix struct {
	Pos     lexer.Position
	Value   *Primary  `parser:"@@"`
	Indices []*Suffix `parser:"@@*"`
}

// Suffix is `[i]` (element or bit index) or `[hi:lo]` (bit slice).
type Suffix struct {
	Pos   lexer.Position
	Index *Expr `parser:"'[' @@"`
	Low   *Expr `parser:"(':' @@)? ']'"`
}

// Primary is a literal, name, call, parenthesised expression, concatenation
// or array literal.
type Primary struct {
	Pos    lexer.Position
	Int    *string   `parser:"  @Int"`
	Name   *string   `parser:"| @Ident"`
	Args   *CallArgs `parser:"  @@?"`
	Paren  *Expr     `parser:"| '(' @@ ')'"`
	Concat []*Expr   `parser:"| '{' @@ (',' @@)* '}'"`
	Array  *ArrayLit `parser:"| @@"`
}

// CallArgs is the argument list of a call `f(a, b)`.
type CallArgs struct {
	Pos  lexer.Position
	Args []*Expr `parser:"'(' (@@ (',' @@)*)? ')'"`
}

// ArrayLit is `[e0, e1, ...]`.
type ArrayLit struct {
	Pos   lexer.Position
	Elems []*Expr `parser:"'[' (@@ (',' @@)* ','?)? ']'"`
}
