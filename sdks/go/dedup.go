package relay

import (
	"sync"
	"time"
)

// MinRetention is 96 hours: longer than Relay's retry window (about 76
// hours).
const MinRetention = 96 * time.Hour

const sweepEvery = 60 // seconds

// SeenStore is where verified webhook-ids are remembered. Back it with what
// your processes share (a table with a unique key, Redis SET NX EX, …) and
// keep ids at least [MinRetention].
type SeenStore interface {
	// CheckAndInsert records webhookID as seen at now: true the first
	// time, false when it was already seen within the retention. It must be
	// atomic: of two concurrent calls with one id, at most one returns true.
	CheckAndInsert(webhookID string, now time.Time) (bool, error)
}

// MemorySeenStore is a [SeenStore] in process memory (one process;
// forgotten on restart). It keeps each id for its retention and drops older
// ones, sweeping at most once a minute. It is safe for concurrent use.
type MemorySeenStore struct {
	retention int64 // seconds
	mu        sync.Mutex
	seen      map[string]int64
	nextSweep int64
}

// NewMemorySeenStore keeps ids for [MinRetention].
func NewMemorySeenStore() *MemorySeenStore {
	return NewMemorySeenStoreWithRetention(MinRetention)
}

// NewMemorySeenStoreWithRetention keeps ids for retention (whole seconds);
// less than [MinRetention] is raised to it.
func NewMemorySeenStoreWithRetention(retention time.Duration) *MemorySeenStore {
	if retention < MinRetention {
		retention = MinRetention
	}
	return &MemorySeenStore{retention: int64(retention / time.Second), seen: map[string]int64{}}
}

// Retention is how long ids are kept.
func (s *MemorySeenStore) Retention() time.Duration {
	return time.Duration(s.retention) * time.Second
}

// Len is the number of ids held.
func (s *MemorySeenStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// CheckAndInsert implements [SeenStore]; it never fails.
func (s *MemorySeenStore) CheckAndInsert(webhookID string, now time.Time) (bool, error) {
	t := now.Unix()
	s.mu.Lock()
	defer s.mu.Unlock()
	if t >= s.nextSweep {
		for id, at := range s.seen {
			if t-at > s.retention {
				delete(s.seen, id)
			}
		}
		s.nextSweep = t + sweepEvery
	}
	if at, ok := s.seen[webhookID]; ok && t-at <= s.retention {
		return false, nil
	}
	s.seen[webhookID] = t
	return true, nil
}
