package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/statemap"
)

// Defaults of Config.
const (
	DefaultRotate  = time.Hour
	DefaultMaxSize = 8 << 20
	// DefaultFlush is how often, in virtual time, the open file is written anew while something
	// was recorded since the last write: what a crash loses at most.
	DefaultFlush = 5 * time.Second
	// IdleFlush is how often the open file is written anew when nothing was recorded, so that
	// its end follows the watch.
	IdleFlush = time.Minute
	queueLen  = 16
	sizeBits  = 40 // a file's bytes in Recorder.size: at most 1 TiB
)

// Config is a recorder's settings.
type Config struct {
	Dir    string // the recording's directory, created if missing; it must hold no recording yet
	Header Header
	// Map is the statemap in force at the start; Override says it came from a file (the
	// recording keeps a copy), not the shipped defaults alone (the files name none).
	Map      *statemap.Map
	Override bool
	// Rotate closes the open file at each multiple of it in UTC clock time (1h: on the hour);
	// zero means DefaultRotate.
	Rotate time.Duration
	// MaxSize closes the open file once a write of it was at least this many bytes; zero means
	// DefaultMaxSize.
	MaxSize int64
	// Flush is DefaultFlush when zero.
	Flush time.Duration
	Log   zerolog.Logger
	// Registry, when not nil, gets failsim_record_errors_total and failsim_record_files_total.
	Registry prometheus.Registerer
}

// Recorder is the flight recorder of a live run: it feeds a Book from the runtime's loop
// (OnOutcome, OnReload, and as a drive.InstantObserver) and writes its segments from a
// goroutine of its own, through a bounded queue: a slow or full disk never holds the loop. A
// write that fails is logged and counted; a write the queue has no room for is dropped if it is
// a write of the open file (the next one holds everything), kept for the next instant if it is
// a closed file. A nil *Recorder records nothing: its methods do nothing.
type Recorder struct {
	cfg      Config
	book     *Book
	sm       string // the statemap file name in force
	seq      int    // the open file's number
	from     time.Duration
	nodes    []fence.NodeView // the engine at the last instant
	lastAt   time.Duration
	flushed  time.Duration // when the open file was last written
	dirty    bool
	rotateAt time.Duration // virtual time of the next clock boundary
	pending  []job
	size     atomic.Int64 // the last write of an open file: its number << sizeBits | its bytes
	jobs     chan job
	wg       sync.WaitGroup
	errs     prometheus.Counter
	files    prometheus.Counter
}

type job struct {
	path   string // to write data to
	data   func() []byte
	remove string // then to remove, if not ""
	open   bool   // a write of the open file, which the next one supersedes
}

// New checks the directory, writes the statemap's copy and starts the writer. Close stops it.
func New(cfg Config) (*Recorder, error) {
	if cfg.Rotate <= 0 {
		cfg.Rotate = DefaultRotate
	}
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultMaxSize
	}
	if cfg.Flush <= 0 {
		cfg.Flush = DefaultFlush
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	if files, err := Files(cfg.Dir); err == nil {
		return nil, fmt.Errorf("%s holds a recording already (%s): record each watch into a directory of its own", cfg.Dir, filepath.Base(files[0]))
	}
	if m, _ := filepath.Glob(filepath.Join(cfg.Dir, "*"+OpenExt)); len(m) > 0 {
		return nil, fmt.Errorf("%s holds a recording already (%s): record each watch into a directory of its own", cfg.Dir, filepath.Base(m[0]))
	}
	r := &Recorder{cfg: cfg, jobs: make(chan job, queueLen),
		errs:  prometheus.NewCounter(prometheus.CounterOpts{Name: "failsim_record_errors_total", Help: "Writes of the recording that failed or found the queue full."}),
		files: prometheus.NewCounter(prometheus.CounterOpts{Name: "failsim_record_files_total", Help: "Recording files closed and written."})}
	if cfg.Registry != nil {
		if err := cfg.Registry.Register(r.errs); err != nil {
			return nil, err
		}
		if err := cfg.Registry.Register(r.files); err != nil {
			return nil, err
		}
	}
	if cfg.Override {
		data := Properties(cfg.Map)
		r.sm = StatemapName(data)
		if err := output.WriteFile(filepath.Join(cfg.Dir, r.sm), data); err != nil {
			return nil, err
		}
	}
	r.book = NewBook(cfg.Header, r.sm)
	r.rotateAt = nextBoundary(cfg.Header.Start, 0, cfg.Rotate)
	r.wg.Add(1)
	go r.write()
	return r, nil
}

// nextBoundary is the virtual time of the first multiple of every, in UTC clock time, after
// virtual time at of a run that started at start.
func nextBoundary(start time.Time, at, every time.Duration) time.Duration {
	t := start.Add(at)
	next := t.Truncate(every).Add(every) // Truncate counts from the zero time, a multiple of days
	return next.Sub(start)
}

