package htmlpage

import "html/template"

// New parses a page whose text defines two templates, "title" (plain text)
// and "body" (the contents of <body>), and returns a template that renders
// the whole document around them with the shared stylesheet. It panics on a
// parse error, as template.Must does: the pages are program text.
func New(name string, funcs template.FuncMap, text string) *template.Template {
	t := template.New(name).Funcs(template.FuncMap{"htmlpageStyle": func() template.CSS { return template.CSS(Style) }})
	if funcs != nil {
		t = t.Funcs(funcs)
	}
	template.Must(t.Parse(layout))
	return template.Must(t.Parse(text))
}

// layout is the document around a page's title and body. The viewport line
// lets a phone lay the page out at its own width instead of a desktop's.
const layout = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{template "title" .}}</title>
<style>
{{htmlpageStyle}}</style>
</head>
<body>
{{template "body" .}}
</body>
</html>
`
