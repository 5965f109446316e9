package runner

import (
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows how far a run is: a bar on a terminal, otherwise a log line every period, so
// that CI logs are not flooded with redraws.
type progress struct {
	bar   *mpb.Bar
	p     *mpb.Progress
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	done  int
	fail  int
	total int
	start time.Time
}

// newProgress shows the progress of total units of what ("items" while data are made, "tasks").
func newProgress(what string, total int, terminal bool, w io.Writer, log *slog.Logger, every time.Duration) *progress {
	pr := &progress{total: total, start: time.Now(), stop: make(chan struct{})}
	if terminal {
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(what+" "), decor.CountersNoUnit("%d/%d", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Name(" eta "), decor.AverageETA(decor.ET_STYLE_GO)),
		)
		return pr
	}
	if every <= 0 {
		return pr
	}
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pr.stop:
				return
			case <-t.C:
				pr.mu.Lock()
				done, fail := pr.done, pr.fail
				pr.mu.Unlock()
				elapsed := time.Since(pr.start)
				args := []any{"of", what, "done", done, "total", pr.total, "failed", fail, "elapsed", elapsed.Round(time.Second)}
				if done > 0 {
					eta := time.Duration(float64(elapsed) / float64(done) * float64(pr.total-done))
					args = append(args, "eta", eta.Round(time.Second))
				}
				log.Info("progress", args...)
			}
		}
	}()
	return pr
}

// add counts one finished task.
func (pr *progress) add(failed bool) {
	pr.mu.Lock()
	pr.done++
	if failed {
		pr.fail++
	}
	pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.Increment()
	}
}

// close stops the display; aborted leaves the bar where it stopped.
func (pr *progress) close(aborted bool) {
	close(pr.stop)
	pr.wg.Wait()
	if pr.bar != nil {
		if aborted || pr.bar.Current() < int64(pr.total) {
			pr.bar.Abort(false)
		}
		pr.p.Wait()
	}
}
