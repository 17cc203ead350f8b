package fileline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSON returns err, an error of encoding/json decoding data, as an *Error at the line of file
// where the decoder stopped: a syntax error, a value of the wrong type, or a document cut short
// (at the last line). Another error is returned as an *Error about the whole file (line 0).
func JSON(file string, data []byte, err error) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &Error{File: file, Line: LineAt(data, syn.Offset), Err: fmt.Errorf("not valid JSON: %s", syn.Error())}
	case errors.As(err, &typ):
		what := "a value"
		if typ.Field != "" {
			what = typ.Field
		}
		return &Error{File: file, Line: LineAt(data, typ.Offset), Err: fmt.Errorf("%s: a JSON %s where %s belongs", what, typ.Value, typ.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{File: file, Line: LineAt(data, int64(len(data))), Err: errors.New("not valid JSON: the document ends too early")}
	}
	return &Error{File: file, Err: err}
}

// LineAt is the 1-based line of data that byte offset falls in; an offset at the end of data
// that ends in a newline is on the last line.
func LineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	if offset > 0 && offset == int64(len(data)) && data[offset-1] == '\n' {
		offset-- // the error is on the last line, not after it
	}
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}
