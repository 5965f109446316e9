//go:build !unix

package cli

import "errors"

// limitFileSize cannot set a file size limit where there is no RLIMIT_FSIZE.
func limitFileSize(spec string) error {
	if spec == "" {
		return nil
	}
	return errors.New("no file size limit on this system")
}
