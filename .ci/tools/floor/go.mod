module github.com/contractlint/contractlint/ci-tools/floor

go 1.26.8

require (
	github.com/contractlint/contractlint v0.0.0
	go.yaml.in/yaml/v4 v4.0.0
)

require (
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.43.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/contractlint/contractlint => ../../..
