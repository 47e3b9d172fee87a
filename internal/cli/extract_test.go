package cli_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/site"
)

// TestExtractCommittedPage: taskpipe extract prints the site document of a
// saved page, with the main content in the top-level text.
func TestExtractCommittedPage(t *testing.T) {
	t.Parallel()
	for _, stdin := range []bool{false, true} {
		var out, errw bytes.Buffer
		env := &cli.Env{Stdout: &out, Stderr: &errw}
		args := []string{"--url", "https://www.boulangerie-martin.example/", "testdata/extract-fr.html"}
		if stdin {
			f, err := os.Open("testdata/extract-fr.html")
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })
			env.Stdin, args[2] = f, "-"
		}
		require.NoError(t, env.Extract(t.Context(), args), errw.String())
		d, err := site.Unmarshal(out.Bytes())
		require.NoError(t, err)
		require.Contains(t, d.Text, "levain naturel")
		require.NotContains(t, d.Text, "cookies", "the cookie banner is boilerplate")
		require.NotContains(t, d.Text, "Notre pain", "the headline has its own field")
		require.Equal(t, "Notre pain", d.Pages[0].H1)
		require.Equal(t, "Boulangerie Martin SARL", d.Name)
		require.Equal(t, []string{"fr"}, d.Languages)
		require.Equal(t, "+33478123456", d.Contacts.Phones[0].E164)
		require.Equal(t, []string{"bonjour@boulangerie-martin.example", "commandes@boulangerie-martin.example"}, d.Contacts.Emails)
		require.Equal(t, "Lyon", d.Contacts.Addresses[0].Locality)
		require.Equal(t, "Bakery", d.Organizations[0].Type)
		require.Empty(t, d.Robots, "nothing is fetched")
	}
}

func TestExtractUsage(t *testing.T) {
	t.Parallel()
	env := &cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	var ue *cli.UsageError
	require.ErrorAs(t, env.Extract(t.Context(), nil), &ue)
	require.ErrorAs(t, env.Extract(t.Context(), []string{"--url", "ftp://x", "f.html"}), &ue)
	require.ErrorContains(t, env.Extract(t.Context(), []string{"testdata/missing.html"}), "no such file")
}

// TestScrapeCommand crawls a test server under the production policy,
// reaching it through --allow-addr only.
func TestScrapeCommand(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("testdata/extract-fr.html")
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /mentions-legales\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	var out, errw bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errw}
	addr := strings.TrimPrefix(srv.URL, "http://")
	require.NoError(t, env.Scrape(t.Context(), []string{"--allow-addr", addr, srv.URL}), errw.String())
	d, err := site.Unmarshal(out.Bytes())
	require.NoError(t, err)
	require.Equal(t, site.RobotsRules, d.Robots[0].Outcome)
	var roles []site.PageRole
	for _, p := range d.Pages {
		roles = append(roles, p.Role)
	}
	require.Equal(t, []site.PageRole{site.RoleStart, site.RoleContact, site.RoleAbout}, roles, "the imprint is disallowed")

	err = (&cli.Env{Stdout: &out, Stderr: &errw}).Scrape(t.Context(), []string{srv.URL})
	require.ErrorContains(t, err, "blocked address", "without --allow-addr the loopback server is refused")
}
