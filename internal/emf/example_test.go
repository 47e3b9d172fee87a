package emf_test

import (
	"os"
	"time"

	"github.com/taskpipe/taskpipe/internal/emf"
)

func ExampleWriter_Record() {
	w := emf.New(os.Stdout, func() time.Time { return time.UnixMilli(1767225600000) })
	_ = w.Record([]emf.Dimension{{Name: emf.DimErrorKind, Value: "fatal"}}, emf.Count(emf.TasksFailed, 1))
	// Output:
	// {"ErrorKind":"fatal","TasksFailed":1,"_aws":{"Timestamp":1767225600000,"CloudWatchMetrics":[{"Namespace":"taskpipe","Dimensions":[["ErrorKind"],[]],"Metrics":[{"Name":"TasksFailed","Unit":"Count"}]}]}}
}
