//go:build unix

package input

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO is read like a file, with the cap counted as the bytes arrive.
func TestReadFileFIFO(t *testing.T) {
	fifo := mkfifo(t)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(strings.Repeat("x", 1000))
		f.Close()
	}()
	data, err := ReadFile(context.Background(), fifo, "timeline", 1000)
	if err != nil || len(data) != 1000 {
		t.Fatalf("ReadFile(fifo) = %d bytes, %v", len(data), err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(strings.Repeat("x", 1001))
		f.Close()
	}()
	_, err = ReadFile(context.Background(), fifo, "timeline", 1000)
	if !errors.As(err, new(*LimitError)) {
		t.Fatalf("ReadFile(fifo over the cap) = %v, want a *LimitError", err)
	}
}

// A read blocked on a FIFO, in open(2) for want of a writer or in read(2) for want of data,
// returns when its context is done.
func TestReadFileStopsOnCancel(t *testing.T) {
	for _, writer := range []bool{false, true} {
		fifo := mkfifo(t)
		if writer {
			// Opened read-write, the FIFO has a writer that never writes (and no open blocks).
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := errors.New("stop")
		time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
		_, err := ReadFile(ctx, fifo, "timeline", TimelineMax)
		if !errors.Is(err, stop) {
			t.Errorf("writer %v: ReadFile = %v, want the context's cause", writer, err)
		}
	}
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}
