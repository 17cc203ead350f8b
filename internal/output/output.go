// Package output writes what failsim writes to files (reports, counterexamples, shares,
// JUnit XML, a sweep's files) safely:
//
//   - never over anything but a regular file: an existing device node, FIFO, socket, symlink or
//     directory at the path is refused, not replaced (as root, a rename over /dev/null would
//     replace the system's /dev/null);
//   - never over one of the run's own inputs (the same file by device and inode, so a hard link
//     or another spelling of the path is caught too);
//   - whole or not at all: the bytes go to a temporary file beside the target, renamed over it
//     once complete, and the temporary file is removed on every error path, a cancelled context
//     included;
//   - inside the directory the user named, for names that come from a file a peer can write (a
//     share's counterexample name): Join refuses absolute names, "..", separators' tricks and
//     control characters.
//
// Every refusal is an *Error, which the commands report as bad input (exit 2).
package output

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is an output path failsim refuses to write.
type Error struct {
	Path   string // the path as the user gave it
	Reason string // why, e.g. "it is a symlink"
}

func (e *Error) Error() string { return fmt.Sprintf("%s: refusing to write: %s", e.Path, e.Reason) }

// Check says whether path may be written: it is missing or a regular file, and is not one of
// inputs (paths the run reads; "" and "-" are skipped). Call it before a long run so that the
// run does not find out only at its end; Write checks again just before it renames.
func Check(path string, inputs ...string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrap(err))
	}
	if reason := notRegular(st.Mode()); reason != "" {
		return &Error{Path: path, Reason: reason}
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		ist, err := os.Stat(in)
		if err != nil {
			continue
		}
		if os.SameFile(st, ist) {
			if in == path {
				return &Error{Path: path, Reason: "it is the input"}
			}
			return &Error{Path: path, Reason: "it is the input " + in}
		}
	}
	return nil
}

// notRegular names what a mode is when it is not a regular file, or returns "".
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m&fs.ModeSymlink != 0:
		return "it is a symlink"
	case m.IsDir():
		return "it is a directory"
	case m&fs.ModeNamedPipe != 0:
		return "it is a FIFO"
	case m&fs.ModeSocket != 0:
		return "it is a socket"
	case m&fs.ModeDevice != 0:
		return "it is a device"
	default:
		return "it is not a regular file"
	}
}

// WriteFile writes data to path as Write does.
func WriteFile(path string, data []byte, inputs ...string) error {
	return Write(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, inputs...)
}

// Write writes path through fill, buffered: to a temporary file in path's directory, renamed
// over path once fill returned nil, the buffer was flushed and the file closed. Nothing is
// written when Check refuses path, and nothing is left behind when fill, the write or ctx
// fails (ctx is checked after fill returns: fill itself should watch ctx in long loops). The
// file's mode is 0644.
func Write(ctx context.Context, path string, fill func(io.Writer) error, inputs ...string) error {
	if err := Check(path, inputs...); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrap(err))
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done { // fill panicked: the panic goes on, the temporary file does not stay
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fill(bw)
	done = true
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = context.Cause(ctx)
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Check(path, inputs...) // the path may have changed while fill ran
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		var oe *Error
		if errors.As(err, &oe) || ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
			return err // already names the path, or is the signal that stopped the run
		}
		return fmt.Errorf("%s: %w", path, unwrap(err))
	}
	return nil
}

// unwrap drops the path from a *fs.PathError or *os.LinkError: the caller names the path the
// user gave, and a temporary file's random name means nothing to the user.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Join returns dir/name for a name that comes from a file a peer may have written, refusing
// (with an *Error) a name that is empty, absolute, contains "..", a control character, a
// backslash or invalid UTF-8, or would resolve outside dir. name may have subdirectories
// ("a/b.timeline").
func Join(dir, name string) (string, error) {
	if reason := badName(name); reason != "" {
		return "", &Error{Path: quote(name), Reason: reason}
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return "", &Error{Path: quote(name), Reason: "it is outside " + dir}
	}
	return p, nil
}

// badName says what is wrong with a name from an untrusted file, or returns "".
func badName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case !utf8.ValidString(name):
		return "the name is not valid UTF-8"
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name):
		return "the name is an absolute path"
	case strings.ContainsRune(name, '\\'):
		return "the name has a backslash"
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == 0x2028 || r == 0x2029 {
			return "the name has a control character"
		}
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "the name has a .. element"
		}
		if part == "" || part == "." {
			return "the name has an empty or . element"
		}
	}
	return ""
}

// quote shows a name the way Go quotes strings, so that a control character in it is seen,
// not obeyed.
func quote(name string) string { return fmt.Sprintf("%q", name) }
