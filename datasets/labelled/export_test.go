package labelled

// SetLimits lowers the line and gzip limits for a test; the returned function restores them.
func SetLimits(line int, gzip int64) (restore func()) {
	l, g := lineLimit, gzipLimit
	lineLimit, gzipLimit = line, gzip
	return func() { lineLimit, gzipLimit = l, g }
}
