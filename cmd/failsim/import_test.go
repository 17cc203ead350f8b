package main

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bundle zipped, as tpm diag hands it over, imports as its folder does: the same statements,
// the comments naming the archive's files.
func TestImportZippedBundle(t *testing.T) {
	dir := t.TempDir()
	zpath := filepath.Join(dir, "diag.zip")
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range []string{"db2/cctrl_ls.txt"} {
		data, err := os.ReadFile(filepath.Join("../../bundle/testdata/failover", name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../bundle/testdata/failover.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}
	if code := m.Exit(context.Background(), []string{"import", "tungsten", zpath}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := strings.ReplaceAll(string(golden), "# failover/", "# "+filepath.ToSlash(zpath)+"/")
	if out.String() != want {
		t.Errorf("zipped import differs from the folder's:\n%s", out.String())
	}
	// Not a zip archive: exit 2, named.
	bad := filepath.Join(dir, "bad.zip")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := m.Exit(context.Background(), []string{"import", "tungsten", bad}); code != 2 || !strings.Contains(errOut.String(), "bad.zip: not a zip archive") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
}
