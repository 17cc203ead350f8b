package sim

import (
	"fmt"
	"os"

	"github.com/failsim/failsim/statemap"
)

// LoadFile reads the timeline at path and its effective statemap: the override file
// statemapPath if not "", else the timeline's statemap statement, else the shipped defaults.
// Errors about the timeline name its file and line.
func LoadFile(path, statemapPath string) (*Timeline, *statemap.Map, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	tl, err := Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	if statemapPath == "" && tl.Statemap != "" {
		statemapPath = tl.Statemap
		if _, err := os.Stat(statemapPath); err != nil {
			return nil, nil, &statemap.ParseError{File: tl.File, Line: tl.StatemapLine, Err: fmt.Errorf("statemap %s: %w", statemapPath, err)}
		}
	}
	sm, err := statemap.Load(statemapPath)
	if err != nil {
		return nil, nil, err
	}
	return tl, sm, nil
}
