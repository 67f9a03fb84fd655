package report

// MarkdownText makes untrusted text inert in GitHub-flavoured Markdown, for
// other renderers of contract text (the changelog) to escape alike.
func MarkdownText(s string) string { return markdownText(s) }
