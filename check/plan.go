package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/failsim/failsim/property"
)

// Planned is one family a run of failsim check judges, with the properties it judges on that
// family's traces, in the order it judges them.
type Planned struct {
	Family     Family
	Properties []property.Spec
}

// Plan returns the families a run with flags f judges, in order, with their properties: the
// --property flags that apply to each (a family none applies to is left out), or without any,
// the family's defaults and, with a workload, the workload's. failsim check runs exactly this,
// and failsim merge refuses a share whose families and properties differ from it. Only the
// family, the properties and whether there is a workload count; an error is a *FlagError.
func (f Flags) Plan() ([]Planned, error) {
	var fams []Family
	if f.Family == "all" {
		fams = []Family{Benign, Fatal, Mixed}
	} else if fam, ok := ParseFamily(f.Family); ok {
		fams = []Family{fam}
	} else {
		return nil, &FlagError{Flag: "family", Err: fmt.Errorf("family %q: want benign, fatal, mixed, partition or all", f.Family)}
	}
	var specs []property.Spec
	for i, p := range f.Properties {
		sp, err := property.ParseSpec(p)
		if err != nil {
			return nil, &FlagError{Flag: "property", Index: i, Err: err}
		}
		applies := false
		for _, fam := range fams {
			applies = applies || fam.Applies(sp.Name)
		}
		switch {
		case slices.ContainsFunc(specs, func(o property.Spec) bool { return o.Name == sp.Name }):
			return nil, &FlagError{Flag: "property", Index: i, Err: fmt.Errorf("property %s is named twice", sp.Name)}
		case !applies:
			return nil, &FlagError{Flag: "property", Index: i, Err: fmt.Errorf("property %s is not judged on %s traces", sp.Name, f.Family)}
		}
		specs = append(specs, sp)
	}
	// After every property is known to apply, as failsim check has always refused them.
	for i, sp := range specs {
		if property.NeedsWorkload(sp.Name) && f.Workload == "" {
			return nil, &FlagError{Flag: "property", Index: i, Err: fmt.Errorf("property %s judges a workload's writes: %w", sp.Name, ErrNoWorkload)}
		}
	}
	var out []Planned
	for _, fam := range fams {
		var ps []property.Spec
		for _, sp := range specs {
			if fam.Applies(sp.Name) {
				ps = append(ps, sp)
			}
		}
		if len(specs) > 0 && len(ps) == 0 {
			continue
		}
		if len(specs) == 0 {
			ps = defaults(fam, f.Workload != "")
		}
		out = append(out, Planned{Family: fam, Properties: ps})
	}
	return out, nil
}

// defaults are the properties judged on family f when none are named: the family's and, with a
// workload, the workload's.
func defaults(f Family, workload bool) []property.Spec {
	ps := f.Defaults()
	if workload {
		ps = append(ps, workloadDefaults(f)...)
	}
	return ps
}

// FlagError is what no run of failsim check takes among its flags (Flags.Plan): a family it
// does not know, or a property that does not parse, is named twice, is judged on none of the
// family's traces, or judges a workload's writes in a run without one. An unknown family's
// message begins "family", a property's that does not apply "property", so that failsim check
// can name the flag as it is typed.
type FlagError struct {
	Flag  string // "family" or "property"
	Index int    // which of Flags.Properties, from 0; 0 for the family
	Err   error
}

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// flagPath places a *FlagError at its flag in a share's JSON.
func flagPath(err error) error {
	var fe *FlagError
	if !errors.As(err, &fe) {
		return err
	}
	if fe.Flag == "family" {
		return atPath(fe.Err, "flags", "family")
	}
	return atPath(fe.Err, "flags", "properties", fe.Index)
}

// names are p's properties as an expect line states them.
func (p Planned) names() []string {
	var s []string
	for _, sp := range p.Properties {
		s = append(s, sp.String())
	}
	return s
}

func planNames(plan []Planned) string {
	var s []string
	for _, p := range plan {
		s = append(s, p.Family.String())
	}
	return strings.Join(s, ", ")
}
