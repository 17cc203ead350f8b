package fileline

import (
	"bytes"
	"encoding/json"
)

// JSONLine returns the 1-based line of data, one JSON document, on which the value at path
// begins: path is object keys (string) and array indices (int) from the top ("families", 0,
// "traces"). Where the path leaves the document, or data is not valid JSON along it, it is the
// line of the deepest value on the path that was found (1 for the document itself). A checker
// that finds a decoded value wrong names its line so.
func JSONLine(data []byte, path ...any) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	at := int64(0) // where the value sought (or the deepest found) begins
	for _, step := range path {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		d, _ := tok.(json.Delim)
		found := false
		switch want := step.(type) {
		case string:
			if d != '{' {
				break
			}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					break
				}
				if key == want {
					at, found = valueStart(data, dec.InputOffset()), true
					break
				}
				if skipValue(dec) != nil {
					break
				}
			}
		case int:
			if d != '[' {
				break
			}
			for i := 0; dec.More(); i++ {
				if i == want {
					at, found = valueStart(data, dec.InputOffset()), true
					break
				}
				if skipValue(dec) != nil {
					break
				}
			}
		}
		if !found {
			break
		}
	}
	return LineAt(data, at)
}

// valueStart is where the next value begins from offset on: past white space, a colon and a
// comma.
func valueStart(data []byte, offset int64) int64 {
	for offset < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n:,"), data[offset]) >= 0 {
		offset++
	}
	return offset
}

// skipValue reads one whole value from dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
