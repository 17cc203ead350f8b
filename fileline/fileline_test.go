package fileline_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/failsim/failsim/fileline"
)

func TestError(t *testing.T) {
	for _, c := range []struct {
		err  *fileline.Error
		want string
	}{
		{&fileline.Error{File: "a.timeline", Line: 3, Err: errors.New("unknown node \"db9\"")}, `a.timeline:3: unknown node "db9"`},
		{&fileline.Error{File: "a.timeline", Err: errors.New("empty timeline")}, "a.timeline: empty timeline"},
		{fileline.Errorf("<stdin>", 12, "statemap %s: %w", "x.properties", fs.ErrNotExist), "<stdin>:12: statemap x.properties: file does not exist"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
	// The cause is found through it, and it is found through a wrapper.
	err := fileline.Errorf("f", 1, "statemap: %w", fs.ErrNotExist)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
	}
	var fe *fileline.Error
	if wrapped := errors.Join(errors.New("loading"), err); !errors.As(wrapped, &fe) || fe.Line != 1 || fe.File != "f" {
		t.Errorf("errors.As through a wrapper: %+v", fe)
	}
}
