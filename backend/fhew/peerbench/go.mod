module github.com/hcc-fhe/hcc/backend/fhew/peerbench

go 1.26.0

require (
	github.com/ALTree/bigfloat v0.0.0-20220102081255-38c8b72a9924 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/stretchr/testify v1.8.0 // indirect
	github.com/tuneinsight/lattigo/v5 v5.0.7
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/exp v0.0.0-20230321023759-10a507213a29 // indirect
	golang.org/x/sys v0.50.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

require github.com/hcc-fhe/hcc v0.0.0

require (
	golang.org/x/sync v0.25.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/hcc-fhe/hcc => ../../..
