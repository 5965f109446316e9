package reports

// unregister removes a report that a test registered.
func unregister(name string) {
	reportsMu.Lock()
	defer reportsMu.Unlock()
	delete(reportTable, name)
}
