package tfprovider

import (
	"bytes"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// BenchmarkLoadSchema measures provider start-up: parsing the 433 KB schema
// file and converting all 127 schemas to protocol form, which Terraform
// waits for on every command.
func BenchmarkLoadSchema(b *testing.B) {
	b.SetBytes(int64(len(EmbeddedSchema())))
	for b.Loop() {
		if _, err := ParseSchema(bytes.NewReader(EmbeddedSchema())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanPipe measures one plan of the largest schema the pipeline
// uses (aws_pipes_pipe), create and update.
func BenchmarkPlanPipe(b *testing.B) {
	cat := realCatalog(b)
	sch := cat.Resources["aws_pipes_pipe"]
	cfg := configOf(b, sch.Block, pipeJSON(`"batch_size":1,"maximum_retry_attempts":3`, `"name":"p"`))
	null := cty.NullVal(ImpliedType(sch.Block))
	create := &PlanRequest{TypeName: "aws_pipes_pipe", Schema: sch, Prior: null, Config: cfg, Proposed: proposedNew(sch.Block, null, cfg), Provider: &Config{Region: "us-east-1"}}
	first, _ := PlanChange(create)
	prior := applied(b, first.Planned)
	update := &PlanRequest{TypeName: "aws_pipes_pipe", Schema: sch, Prior: prior, Config: cfg, Proposed: proposedNew(sch.Block, prior, cfg), Provider: create.Provider}
	b.ResetTimer()
	for b.Loop() {
		if _, diags := PlanChange(create); len(diags) > 0 {
			b.Fatal(diags)
		}
		if _, diags := PlanChange(update); len(diags) > 0 {
			b.Fatal(diags)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/plan")
}
