package task

// Names of the table attributes that components other than the store match
// on: the Pipe filter (status in the stream's NewImage/OldImage), the
// enrichment and the scraper's message parser (taskId, runId, url in stream
// records). They are part of the deployed contract; the store owns the rest
// of the row layout.
const (
	AttrTaskID = "taskId"
	AttrRunID  = "runId"
	AttrURL    = "url"
	AttrStatus = "status"
)
