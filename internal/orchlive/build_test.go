package orchlive_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tarballName is the Orchestrator source the test builds: openark/orchestrator at 730db91,
// without its vendor/ folder (../shared/third_party/README.md).
const tarballName = "orchestrator-730db91.tar.gz"

// buildTimeout bounds a cold build: the module downloads and cgo's SQLite take minutes on two
// cores.
const buildTimeout = 15 * time.Minute

// thirdParty returns the candidates for ../shared/third_party: relative to the repository's
// root, and, in a linked worktree (whose .git is a file naming the main repository's), to the
// main checkout's root, as the tarball sits beside the main checkout.
func thirdParty(t *testing.T) []string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			t.Fatalf("no go.mod above %s", wd)
		}
		root = up
	}
	dirs := []string{filepath.Join(root, "..", "shared", "third_party")}
	if b, err := os.ReadFile(filepath.Join(root, ".git")); err == nil {
		// "gitdir: /main/.git/worktrees/NAME": the main checkout is above its .git.
		if s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if i := strings.Index(s, string(filepath.Separator)+".git"+string(filepath.Separator)); i > 0 {
				dirs = append(dirs, filepath.Join(s[:i], "..", "shared", "third_party"))
			}
		}
	}
	return dirs
}

// orchestratorBinary returns the path of an Orchestrator built from the tarball, building it
// into the user's cache directory the first time (keyed by the tarball's SHA-256, so a new
// tarball builds anew and the same one is built once across runs). Without the tarball it
// skips naming it, or under CI=true fails.
func orchestratorBinary(t *testing.T) string {
	t.Helper()
	var tarball string
	dirs := thirdParty(t)
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, tarballName)); err == nil {
			tarball = filepath.Join(d, tarballName)
			break
		}
	}
	if tarball == "" {
		msg := "the Orchestrator source " + tarballName + " is in none of " + strings.Join(dirs, ", ")
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI=true: this test must run, not skip", msg)
		}
		t.Skipf("skipping: %s", msg)
	}
	sum, err := fileSHA256(tarball)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	base := filepath.Join(cache, "failsim")
	bin := filepath.Join(base, "orchestrator-"+sum[:16], "orchestrator")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		t.Logf("Orchestrator: %s (cached build of %s)", bin, tarball)
		return bin
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building Orchestrator needs the go command: %v", err)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := os.MkdirTemp(base, "orchestrator-build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, "tar", "-xzf", tarball, "-C", work).CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", tarball, err, out)
	}
	built := filepath.Join(work, "orchestrator.bin")
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", built, "./go/cmd/orchestrator")
	cmd.Dir = filepath.Join(work, "orchestrator")
	// The tarball has no vendor/: the modules come through the Go module proxy as go build
	// fetches them; cgo builds the SQLite backend.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "CGO_ENABLED=1", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build Orchestrator (%s in %s): %v\n%s", strings.Join(cmd.Args, " "), cmd.Dir, err, tailOf(out, 4000))
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(built, bin); err != nil {
		t.Fatal(err)
	}
	t.Logf("Orchestrator: built %s from %s in %v (cold)", bin, tarball, time.Since(start).Round(time.Second))
	return bin
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReader(f)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func tailOf(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
