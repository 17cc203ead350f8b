// Package regex stands in for github.com/dolthub/go-icu-regex in failsim's build (go.mod
// replaces the module with this folder). The real package runs ICU's regular expressions in a
// WebAssembly runtime that it compiles when the program starts: about half a second of CPU and
// 20 MB of memory in every failsim command, whether or not the in-process server ever runs.
// failsim's in-process server answers probes, not REGEXP, so this stand-in has the same API
// and refuses every pattern: REGEXP, RLIKE and the REGEXP_* functions fail with an error that
// says so. It is what go-mysql-server's later gms_pure_go build tag does, minus the matching.
package regex

import (
	"context"
	"errors"
)

// ErrUnsupported is what every pattern gets.
var ErrUnsupported = errors.New("regular expressions are not available in failsim's in-process server")

// Regex is the real package's interface.
type Regex interface {
	// SetRegexString sets the pattern; here it always fails with ErrUnsupported.
	SetRegexString(ctx context.Context, regexStr string, flags RegexFlags) error
	// SetMatchString sets the string matched against.
	SetMatchString(ctx context.Context, matchStr string) error
	// IndexOf returns the 1-based index of a match; 0 if none.
	IndexOf(ctx context.Context, start int, occurrence int, endIndex bool) (int, error)
	// Matches reports whether the pattern matches.
	Matches(ctx context.Context, start int, occurrence int) (bool, error)
	// Replace replaces matches.
	Replace(ctx context.Context, replacementStr string, position int, occurrence int) (string, error)
	// Substring returns a match.
	Substring(ctx context.Context, start int, occurrence int) (string, bool, error)
	// StringBufferSize returns the size of the string buffers in bytes: always 0 here.
	StringBufferSize() uint32
	// Close frees the regex; here there is nothing to free.
	Close() error
}

// RegexFlags are the real package's (ICU's) pattern flags.
type RegexFlags uint32

// The flags, with ICU's values.
const (
	RegexFlags_None                     RegexFlags = 0
	RegexFlags_Case_Insensitive         RegexFlags = 2
	RegexFlags_Comments                 RegexFlags = 4
	RegexFlags_Dot_All                  RegexFlags = 32
	RegexFlags_Literal                  RegexFlags = 16
	RegexFlags_Multiline                RegexFlags = 8
	RegexFlags_Unix_Lines               RegexFlags = 1
	RegexFlags_Unicode_Word             RegexFlags = 256
	RegexFlags_Error_On_Unknown_Escapes RegexFlags = 512
)

// CreateRegex returns a Regex that refuses every pattern.
func CreateRegex(stringBufferInBytes uint32) Regex { return unsupported{} }

// SetRegexLeakHandler does nothing: this Regex holds nothing that could leak.
func SetRegexLeakHandler(handler func()) {}

type unsupported struct{}

func (unsupported) SetRegexString(context.Context, string, RegexFlags) error { return ErrUnsupported }
func (unsupported) SetMatchString(context.Context, string) error             { return ErrUnsupported }
func (unsupported) IndexOf(context.Context, int, int, bool) (int, error)     { return 0, ErrUnsupported }
func (unsupported) Matches(context.Context, int, int) (bool, error)          { return false, ErrUnsupported }
func (unsupported) Replace(context.Context, string, int, int) (string, error) {
	return "", ErrUnsupported
}
func (unsupported) Substring(context.Context, int, int) (string, bool, error) {
	return "", false, ErrUnsupported
}
func (unsupported) StringBufferSize() uint32 { return 0 }
func (unsupported) Close() error             { return nil }
