package cli

// AlsoFormats are the formats with an --output-FORMAT flag, for the tests
// that let one run write several.
func AlsoFormats() []string { return alsoFormats }
