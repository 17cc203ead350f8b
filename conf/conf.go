// Package conf holds the statemap files failsim ships: the defaults, compiled into the binary,
// and example overrides under examples/.
package conf

import _ "embed"

// DefaultsName is the name the shipped defaults carry in rule sources and errors.
const DefaultsName = "statemap.properties.defaults"

// Defaults is the text of statemap.properties.defaults.
//
//go:embed statemap.properties.defaults
var Defaults []byte
