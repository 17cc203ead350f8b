package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomicLeavesNothingHalfWritten: a write that fails half-way leaves the old file as
// it was and no temporary file beside it; one that succeeds replaces it whole.
func TestWriteAtomicLeavesNothingHalfWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := writeAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half a report")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("writeAtomic: %v, want the fill's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old %q", got, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after a failed write the folder holds %d files, want the one", len(ents))
	}
	if err := writeAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the file holds %q, want %q", got, "new")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}
