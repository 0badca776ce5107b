package publisher

import (
	"sort"
)

// WatchFaults calls fn with every fault the loader reports from now on,
// after the Fault hook and before the fault handler, on the goroutine that
// raised it, until the returned function is called. It lets a component
// that feeds the loader (publisher/dirfollow) learn which of the records it
// fed were skipped in Skip mode, and say so to its own caller, without
// taking the fault handler from the embedder. fn follows the fault
// handler's rules: it must not feed the loader. WatchFaults and stop are
// called on the loader's goroutine.
func (l *Loader) WatchFaults(fn func(*Fault)) (stop func()) {
	if l.listeners == nil {
		l.listeners = map[int]func(*Fault){}
	}
	id := l.nextID
	l.nextID++
	l.listeners[id] = fn
	return func() { delete(l.listeners, id) }
}

func (l *Loader) notifyFaultListeners(f *Fault) {
	if len(l.listeners) == 0 {
		return
	}
	ids := make([]int, 0, len(l.listeners))
	for id := range l.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fns := make([]func(*Fault), len(ids))
	for i, id := range ids {
		fns[i] = l.listeners[id]
	}
	for _, fn := range fns {
		fn(f)
	}
}

// ReportReadError reports a failure to read the log that feeds the loader
// (Kafka's raft client and MetadataLoader log "Error loading metadata log
// record" through the same fault handler): a FaultRead at offset, counted
// in Stats.ReadErrors, passed to the Fault hook, the WatchFaults listeners
// and the fault handler. It changes nothing else: the last good image stays
// published. err should name the file and byte position (a
// *metalog.CorruptionError does).
func (l *Loader) ReportReadError(offset int64, err error) {
	l.enter()
	defer l.leave()
	l.setStats(func(s *Stats) { s.ReadErrors++ })
	l.fault(&Fault{Kind: FaultRead, Offset: offset, Err: err})
}
