package timeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/timeline"
)

func TestLoadContext(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.properties", "# "+strings.Repeat("x", input.StatemapMax)+"\n")
	ctx := context.Background()
	for _, c := range []struct {
		name, text, want string
	}{
		// The statement's file is refused at the statement's line, naming the limit.
		{"zero.timeline", "cluster db1:master\nstatemap /dev/zero\n", ":2: statemap /dev/zero: a device, not a file: failsim reads regular files, FIFOs and standard input"},
		{"big.timeline", "cluster db1:master\n\nstatemap big.properties\n", ":3: statemap " + big + ": over the 1 MiB limit for a statemap"},
		{"missing.timeline", "cluster db1:master\nstatemap nowhere.properties\n", ":2: statemap " + filepath.Join(dir, "nowhere.properties") + ": open " + filepath.Join(dir, "nowhere.properties") + ": no such file or directory"},
	} {
		p := write(c.name, c.text)
		_, _, err := timeline.LoadContext(ctx, p, nil, "")
		if err == nil || err.Error() != p+c.want {
			t.Errorf("%s: %v\nwant %s%s", c.name, err, p, c.want)
		}
	}
	// --statemap names the device: the statemap's own error.
	ok := write("ok.timeline", "cluster db1:master\n")
	if _, _, err := timeline.LoadContext(ctx, ok, nil, "/dev/urandom"); !errors.Is(err, input.ErrDevice) {
		t.Errorf("--statemap /dev/urandom: %v, want ErrDevice", err)
	}
	if _, _, err := timeline.LoadContext(ctx, "/dev/zero", nil, ""); !errors.Is(err, input.ErrDevice) {
		t.Errorf("timeline /dev/zero: %v, want ErrDevice", err)
	}
	// "-" is standard input, named <stdin>.
	tl, _, err := timeline.LoadContext(ctx, "-", strings.NewReader("cluster db1:master\n00:00:10 db1 freeze\n"), "")
	if err != nil || tl.File != timeline.StdinName || len(tl.Events) != 1 {
		t.Errorf("stdin: %+v, %v", tl, err)
	}
	_, _, err = timeline.LoadContext(ctx, "-", strings.NewReader("cluster db1:master\n00:00:10 db1 melt\n"), "")
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>:2: ") {
		t.Errorf("stdin error: %v, want <stdin>:2: ...", err)
	}
}