// name is the file name of segment seq starting at virtual time from.
func (r *Recorder) name(seq int, from time.Duration) string {
	return fmt.Sprintf("%06d-%s%s", seq, r.cfg.Header.Start.Add(from).UTC().Format("20060102T150405.000Z"), Ext)
}

// OnOutcome is monitor.Config.OnOutcome.
func (r *Recorder) OnOutcome(start, end time.Duration, node int, c statemap.Condition) {
	if r == nil {
		return
	}
	if r.book.Outcome(start, end, node, c) {
		r.dirty = true
	}
}

// Event implements drive.Observer.
func (r *Recorder) Event(ev act.Event) {
	if r == nil {
		return
	}
	if Recorded(ev) {
		r.book.Decide(ev)
		r.dirty = true
	}
}

// Instant implements drive.InstantObserver: the open file is written or closed when due.
func (r *Recorder) Instant(at time.Duration, e fence.View) {
	if r == nil {
		return
	}
	r.lastAt = at
	r.nodes = r.nodes[:0]
	for i := range e.Len() {
		r.nodes = append(r.nodes, e.Node(i))
	}
	r.retry()
	switch {
	case at >= r.rotateAt || r.written() >= r.cfg.MaxSize:
		r.cut(at, r.sm)
	case r.dirty && at-r.flushed >= r.cfg.Flush, at-r.flushed >= IdleFlush:
		r.flush(at)
	}
}

// OnReload is monitor.Config.OnReload: the open file is closed at the last instant, and the
// next names a copy of the new map.
func (r *Recorder) OnReload(_ time.Duration, m *statemap.Map) {
	if r == nil {
		return
	}
	data := Properties(m)
	name := StatemapName(data)
	r.send(job{path: filepath.Join(r.cfg.Dir, name), data: func() []byte { return data }})
	r.cut(r.lastAt, name)
}

// written is the bytes of the open file's last write, 0 before its first: a write of the file
// before it (which the writer may do after the cut) does not count.
func (r *Recorder) written() int64 {
	v := r.size.Load()
	if int(v>>sizeBits) != r.seq {
		return 0
	}
	return v & (1<<sizeBits - 1)
}

// flush writes the open file anew, ending at at.
func (r *Recorder) flush(at time.Duration) {
	seg, h, seq, name := r.book.Open(), r.book.Header(), r.seq, r.name(r.seq, r.from)
	r.flushed, r.dirty = at, false
	r.send(job{path: filepath.Join(r.cfg.Dir, name+".open"), open: true, data: func() []byte {
		b := h.Text(name, seg, at)
		r.size.Store(int64(seq)<<sizeBits | min(int64(len(b)), 1<<sizeBits-1))
		return b
	}})
}

// cut closes the open file at at and opens the next under statemap sm.
func (r *Recorder) cut(at time.Duration, sm string) {
	h, name := r.book.Header(), r.name(r.seq, r.from)
	seg := r.book.Cut(at, slices.Clone(r.nodes), sm)
	path := filepath.Join(r.cfg.Dir, name)
	r.send(job{path: path, remove: path + ".open", data: func() []byte { return h.Text(name, seg, at) }})
	r.seq++
	r.from, r.sm, r.flushed, r.dirty = at, sm, at, false
	r.rotateAt = nextBoundary(r.cfg.Header.Start, at, r.cfg.Rotate)
}

// send queues j without waiting: a closed file's write waits in pending for room.
func (r *Recorder) send(j job) {
	if len(r.pending) > 0 && !j.open {
		r.pending = append(r.pending, j)
		return
	}
	select {
	case r.jobs <- j:
	default:
		if j.open {
			r.errs.Inc()
			r.cfg.Log.Warn().Str("file", j.path).Msg("recording: the writer is behind: this write of the open file is skipped")
			return
		}
		r.pending = append(r.pending, j)
	}
}

// retry queues the closed files' writes that waited for room, in order.
func (r *Recorder) retry() {
	for len(r.pending) > 0 {
		select {
		case r.jobs <- r.pending[0]:
			r.pending = r.pending[1:]
		default:
			return
		}
	}
}

// Close closes the open file at the last instant (or its last event's start, if later: a
// change that decided nothing), waits for every write and stops the writer. Call it once the
// run has returned.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.cut(max(r.lastAt, r.book.Last()), r.sm)
	for _, j := range r.pending {
		r.jobs <- j
	}
	r.pending = nil
	close(r.jobs)
	r.wg.Wait()
}

// write does the jobs, in order, until the queue is closed.
func (r *Recorder) write() {
	defer r.wg.Done()
	for j := range r.jobs {
		err := output.WriteFile(j.path, j.data())
		if err == nil && j.remove != "" {
			if rerr := os.Remove(j.remove); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				err = rerr
			}
		}
		if err == nil && !j.open && filepath.Ext(j.path) == Ext {
			r.files.Inc()
		}
		if err != nil {
			r.errs.Inc()
			r.cfg.Log.Error().Err(err).Msg("recording: a write failed; the watch goes on")
		}
	}
}
