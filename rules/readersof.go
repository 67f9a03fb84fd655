package rules

// ReadersOf says what consumer evidence holds about the readers of the
// field c removes, one reading per consumer: active are those read within
// the window, gone those last seen before it. It is what
// field-removed-while-read and field-removed-unread judge by, for reports
// that show the evidence beside the finding. Nil for any other change, or
// without evidence.
func ReadersOf(ev Evidence, c *Change) (active, gone []Reader) {
	if ev == nil || !c.Is(Removed, SubjectField) || (c.Format != Proto && !c.Dir.Has(Response)) {
		return nil, nil
	}
	r := lookReaders(ev, c)
	return r.active, byConsumer(r.gone)
}
