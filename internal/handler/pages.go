package handler

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/task"
)

// ScrapeClient adapts a *scrape.Client to PageScraper: the summary is
// marshalled within task.MaxResultBytes.
type ScrapeClient struct {
	Client *scrape.Client
}

var _ PageScraper = ScrapeClient{}

// Scrape implements PageScraper.
func (c ScrapeClient) Scrape(ctx context.Context, rawURL string) (json.RawMessage, error) {
	res, err := c.Client.Scrape(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	b, err := res.Summary.MarshalBounded()
	if err != nil {
		// The summary holds only strings and numbers; a marshal error is a
		// bug that no retry of the same page fixes.
		return nil, task.Fatal(fmt.Errorf("handler: marshal summary: %w", err))
	}
	return b, nil
}
