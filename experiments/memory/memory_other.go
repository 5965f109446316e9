//go:build !linux

package memory

// availableMemory returns 0 (unknown) where the platform gives no simple answer.
func availableMemory() int64 { return 0 }

// processCgroupLimit returns 0 (none) where cgroups do not exist.
func processCgroupLimit() int64 { return 0 }
