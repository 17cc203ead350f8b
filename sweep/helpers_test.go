package sweep

import (
	"context"
	"testing"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/statemap"
)

// config is a small run: the defaults, the axes given, n traces of each family.
func config(t testing.TB, n int, vary ...string) Config {
	t.Helper()
	var g Grid
	for _, v := range vary {
		a, err := ParseVary(v)
		if err != nil {
			t.Fatal(err)
		}
		g.Axes = append(g.Axes, a)
	}
	return Config{Grid: g, Map: statemap.Default(), Shape: check.DefaultShape(), Benign: n, Fatal: n, Seed: 1}
}

func run(t testing.TB, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
