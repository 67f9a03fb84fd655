package lsp

// The part of the Language Server Protocol (3.17) the server speaks: only
// the fields it reads or writes.

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"` // UTF-16 code units
}

type span struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string `json:"uri"`
	Range span   `json:"range"`
}

type initializeParams struct {
	RootURI  string `json:"rootUri"`
	RootPath string `json:"rootPath"`
	// InitializationOptions may name the base: {"base": "origin/main"}.
	InitializationOptions *struct {
		Base string `json:"base"`
	} `json:"initializationOptions"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	Capabilities struct {
		Workspace struct {
			WorkspaceEdit struct {
				// SnippetEditSupport (LSP 3.18): the client takes
				// snippet edits, whose tab stops the user types over.
				SnippetEditSupport bool `json:"snippetEditSupport"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

// contentChange replaces Range with Text, or the whole document when Range
// is absent.
type contentChange struct {
	Range *span  `json:"range"`
	Text  string `json:"text"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type diagnostic struct {
	Range              span             `json:"range"`
	Severity           int              `json:"severity"`
	Code               string           `json:"code"`
	CodeDescription    *codeDescription `json:"codeDescription,omitempty"`
	Source             string           `json:"source"`
	Message            string           `json:"message"`
	RelatedInformation []relatedInfo    `json:"relatedInformation,omitempty"`
	Data               *diagnosticData  `json:"data,omitempty"`
}

type codeDescription struct {
	Href string `json:"href"`
}

type relatedInfo struct {
	Location location `json:"location"`
	Message  string   `json:"message"`
}

// diagnosticData travels with a diagnostic to the code action request, so
// an action is built from the finding, not re-read from the message.
type diagnosticData struct {
	Path string `json:"path,omitempty"`
	// Removed is set when the finding is about an element of the base that
	// the buffer no longer has.
	Removed bool `json:"removed,omitempty"`
}

const (
	severityError       = 1
	severityWarning     = 2
	severityInformation = 3
	severityHint        = 4
)

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

const (
	messageError   = 1
	messageWarning = 2
)

type hoverParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     position               `json:"position"`
}

type hover struct {
	Contents markupContent `json:"contents"`
	Range    *span         `json:"range,omitempty"`
}

type markupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        span                   `json:"range"`
	Context      struct {
		Diagnostics []diagnostic `json:"diagnostics"`
	} `json:"context"`
}

type codeAction struct {
	Title       string        `json:"title"`
	Kind        string        `json:"kind"`
	Diagnostics []diagnostic  `json:"diagnostics,omitempty"`
	IsPreferred bool          `json:"isPreferred,omitempty"`
	Edit        workspaceEdit `json:"edit"`
}

type workspaceEdit struct {
	Changes map[string][]textEdit `json:"changes,omitempty"`
	// DocumentChanges carries snippet edits, for a client that takes them.
	DocumentChanges []textDocumentEdit `json:"documentChanges,omitempty"`
}

type textDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []snippetTextEdit `json:"edits"`
}

// snippetTextEdit (LSP 3.18) inserts a snippet: ${1:text} is a tab stop
// showing text, which the user types over.
type snippetTextEdit struct {
	Range   span        `json:"range"`
	Snippet stringValue `json:"snippet"`
}

type stringValue struct {
	Kind  string `json:"kind"` // "snippet"
	Value string `json:"value"`
}

type textEdit struct {
	Range   span   `json:"range"`
	NewText string `json:"newText"`
}
