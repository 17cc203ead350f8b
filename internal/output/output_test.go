//go:build unix

package output

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An existing target that is not a regular file is refused and left as it was: a FIFO, a
// symlink (to a file or a device), a directory.
func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	devlink := filepath.Join(dir, "null")
	os.Symlink("/dev/null", devlink)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for path, reason := range map[string]string{
		fifo:        "it is a FIFO",
		link:        "it is a symlink",
		devlink:     "it is a symlink",
		sub:         "it is a directory",
		"/dev/null": "it is a device",
	} {
		err := WriteFile(path, []byte("new"))
		var oe *Error
		if !errors.As(err, &oe) || oe.Reason != reason {
			t.Errorf("WriteFile(%s) = %v, want %q", path, err, reason)
		}
	}
	st, err := os.Lstat(fifo)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is no longer a FIFO: %v %v", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink is no longer a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if st, err := os.Lstat("/dev/null"); err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/null is not a device any more: %v", st.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("left behind: %v", entries)
	}
}

// The run's input is never the output, by any name: the same path, another spelling of it, a
// hard link.
func TestRefusesTheInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "incident.html")
	os.WriteFile(in, []byte("cluster db1:master\n"), 0o644)
	hard := filepath.Join(dir, "hard.html")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, filepath.Join(dir, ".", "incident.html"), hard} {
		err := WriteFile(out, []byte("<html>"), in)
		var oe *Error
		if !errors.As(err, &oe) || !strings.HasPrefix(oe.Reason, "it is the input") {
			t.Errorf("WriteFile(%s) = %v, want it refused as the input", out, err)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "cluster db1:master\n" {
		t.Errorf("the input changed: %q", b)
	}
	// Another file, and "-" or "" as inputs, are fine.
	if err := WriteFile(filepath.Join(dir, "out.html"), []byte("x"), in, "-", ""); err != nil {
		t.Error(err)
	}
}

// A fill that fails or a context cancelled leaves neither the target nor a temporary file;
// a regular file at the target is replaced whole.
func TestWriteWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	os.WriteFile(path, []byte("old"), 0o600)
	boom := errors.New("boom")
	err := Write(context.Background(), path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("x", 1<<20))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	err = Write(ctx, path, func(w io.Writer) error { cancel(stop); _, err := io.WriteString(w, "new"); return err })
	if !errors.Is(err, stop) {
		t.Fatalf("Write under a cancelled context = %v, want stop", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("target = %q after failures, want it untouched", b)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Fatalf("target = %q %v, want new 0644", b, st.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestJoin(t *testing.T) {
	dir := "/out"
	for _, ok := range []string{"a.timeline", "sub/a.timeline", "a..b"} {
		if p, err := Join(dir, ok); err != nil || !strings.HasPrefix(p, "/out/") {
			t.Errorf("Join(%q) = %q, %v", ok, p, err)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a/..", ".", "a//b", "odd\ndir\x01", "a\\b", "\xff", "x\u2028y"} {
		if p, err := Join(dir, bad); err == nil {
			t.Errorf("Join(%q) = %q, want refused", bad, p)
		} else if strings.ContainsAny(err.Error(), "\n\x01") {
			t.Errorf("Join(%q)'s error carries the control character: %q", bad, err)
		}
	}
}

// TestPanicLeavesNoTemporaryFile: a fill that panics leaves nothing in the folder; the panic
// goes on to the caller.
func TestPanicLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the fill's panic did not reach the caller")
			}
		}()
		Write(context.Background(), filepath.Join(dir, "report.html"), func(w io.Writer) error {
			io.WriteString(w, "half a report")
			panic("boom")
		})
	}()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("after a panic the folder holds %v, want nothing", ents)
	}
}
