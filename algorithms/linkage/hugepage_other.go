//go:build !linux

package linkage

// adviseHugePages does nothing outside Linux.
func adviseHugePages([]float64) {}
