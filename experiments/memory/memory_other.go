//go:build !linux

package memory

// readLimits returns no limits (unknown) where the platform gives no simple answer.
func readLimits() Limits { return Limits{} }

// residentOutsideRuntime returns 0 (unknown) where the platform gives no simple answer.
func residentOutsideRuntime() int64 { return 0 }

// peakResident is unknown where the platform gives no simple answer.
func peakResident() (int64, bool) { return 0, false }
