//go:build !linux

package trellis

// physicalMemory returns 0 (unknown) where the platform gives no simple answer.
func physicalMemory() int64 { return 0 }
