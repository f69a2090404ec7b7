package htmlpage

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
)

// Every page is one document with the shared head: the stylesheet, the
// viewport line a phone needs, and the page's own title and body, escaped
// as html/template escapes.
func TestNewWrapsTitleAndBody(t *testing.T) {
	t.Parallel()
	p := New("t", template.FuncMap{"up": strings.ToUpper}, `{{define "title"}}Run {{.}}{{end}}{{define "body"}}<h1>{{up .}}</h1>{{end}}`)
	var b bytes.Buffer
	if err := p.Execute(&b, "a<b"); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"<!DOCTYPE html>",
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		"<title>Run a&lt;b</title>",
		"<h1>A&lt;B</h1>",
		"tr.alarm td{",
		"</body>\n</html>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "<style>") != 1 {
		t.Errorf("page has %d stylesheets, want 1", strings.Count(got, "<style>"))
	}
}

// A page without a body is a programming error caught when it runs, not a
// blank page.
func TestNewWithoutBodyFails(t *testing.T) {
	t.Parallel()
	p := New("t", nil, `{{define "title"}}x{{end}}`)
	if err := p.Execute(&bytes.Buffer{}, nil); err == nil {
		t.Fatal("a page without a body rendered")
	}
}
