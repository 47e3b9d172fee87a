package handler

import (
	"context"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
)

// ScrapeClient adapts a *scrape.Client to PageScraper.
type ScrapeClient struct {
	Client *scrape.Client
}

var _ PageScraper = ScrapeClient{}

// Scrape implements PageScraper with Crawl.
func (c ScrapeClient) Scrape(ctx context.Context, rawURL string) (*site.Document, error) {
	return c.Client.Crawl(ctx, rawURL)
}
