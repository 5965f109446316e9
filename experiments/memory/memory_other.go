//go:build !linux

package trellis

// availableMemory returns 0 (unknown) where the platform gives no simple answer.
func availableMemory() int64 { return 0 }
