package record

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Ext ends a recording's closed files, OpenExt the file a watch has open (renamed to Ext when
// it rotates; left behind, with what it held at its last flush, by a watch that crashed).
const (
	Ext     = ".timeline"
	OpenExt = ".timeline.open"
)

// IsDir reports whether path names a directory: a recording, where a timeline file is wanted.
func IsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Files returns the closed files of the recording in dir, in name order, which is time order
// (a file is named for its first instant).
func Files(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files, open []string
	for _, e := range ents {
		switch name := e.Name(); {
		case strings.HasPrefix(name, "."):
		case strings.HasSuffix(name, OpenExt):
			open = append(open, name)
		case strings.HasSuffix(name, Ext) && e.Type().IsRegular():
			files = append(files, filepath.Join(dir, name))
		}
	}
	if len(files) == 0 {
		why := fmt.Sprintf("no recording in it: no file *%s", Ext)
		if len(open) > 0 {
			why += fmt.Sprintf(" (%s is the file a watch had open: rename it to end in %s to replay what it held)", open[0], Ext)
		}
		return nil, &fileline.Error{File: dir, Err: errors.New(why)}
	}
	slices.Sort(files)
	return files, nil
}

// ReadDir reads the recording in dir, every closed file, and joins them (Join), with no
// statemap read. The files may hold at most input.TimelineMax bytes together.
func ReadDir(ctx context.Context, dir string) (*timeline.Timeline, error) {
	tl, _, err := readDir(ctx, dir)
	return tl, err
}

// readDir is ReadDir, with the files it joined.
func readDir(ctx context.Context, dir string) (*timeline.Timeline, []*timeline.Timeline, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, nil, err
	}
	tls := make([]*timeline.Timeline, len(files))
	var total int64
	for i, path := range files {
		data, err := input.ReadFile(ctx, path, "timeline", input.TimelineMax)
		if err != nil {
			return nil, nil, err
		}
		if total += int64(len(data)); total > input.TimelineMax {
			return nil, nil, &fileline.Error{File: dir, Err: fmt.Errorf("over the %s limit for a timeline, its files together", input.Size(input.TimelineMax))}
		}
		if tls[i], err = timeline.Parse(path, data); err != nil {
			return nil, nil, err
		}
	}
	tl, err := Join(dir, tls)
	return tl, tls, err
}

// LoadDir reads the recording in dir as ReadDir does, and its statemap: override when not "",
// else the one the files' statemap statement names (the shipped defaults when they have none).
// Without an override every file must name the same statemap: a timeline has one, and a
// reload while recording changed it (replay the files from the reload on as a directory of
// their own, or give the map to judge them all by).
func LoadDir(ctx context.Context, dir, override string) (*timeline.Timeline, *statemap.Map, error) {
	tl, files, err := readDir(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if override == "" {
		if err := sameStatemap(files); err != nil {
			return nil, nil, err
		}
	}
	if override != "" || tl.Statemap == "" {
		sm, err := statemap.LoadContext(ctx, override)
		return tl, sm, err
	}
	data, err := input.ReadFile(ctx, tl.Statemap, "statemap", input.StatemapMax)
	if err != nil {
		var refused *input.Error
		if errors.As(err, &refused) {
			err = refused.Err
		}
		return nil, nil, &fileline.Error{File: files[0].File, Line: tl.StatemapLine, Err: fmt.Errorf("statemap %s: %w", tl.Statemap, err)}
	}
	sm, err := statemap.FromBytes(tl.Statemap, data)
	return tl, sm, err
}

// sameStatemap checks that every file of a recording names the first one's statemap.
func sameStatemap(files []*timeline.Timeline) error {
	sm := files[0].Statemap
	for _, tl := range files[1:] {
		if tl.Statemap != sm {
			return &fileline.Error{File: tl.File, Line: max(tl.StatemapLine, 1), Err: fmt.Errorf("the statemap changes here, from %s to %s (a reload while recording): one replay has one statemap; give the one to judge every file by, or replay the files from here on as a directory of their own", orDefaults(sm), orDefaults(tl.Statemap))}
		}
	}
	return nil
}

func orDefaults(sm string) string {
	if sm == "" {
		return "the shipped defaults"
	}
	return filepath.Base(sm)
}

// Join joins the files of one recording, in time order, into one timeline named name: the
// first file's cluster, checker, start and policy, which every other file must state too (an
// error at the other's line otherwise); every file's events in time order (file order among
// equal times), but for "cluster end", which only the last file's stands as; the last file's
// end; every file's expectations, in file order, each with its line in its own file and that
// file's name after its text. The statemap is the first file's: LoadDir checks the others'.
func Join(name string, files []*timeline.Timeline) (*timeline.Timeline, error) {
	if len(files) == 0 {
		return nil, &fileline.Error{File: name, Err: errors.New("no recording files to join")}
	}
	first := files[0]
	out := *first
	out.File = name
	out.Events = nil
	out.Expects = nil
	for k, tl := range files {
		if err := sameHeader(first, tl); err != nil {
			return nil, err
		}
		if tl.Repl != nil || tl.Group != 0 {
			return nil, &fileline.Error{File: tl.File, Line: max(tl.Group, 1), Err: errors.New("not a recording: it has a workload, replication or group statement, which failsim watch never writes")}
		}
		for _, ev := range tl.Events {
			if ev.Kind == act.End && k < len(files)-1 {
				continue
			}
			out.Events = append(out.Events, ev)
		}
		base := filepath.Base(tl.File)
		for _, x := range tl.Expects {
			x.Text += " (" + base + ")" // the joined run's expectations print as the directory's: say whose line
			out.Expects = append(out.Expects, x)
		}
	}
	slices.SortStableFunc(out.Events, func(a, b timeline.Event) int { return cmp.Compare(a.At, b.At) })
	last := files[len(files)-1]
	out.End = last.End
	for _, ev := range out.Events {
		if ev.At > out.End {
			return nil, &fileline.Error{File: name, Err: fmt.Errorf("an event at %s is after the recording's end at %s", timeline.Clock(out.Start, ev.At), timeline.Clock(out.Start, out.End))}
		}
	}
	return &out, nil
}

// sameHeader checks that file tl states what the recording's first file does.
func sameHeader(first, tl *timeline.Timeline) error {
	var why string
	switch {
	case !slices.Equal(first.Nodes, tl.Nodes) || !slices.Equal(first.Witnesses, tl.Witnesses):
		why = "its cluster line is not the first file's"
	case first.Interval != tl.Interval || first.Timeout != tl.Timeout:
		why = "its checker is not the first file's"
	case !first.Start.Equal(tl.Start):
		why = "its start is not the first file's: a recording's files share the watch's start"
	case first.Policy != tl.Policy:
		why = "its policy is not the first file's"
	default:
		return nil
	}
	return &fileline.Error{File: tl.File, Line: 1, Err: fmt.Errorf("%s (%s): the files of a recording are segments of one watch", why, filepath.Base(first.File))}
}
