package awsmodel

// Regenerate the artifact from an installed botocore (see PROVENANCE.md):
//
//	BOTOCORE_DATA=/path/to/site-packages/botocore/data go generate ./internal/localaws/awsmodel
//
//go:generate go run ./internal/gen -botocore=${BOTOCORE_DATA} -out model.json.gz -examples testdata/examples.json.gz -provenance PROVENANCE.md -gosdk
