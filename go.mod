module github.com/hcc-fhe/hcc

go 1.26.0

require (
	github.com/alecthomas/participle/v2 v2.1.4
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	gonum.org/v1/gonum v0.17.0
)
