// Package datafile opens the data files a run reads so that reading them can be interrupted and
// identified: Open and Read give up when their context is cancelled (also while a FIFO waits for
// a writer, or a slow device for data), and a File hashes the bytes read (SHA-256), which the
// run's manifest records so that a resume or a merge can refuse data that changed.
package datafile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"time"
)

// File is an open data file read through its context. It is not safe for concurrent use.
type File struct {
	ctx  context.Context
	f    *os.File
	h    hash.Hash
	n    int64
	stop func() bool
}

// Open opens path for reading. Opening a FIFO waits for a writer; a cancelled ctx ends the wait
// with ctx's error (the blocked open is left to finish on its own and its file is closed then).
func Open(ctx context.Context, path string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-ch:
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("opening %s: %w", path, context.Cause(ctx))
	}
	if o.err != nil {
		return nil, o.err
	}
	df := &File{ctx: ctx, f: o.f, h: sha256.New()}
	// A read from a pipe or FIFO blocks until data come; a deadline in the past ends it. Regular
	// files take no deadline (their reads always return) and are checked between reads.
	df.stop = context.AfterFunc(ctx, func() { o.f.SetReadDeadline(time.Now()) })
	return df, nil
}

// Read reads from the file, returning ctx's error once the context is cancelled.
func (f *File) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", f.f.Name(), context.Cause(f.ctx))
	}
	n, err := f.f.Read(p)
	f.h.Write(p[:n])
	f.n += int64(n)
	if errors.Is(err, os.ErrDeadlineExceeded) && f.ctx.Err() != nil {
		err = fmt.Errorf("reading %s: %w", f.f.Name(), context.Cause(f.ctx))
	}
	return n, err
}

// Name returns the path the file was opened with.
func (f *File) Name() string { return f.f.Name() }

// SHA256 returns the hex SHA-256 of the bytes read so far: of the whole file once it has been
// read to its end.
func (f *File) SHA256() string { return hex.EncodeToString(f.h.Sum(nil)) }

// Size returns the number of bytes read so far.
func (f *File) Size() int64 { return f.n }

// Close closes the file.
func (f *File) Close() error {
	f.stop()
	return f.f.Close()
}
