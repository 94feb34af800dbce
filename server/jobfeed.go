package server

import (
	"context"
	"sync"
	"time"

	"rangecopy/api"
)

// jobFeeds shares the following of a job among its event streams: one ZooKeeper watch and
// one look at the catalog a second per job followed, however many streams follow it. A
// feed starts with its first stream and stops when its last one leaves.
type jobFeeds struct {
	a     *rest
	mu    sync.Mutex
	feeds map[string]*jobFeed
}

// jobFeed is the following of one job.
type jobFeed struct {
	subs map[chan jobLook]struct{}
	last *jobLook // the latest look, for a stream that joins
	stop context.CancelFunc
}

// jobLook is one look at a job: its view, or why there is none.
type jobLook struct {
	v   api.JobOut
	err error
}

func newJobFeeds(a *rest) *jobFeeds { return &jobFeeds{a: a, feeds: map[string]*jobFeed{}} }

// subscribe follows job id: the channel holds the latest look at it (older ones are
// dropped for a stream that reads slowly); leave ends the following.
func (f *jobFeeds) subscribe(id string) (looks <-chan jobLook, leave func()) {
	ch := make(chan jobLook, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	feed, ok := f.feeds[id]
	if !ok {
		ctx, cancel := context.WithCancel(context.Background())
		feed = &jobFeed{subs: map[chan jobLook]struct{}{}, stop: cancel}
		f.feeds[id] = feed
		go f.run(ctx, id, feed)
	}
	feed.subs[ch] = struct{}{}
	if feed.last != nil {
		ch <- *feed.last
	}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			delete(feed.subs, ch)
			if len(feed.subs) == 0 {
				feed.stop()
				delete(f.feeds, id)
			}
		})
	}
}

// run looks at the job at once, whenever the registry says it changed and every eventPoll
// (the catalog, and a job the registry does not hold), and hands each look to the feed's
// streams, until ctx ends.
func (f *jobFeeds) run(ctx context.Context, id string, feed *jobFeed) {
	t := time.NewTicker(eventPoll)
	defer t.Stop()
	changed, err := f.a.s.reg.WatchJob(ctx, id)
	if err != nil {
		changed = nil
	}
	for {
		v, err := f.a.jobView(ctx, id)
		if ctx.Err() != nil {
			return
		}
		look := jobLook{v: v, err: err}
		f.mu.Lock()
		feed.last = &look
		for ch := range feed.subs {
			select { // drop the look the stream has not read
			case <-ch:
			default:
			}
			ch <- look
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case _, ok := <-changed:
			if !ok {
				changed = nil
			}
		}
	}
}

// following is how many jobs are followed.
func (f *jobFeeds) following() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.feeds)
}
