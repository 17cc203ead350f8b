package statemap

import (
	"context"

	"github.com/failsim/failsim/conf"
	"github.com/failsim/failsim/internal/input"
)

// Default returns the shipped defaults alone.
func Default() *Map {
	m, err := FromBytes("", nil)
	if err != nil {
		panic("statemap: the shipped defaults do not parse: " + err.Error())
	}
	return m
}

// FromBytes builds the effective map of the shipped defaults with an override on top; an empty
// overrideName means no override.
func FromBytes(overrideName string, override []byte) (*Map, error) {
	defaults, err := Parse(conf.DefaultsName, conf.Defaults)
	if err != nil {
		return nil, err
	}
	if overrideName == "" {
		return New(defaults), nil
	}
	o, err := Parse(overrideName, override)
	if err != nil {
		return nil, err
	}
	return New(o, defaults), nil
}

// Load reads the override file at path (none when path is "") and returns the effective map.
// It is LoadContext without a way to stop it.
func Load(path string) (*Map, error) { return LoadContext(context.Background(), path) }

// LoadContext reads the override file at path (none when path is "") and returns the
// effective map. The file may hold at most input.StatemapMax bytes; a device file is refused.
// It returns ctx's cause if ctx is done before the file is read (a FIFO no one writes to).
func LoadContext(ctx context.Context, path string) (*Map, error) {
	if path == "" {
		return FromBytes("", nil)
	}
	data, err := input.ReadFile(ctx, path, "statemap", input.StatemapMax)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &FileError{Path: path, Err: err}
	}
	return FromBytes(path, data)
}

// FileError is LoadContext's error for an override file it cannot or will not read: a missing
// file (errors.Is fs.ErrNotExist), a device, one over the cap. timeline.LoadContext's error for
// the file of a timeline's statemap statement wraps one too.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "statemap: " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }
