package bundle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/failsim/failsim/fileline"
)

// Kind is what a bundle's file is, told by its name.
type Kind uint8

// The kinds of file a bundle holds.
const (
	Other      Kind = iota // a file the importer does not read
	Cctrl                  // cctrl output: a name with "cctrl" in it (cctrl_ls.txt, cctrl-ls-l.out, ...)
	ManagerLog             // tmsvc.log, or a rotated tmsvc.log.N
	Replicator             // trepsvc.log: the replicator's log, which nothing the engine decides from is in
	Connector              // connector.log: the connector's log, likewise
)

// Classify tells a file's kind from its name (the last element of a slash-separated path).
func Classify(name string) Kind {
	base := strings.ToLower(path.Base(name))
	switch {
	case base == "tmsvc.log" || strings.HasPrefix(base, "tmsvc.log."):
		return ManagerLog
	case base == "trepsvc.log" || strings.HasPrefix(base, "trepsvc.log."):
		return Replicator
	case base == "connector.log" || strings.HasPrefix(base, "connector.log."):
		return Connector
	case strings.Contains(base, "cctrl"):
		return Cctrl
	}
	return Other
}

// File is one file of a bundle, read.
type File struct {
	Name string // the bundle's name, a slash and the file's path in it
	Kind Kind
	Data []byte // nil for a kind the importer does not parse
}

// Limits bound what Read reads of a bundle, in bytes.
type Limits struct {
	File  int64 // of one file; 0 for DefaultLimits' File
	Total int64 // of every file read, in all; 0 for DefaultLimits' Total
}

// DefaultLimits are the bounds of a bundle's files: a manager's log of 64 MiB, 256 MiB in all.
var DefaultLimits = Limits{File: 64 << 20, Total: 256 << 20}

// Read reads a bundle laid out as tpm diag writes it, a folder (per host) of logs and command
// outputs, from fsys's root, finding its files by name (Classify), in lexical order of path,
// at any depth. It reads the cctrl outputs and the manager logs, within lim; it lists the
// replicator and connector logs without reading them, and skips every other file (and
// anything that is not a regular file). name is the bundle's name for errors and File.Name.
// A bundle with neither a manager log nor a cctrl output is an error: not a Tungsten bundle.
func Read(fsys fs.FS, name string, lim Limits) ([]File, error) {
	if lim.File <= 0 {
		lim.File = DefaultLimits.File
	}
	if lim.Total <= 0 {
		lim.Total = DefaultLimits.Total
	}
	var files []File
	var total int64
	read := false
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		k := Classify(p)
		full := name + "/" + p
		switch k {
		case Other:
			return nil
		case Replicator, Connector:
			files = append(files, File{Name: full, Kind: k})
			return nil
		}
		data, err := readBounded(fsys, p, full, lim.File)
		if err != nil {
			return err
		}
		total += int64(len(data))
		if total > lim.Total {
			return fileline.Errorf(full, 0, "the bundle's files are more than %d bytes in all", lim.Total)
		}
		files = append(files, File{Name: full, Kind: k, Data: data})
		read = true
		return nil
	})
	if err != nil {
		var fe *fileline.Error
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !read {
		return nil, fileline.Errorf(name, 0, "no tmsvc.log and no cctrl output in it: not a Tungsten support bundle (tpm diag collects them)")
	}
	return files, nil
}

func readBounded(fsys fs.FS, p, full string, max int64) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", full, err)
	}
	if int64(len(data)) > max {
		return nil, fileline.Errorf(full, 0, "larger than %d bytes", max)
	}
	return data, nil
}
