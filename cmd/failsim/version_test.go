package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "(devel), built with go1.26.0"},
		{debug.BuildInfo{}, "(devel)"},
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-03-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		}}, "v1.2.0, commit 0123456789ab of 2026-03-01T10:00:00Z, built with go1.26.0"},
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20260301100000-0123456789ab"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"},
			{Key: "vcs.modified", Value: "true"},
		}}, "v0.0.0-20260301100000-0123456789ab, commit 0123456789ab, modified, built with go1.26.0"},
	} {
		if got := versionOf(&c.info); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.info, got, c.want)
		}
	}
}
