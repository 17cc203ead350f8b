package statemap

import (
	"fmt"
	"os"

	"github.com/failsim/failsim/conf"
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
func Load(path string) (*Map, error) {
	if path == "" {
		return FromBytes("", nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("statemap: %w", err)
	}
	return FromBytes(path, data)
}
