package main

import (
	"runtime/debug"
	"strings"
)

// version is failsim's version as the build recorded it.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module information)"
	}
	return versionOf(info)
}

// versionOf writes the version a build recorded: the main module's version, then the commit,
// its time and whether the tree was modified when the build recorded them (go build in a git
// work tree does), then the Go version: "v1.2.0, commit 0123456789ab of
// 2026-03-01T10:00:00Z, built with go1.26.0".
func versionOf(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	parts := []string{v}
	if rev != "" {
		c := "commit " + rev[:min(len(rev), 12)]
		if at != "" {
			c += " of " + at
		}
		if modified {
			c += ", modified"
		}
		parts = append(parts, c)
	}
	if info.GoVersion != "" {
		parts = append(parts, "built with "+info.GoVersion)
	}
	return strings.Join(parts, ", ")
}
