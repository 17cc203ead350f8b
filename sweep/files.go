package sweep

import (
	"os"
	"path/filepath"

	"github.com/failsim/failsim/internal/output"
)

// File is one output file: its name in the output directory and its bytes.
type File struct {
	Name string
	Data []byte
}

// FileNames are the names of the files a run writes in its output directory, in Files' order.
func FileNames() []string { return []string{"sweep.csv", "sweep.json", "sweep.svg", "sweep.png"} }

// Files returns what a run writes, in this order: sweep.csv, sweep.json, sweep.svg,
// sweep.png. The same result gives the same bytes.
func (r *Result) Files() ([]File, error) {
	svg, err := r.Picture(SVG)
	if err != nil {
		return nil, err
	}
	png, err := r.Picture(PNG)
	if err != nil {
		return nil, err
	}
	names := FileNames()
	return []File{{names[0], r.CSV()}, {names[1], r.JSON()}, {names[2], svg}, {names[3], png}}, nil
}

// WriteDir writes the result's files in dir, creating it if missing. Each file is written
// whole or not at all: to a temporary file in dir, then renamed over its name.
func (r *Result) WriteDir(dir string) error {
	files, err := r.Files()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := WriteFile(filepath.Join(dir, f.Name), f.Data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes data to path atomically: a reader sees the old file or the new one, never
// part of it; never over anything but a regular file (internal/output).
func WriteFile(path string, data []byte) error { return output.WriteFile(path, data) }
