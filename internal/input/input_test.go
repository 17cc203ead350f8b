package input

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("cluster db1:master\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	data, err := ReadFile(ctx, small, "timeline", 100)
	if err != nil || string(data) != "cluster db1:master\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	// Exactly the cap is allowed; one byte more is not.
	if _, err := ReadFile(ctx, small, "timeline", 19); err != nil {
		t.Errorf("a file of exactly the cap: %v", err)
	}
	_, err = ReadFile(ctx, small, "timeline", 18)
	if got, want := errString(err), small+": over the 18 bytes limit for a timeline"; got != want {
		t.Errorf("over the cap: %q, want %q", got, want)
	}
	var le *LimitError
	if !errors.As(err, &le) || le.Max != 18 || le.What != "timeline" {
		t.Errorf("over the cap: %#v is not a *LimitError", err)
	}
	_, err = ReadFile(ctx, "/dev/zero", "statemap", StatemapMax)
	if !errors.Is(err, ErrDevice) || !strings.HasPrefix(errString(err), "/dev/zero: a device, not a file") {
		t.Errorf("/dev/zero: %v, want ErrDevice", err)
	}
	_, err = ReadFile(ctx, dir, "statemap", StatemapMax)
	if !errors.Is(err, ErrDirectory) {
		t.Errorf("a directory: %v, want ErrDirectory", err)
	}
	_, err = ReadFile(ctx, filepath.Join(dir, "nosuch"), "statemap", StatemapMax)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want open ...: no such file", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{128 << 20: "128 MiB", 1 << 20: "1 MiB", 4 << 10: "4 KiB", 1536: "1536 bytes", 7: "7 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRead(t *testing.T) {
	data, err := Read(context.Background(), "<stdin>", strings.NewReader("abc"), "timeline", 3)
	if err != nil || string(data) != "abc" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	_, err = Read(context.Background(), "<stdin>", strings.NewReader("abcd"), "timeline", 3)
	if got, want := errString(err), "<stdin>: over the 3 bytes limit for a timeline"; got != want {
		t.Errorf("Read over the cap: %q, want %q", got, want)
	}
	// A reader that never answers: Read returns with the context.
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := Read(ctx, "<stdin>", r, "timeline", 3); !errors.Is(err, context.Canceled) {
		t.Errorf("Read of a silent reader = %v, want context.Canceled", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestDoneBeforeRead: a context done before the call is the answer every time; with the read
// and the context both ready, a select picked either (TestTimingInterrupted failed once so).
func TestDoneBeforeRead(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stopped")
	cancel(cause)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if _, err := ReadFile(ctx, path, "timeline", 10); err != cause {
			t.Fatalf("ReadFile: %v, want %v", err, cause)
		}
		if _, err := Read(ctx, "stdin", strings.NewReader("x"), "timeline", 10); err != cause {
			t.Fatalf("Read: %v, want %v", err, cause)
		}
	}
}
